//! Native side of the live replay benchmark (benches/live.mjs runs it):
//! the same scenarios as the WASM side, with a counting allocator for the
//! bytes each retained event costs. Prints one JSON object.
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use agent_replay::live::{ReplayStore, StoreConfig, SubscribeResult, Subscription};
use agent_replay::units::Millis;

struct Counting;
static ALLOCATED: AtomicUsize = AtomicUsize::new(0);
// SAFETY: delegates to System, counting sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(l.size(), Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        ALLOCATED.fetch_sub(l.size(), Relaxed);
        System.dealloc(p, l)
    }
}
#[global_allocator]
static A: Counting = Counting;

const SMALL: &str = r#"{"kind":"page_in","turn":12,"entry_count":1}"#;

fn store(max: usize) -> ReplayStore {
    ReplayStore::new(
        StoreConfig { max_events_per_session: max, max_age_ms: u64::MAX / 4, ..Default::default() },
        "bench",
    )
    .unwrap()
}

fn ns_per(n: usize, f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_nanos() as f64 / n as f64
}

fn main() {
    let big = format!(
        r#"{{"kind":"milestone_blocked","turn":1,"phase_id":"p","reason":"{}"}}"#,
        "x".repeat(4000)
    );
    let mut out = Vec::new();
    for (name, json, n) in
        [("append_small_ns", SMALL, 200_000), ("append_4kb_ns", big.as_str(), 20_000)]
    {
        let mut s = store(2048);
        let ns = ns_per(n, || {
            for _ in 0..n {
                s.append("s", json, None, Millis(0)).unwrap();
            }
        });
        out.push(format!("\"{name}\":{ns:.1}"));
    }
    // Replay k events from a full buffer of 2048, and of 1,000,000.
    for (cap, ks) in [(2048usize, vec![1u64, 100, 2048]), (1_000_000, vec![100])] {
        let mut s = store(cap);
        for _ in 0..cap {
            s.append("s", SMALL, None, Millis(0)).unwrap();
        }
        for k in ks {
            let cursor = s
                .current_cursor("s", None)
                .replace(&format!(":{}:s", cap), &format!(":{}:s", cap as u64 - k));
            let reps = (200_000 / k as usize).max(50);
            let ns = ns_per(reps, || {
                for _ in 0..reps {
                    std::hint::black_box(s.replay_after(&cursor, Millis(0)).unwrap());
                }
            });
            out.push(format!("\"replay_{k}_of_{cap}_ns\":{ns:.1}"));
        }
    }
    // Live delivery: each append read by every subscriber.
    for subs in [1usize, 100] {
        let mut s = store(2048);
        let readers: Vec<Subscription> = (0..subs)
            .map(|_| match s.subscribe("arc1:bench:0:0:s", Millis(0)).unwrap() {
                SubscribeResult::Subscribed(x) => x,
                SubscribeResult::Gap(g) => panic!("{g:?}"),
            })
            .collect();
        let n = 20_000;
        let ns = ns_per(n * subs, || {
            for _ in 0..n {
                s.append("s", SMALL, None, Millis(0)).unwrap();
                for r in &readers {
                    std::hint::black_box(r.try_next());
                }
            }
        });
        out.push(format!("\"deliver_{subs}_subs_events_per_s\":{:.0}", 1e9 / ns));
    }
    // Memory per retained small event.
    let before = ALLOCATED.load(Relaxed);
    let mut s = store(1_000_000);
    for _ in 0..1_000_000 {
        s.append("s", SMALL, None, Millis(0)).unwrap();
    }
    let per = (ALLOCATED.load(Relaxed) - before) as f64 / 1e6;
    out.push(format!(
        "\"bytes_per_small_event\":{per:.1},\"small_event_json_bytes\":{}",
        SMALL.len()
    ));
    drop(s);
    println!("{{{}}}", out.join(","));
}
