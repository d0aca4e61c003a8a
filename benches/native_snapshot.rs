//! Native side of the snapshot benchmark: loads a log from bytes and folds
//! the OS snapshot, as `rebuildOsSnapshot` does in WASM, or with `index`
//! builds the paged index, as `new SessionIndex().apply(bytes)` does (the
//! log copied in and kept).
//! Prints JSON. Run by benches/snapshot.mjs:
//! `cargo bench --bench native_snapshot -- FILE REPS [all|index]`.
use std::time::Instant;

use agent_replay::index::SessionIndex;
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
    if args.get(3).is_some_and(|a| a == "index") {
        return index(&bytes, reps);
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

/// The paged index built from the whole log, `reps` times.
fn index(bytes: &[u8], reps: usize) {
    let mut ms = Vec::new();
    let mut events = 0;
    for _ in 0..reps {
        let t0 = Instant::now();
        let mut index = SessionIndex::new(None);
        // Handed over as WebAssembly gets it: copied in, then kept.
        let report = index.apply_log(bytes.to_vec(), LogOptions::default()).expect("tolerant load");
        assert!(report.errors.is_empty(), "benchmark log has errors");
        ms.push(t0.elapsed().as_secs_f64() * 1000.0);
        events = index.event_count();
    }
    println!(
        "{{\"which\":\"native-index\",\"ms\":{ms:?},\"peakRssMb\":{},\"events\":{events}}}",
        peak_rss_mb()
    );
}
