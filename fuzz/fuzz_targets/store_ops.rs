//! Sequences of store operations read from the bytes, on a store with tiny
//! bounds (capacity, age, sessions, bytes, event size): nothing panics, and
//! every replay is the contiguous run of positions right after its cursor.
#![no_main]
use agent_replay::live::{Replay, ReplayStore, StoreConfig, SubscribeResult, Subscription};
use agent_replay::units::{Millis, Revision};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let config = StoreConfig {
        max_events_per_session: 3,
        max_age_ms: 50,
        max_event_bytes: 120,
        max_sessions: 3,
        max_total_bytes: 600,
    };
    let Ok(mut store) = ReplayStore::new(config, "f") else { return };
    let mut subs: Vec<Subscription> = Vec::new();
    let mut now = 0u64;
    for op in data.chunks(3) {
        let [code, a, b] = [op.first(), op.get(1), op.get(2)].map(|x| x.copied().unwrap_or(0));
        let session = ["a", "b", "c", "d:e"][usize::from(a % 4)];
        match code % 7 {
            0 | 1 => {
                let json = format!(
                    r#"{{"kind":"page_out","turn":{b},"summary":"{}"}}"#,
                    "x".repeat(usize::from(a))
                );
                let _ = store.append(
                    session,
                    &json,
                    (b % 5 == 0).then_some(Revision(u64::from(b))),
                    Millis(now),
                );
            }
            2 => now += u64::from(b),
            3 => store.trim_session(session, Millis(now)),
            4 => {
                let cursor = format!("arc1:f:0:{}:{session}", b % 12);
                if let Ok(Replay::Replayed(events)) = store.replay_after(&cursor, Millis(now)) {
                    for (i, e) in events.iter().enumerate() {
                        assert_eq!(e.position.0, u64::from(b % 12) + 1 + i as u64);
                    }
                }
            }
            5 => {
                if let Ok(SubscribeResult::Subscribed(s)) =
                    store.subscribe(&format!("arc1:f:0:{}:{session}", b % 6), Millis(now))
                {
                    subs.push(s);
                }
            }
            _ => {
                if let Some(s) = subs.get(usize::from(b) % subs.len().max(1)) {
                    let _ = s.try_next();
                    if a % 5 == 0 {
                        s.close();
                    }
                }
            }
        }
    }
});
