//! Native side of the snapshot benchmark: loads a log from bytes and folds
//! the OS snapshot, as `rebuildOsSnapshot` does in WASM, or with `index`
//! builds the paged index, as `new SessionIndex().apply(bytes)` does (the
//! log copied in and kept), or with `write` the same index written in
//! chunks, as the viewer's worker and benches/index.mjs write it (each
//! chunk copied in, as WebAssembly gets it); a fifth argument sets the
//! checkpoints' first spacing (0: the default), a sixth the chunks' size
//! (256 KiB unless given; the viewer's worker writes 4 MiB).
//! `write-navigable` writes it with the typed check deferred
//! (`SessionIndex::deferring`), `write-checked` then runs that check to
//! its end in the viewer's steps.
//! With `stateat`, builds the index once and then takes REPS steps of time
//! travel at the random positions benches/index.mjs takes (`state_at` and
//! the shown state with a tail of 15, as the viewer asks): for counting a
//! step's instructions under valgrind (the difference of two REPS). A
//! fifth argument sets the spacing of the checkpoints (e.g. 8192, what a
//! 1 GB log reaches) on a smaller log.
//! Prints JSON. Run by benches/snapshot.mjs:
//! `cargo bench --bench native_snapshot -- FILE REPS [all|index|write|write-navigable|write-checked|stateat [SPACING [CHUNK]]]`.
use std::time::Instant;

use agent_replay::index::{shown_state_json, SessionIndex};
use agent_replay::log::LogOptions;
use agent_replay::snapshot::rebuild_os_snapshot_from_bytes;

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().filter(|a| a != "--bench").collect();
    let file = args.get(1).expect("usage: native_snapshot FILE [REPS]");
    let reps: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(3);
    let full_check = args.get(3).is_some_and(|a| a == "all");
    let bytes = std::fs::read(file).expect("read log");
    let mode = args.get(3).map_or("", String::as_str);
    if let Some(check) = match mode {
        "index" | "write" => Some(Check::Eager),
        "write-navigable" => Some(Check::Deferred),
        "write-checked" => Some(Check::DeferredThenRun),
        _ => None,
    } {
        let spacing = args.get(4).and_then(|s| s.parse().ok()).filter(|&s| s > 0);
        let chunk = args.get(5).and_then(|s| s.parse().ok()).unwrap_or(256 << 10);
        let chunked = (mode != "index").then_some(chunk);
        return index(&bytes, reps, chunked, spacing, check);
    }
    if args.get(3).is_some_and(|a| a == "stateat") {
        let spacing = args.get(4).and_then(|s| s.parse().ok());
        return state_at(bytes, reps, spacing);
    }
    let mut ms = Vec::new();
    let mut snapshot = String::new();
    for _ in 0..reps {
        let t0 = Instant::now();
        let (snap, report) =
            rebuild_os_snapshot_from_bytes(&bytes, false, full_check).expect("tolerant load");
        assert!(report.errors.is_empty(), "benchmark log has errors");
        snapshot = snap.to_json();
        ms.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    let which = if full_check { "native-all" } else { "native" };
    println!(
        "{{\"which\":\"{which}\",\"ms\":{ms:?},\"peakRssMb\":{},\"snapshot\":{snapshot}}}",
        peak_rss_mb()
    );
}

/// When the index's typed check runs.
#[derive(Clone, Copy, PartialEq)]
enum Check {
    /// While the log is written (the default).
    Eager,
    /// Deferred, and not run: what makes the log navigable.
    Deferred,
    /// Deferred, then run to its end in steps, as the viewer runs it.
    DeferredThenRun,
}

/// The paged index built from the whole log, `reps` times: handed over
/// whole, or written in chunks of `chunked` bytes.
fn index(bytes: &[u8], reps: usize, chunked: Option<usize>, spacing: Option<u64>, check: Check) {
    let mut ms = Vec::new();
    let (mut events, mut retained) = (0, 0);
    for _ in 0..reps {
        let t0 = Instant::now();
        let mut index = match spacing {
            Some(spacing) => SessionIndex::with_checkpoints(None, spacing, 512),
            None => SessionIndex::new(None),
        }
        .deferring(check != Check::Eager);
        let report = if let Some(size) = chunked {
            for chunk in bytes.chunks(size) {
                // Copied in, as WebAssembly gets it.
                let chunk = chunk.to_vec();
                index.write(chunk, LogOptions::default()).expect("tolerant load");
            }
            index.end().expect("tolerant load")
        } else {
            // Handed over as WebAssembly gets it: copied in, then kept.
            index.apply_log(bytes.to_vec(), LogOptions::default()).expect("tolerant load")
        };
        assert!(report.errors.is_empty(), "benchmark log has errors");
        if check == Check::DeferredThenRun {
            while !index.check_step(CHECK_STEP).done {}
            assert!(index.load_errors().is_empty(), "benchmark log has errors");
        }
        ms.push(t0.elapsed().as_secs_f64() * 1000.0);
        events = index.event_count();
        retained = index.memory_stats().0;
    }
    println!(
        "{{\"which\":\"native-index\",\"ms\":{ms:?},\"peakRssMb\":{},\"events\":{events},\"retainedBytes\":{retained}}}",
        peak_rss_mb()
    );
}

/// The events a step of the deferred check reads (the viewer's worker's
/// step, between two messages).
const CHECK_STEP: usize = 4096;

/// `reps` steps of time travel on the index of the whole log, at
/// benches/index.mjs's random positions.
fn state_at(bytes: Vec<u8>, reps: usize, spacing: Option<u64>) {
    let mut index = match spacing {
        Some(spacing) => SessionIndex::with_checkpoints(None, spacing, usize::MAX),
        None => SessionIndex::new(None),
    };
    index.apply_log(bytes, LogOptions::default()).expect("tolerant load");
    let events = index.event_count();
    let mut seed: u64 = 7;
    let mut ms = Vec::new();
    let mut shown = 0;
    for _ in 0..reps {
        seed = (seed * 1_103_515_245 + 12_345) % (1 << 31);
        let position = (seed as f64 / f64::from(1u32 << 31) * events as f64) as u64;
        let t0 = Instant::now();
        shown += shown_state_json(index.state_at(position), 15).len();
        ms.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    let (_, checkpoints, spacing) = index.memory_stats();
    println!(
        "{{\"which\":\"native-stateat\",\"ms\":{ms:?},\"events\":{events},\"checkpoints\":{checkpoints},\"spacing\":{spacing},\"shownBytes\":{shown}}}"
    );
}
