//! Restoring a session from its storage (docs/edge.md, durable sessions):
//! a session restored at its stored positions under the same incarnation
//! goes on where it stopped, a cursor from before the restart replays
//! exactly what it missed, and the state comes from a checkpoint plus the
//! events after it.

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use agent_replay::error::ErrorCode;
use agent_replay::live::*;
use agent_replay::units::{Millis, Position, Revision};

const INC: &str = "stored-inc";

fn store(max: usize) -> Rc<RefCell<ReplayStore>> {
    let config = StoreConfig { max_events_per_session: max, ..Default::default() };
    Rc::new(RefCell::new(ReplayStore::new(config, INC).unwrap()))
}

fn ev(turn: u32) -> String {
    format!(r#"{{"kind":"page_in","turn":{turn},"entry_count":{turn}}}"#)
}

fn lines(turns: std::ops::RangeInclusive<u32>) -> String {
    turns.map(ev).collect::<Vec<_>>().join("\n")
}

fn replayed(r: Resume) -> Vec<(u64, u64)> {
    match r {
        Resume::Replayed { events, .. } => {
            events.iter().map(|e| (e.position.0, e.revision.0)).collect()
        }
        Resume::Gap { gap, .. } => panic!("gap {:?}", gap.reason),
    }
}

fn at_start() -> RestoreBase {
    RestoreBase { position: Position(0), revision: Revision(0) }
}

/// A session of turns 1..=n appended live, and the state it folded.
fn live_session(n: u32) -> (ReplaySession, String) {
    let s = ReplaySession::new("s", store(100)).unwrap();
    s.append(lines(1..=n).as_bytes(), Millis(0), None).unwrap();
    let view = agent_replay::json::to_js_json(&s.observe().state);
    (s, view)
}

#[test]
fn a_restored_session_goes_on_at_its_positions_and_replays_what_a_cursor_missed() {
    let (before, _) = live_session(5);
    let old_cursor = format!("arc1:{INC}:2:2:s");
    let expected = replayed(before.resume(&old_cursor, Millis(0)).unwrap());
    let observed_before = before.observe();

    // The "restart": a new store of the same incarnation, from storage.
    let all = lines(1..=5);
    let restore = Restore {
        base: at_start(),
        events: all.as_bytes(),
        times: &[],
        checkpoint: None,
        retain: usize::MAX,
    };
    let after = ReplaySession::restore("s", store(100), restore, Millis(0)).unwrap();
    assert_eq!(after.cursor(), observed_before.cursor);
    assert_eq!(after.observe(), observed_before, "the same state, revision and cursor");
    assert_eq!(replayed(after.resume(&old_cursor, Millis(0)).unwrap()), expected);
    assert_eq!(expected, vec![(3, 3), (4, 4), (5, 5)]);
    let next = after.append(ev(6).as_bytes(), Millis(0), None).unwrap();
    assert_eq!((next[0].position.0, next[0].revision.0), (6, 6));
}

#[test]
fn the_state_comes_from_the_checkpoint_and_the_events_after_it() {
    let (_, view_at_3) = live_session(3);
    let (whole, _) = live_session(8);
    // Stored: events 2..=8 (base 1, revision 1), the checkpoint at 3.
    let events = lines(2..=8);
    let restore = Restore {
        base: RestoreBase { position: Position(1), revision: Revision(1) },
        events: events.as_bytes(),
        times: &[],
        checkpoint: Some((Position(3), &view_at_3)),
        retain: usize::MAX,
    };
    let restored = ReplaySession::restore("s", store(100), restore, Millis(0)).unwrap();
    assert_eq!(restored.observe(), whole.observe());
    // The window holds events 2..=8: a cursor at 1 replays them, one at 0 gets the gap.
    let from_1 = replayed(restored.resume(&format!("arc1:{INC}:1:1:s"), Millis(0)).unwrap());
    assert_eq!(from_1.first(), Some(&(2, 2)));
    assert_eq!(from_1.len(), 7);
    match restored.resume(&format!("arc1:{INC}:0:0:s"), Millis(0)).unwrap() {
        Resume::Gap { gap, .. } => assert_eq!(gap.reason, GapReason::Trimmed),
        Resume::Replayed { .. } => panic!("replayed before the window"),
    }
}

#[test]
fn revisions_follow_the_largest_turn_from_the_base() {
    // Turns 2, 1, 4 after a base at revision 3: revisions 3, 3, 4.
    let events = [ev(2), ev(1), ev(4)].join("\n");
    let checkpoint = live_session(1).1;
    let restore = Restore {
        base: RestoreBase { position: Position(9), revision: Revision(3) },
        events: events.as_bytes(),
        times: &[],
        checkpoint: Some((Position(12), &checkpoint)),
        retain: usize::MAX,
    };
    let s = ReplaySession::restore("s", store(100), restore, Millis(0)).unwrap();
    let got = replayed(s.resume(&format!("arc1:{INC}:3:9:s"), Millis(0)).unwrap());
    assert_eq!(got, vec![(10, 3), (11, 3), (12, 4)]);
}

#[test]
fn the_window_is_trimmed_by_the_store_bounds_and_the_stored_times() {
    let all = lines(1..=6);
    let times = [Millis(0), Millis(0), Millis(0), Millis(900), Millis(900), Millis(900)];
    let config = StoreConfig { max_events_per_session: 100, max_age_ms: 500, ..Default::default() };
    let shared = Rc::new(RefCell::new(ReplayStore::new(config, INC).unwrap()));
    let restore = Restore {
        base: at_start(),
        events: all.as_bytes(),
        times: &times,
        checkpoint: None,
        retain: usize::MAX,
    };
    let s = ReplaySession::restore("s", shared, restore, Millis(1000)).unwrap();
    assert_eq!(replayed(s.resume(&format!("arc1:{INC}:3:3:s"), Millis(1000)).unwrap()).len(), 3);
    match s.resume(&format!("arc1:{INC}:2:2:s"), Millis(1000)).unwrap() {
        Resume::Gap { gap, .. } => assert_eq!(gap.reason, GapReason::Trimmed),
        Resume::Replayed { .. } => panic!("replayed events older than maxAgeMs"),
    }
}

#[test]
fn only_the_retained_events_form_the_window_and_all_are_folded() {
    let all = lines(1..=6);
    let restore = Restore {
        base: at_start(),
        events: all.as_bytes(),
        times: &[],
        checkpoint: None,
        retain: 2,
    };
    let s = ReplaySession::restore("s", store(100), restore, Millis(0)).unwrap();
    assert_eq!(s.observe(), live_session(6).0.observe());
    assert_eq!(
        replayed(s.resume(&format!("arc1:{INC}:4:4:s"), Millis(0)).unwrap()),
        [(5, 5), (6, 6)]
    );
    match s.resume(&format!("arc1:{INC}:3:3:s"), Millis(0)).unwrap() {
        Resume::Gap { gap, .. } => assert_eq!(gap.reason, GapReason::Trimmed),
        Resume::Replayed { .. } => panic!("replayed past the retention"),
    }
}

#[test]
fn bad_restores_are_coded_errors_and_hold_nothing() {
    let shared = store(100);
    let all = lines(1..=3);
    let view = live_session(1).1;
    let cases: Vec<(Restore<'_>, ErrorCode)> = vec![
        (
            Restore {
                base: RestoreBase { position: Position(4), revision: Revision(0) },
                events: all.as_bytes(),
                times: &[],
                checkpoint: None,
                retain: usize::MAX,
            },
            ErrorCode::InvalidInput,
        ),
        (
            Restore {
                base: at_start(),
                events: all.as_bytes(),
                times: &[],
                checkpoint: Some((Position(9), &view)),
                retain: usize::MAX,
            },
            ErrorCode::InvalidInput,
        ),
        (
            Restore {
                base: at_start(),
                events: all.as_bytes(),
                times: &[],
                checkpoint: Some((Position(1), "{not a view")),
                retain: usize::MAX,
            },
            ErrorCode::InvalidInput,
        ),
        (
            Restore {
                base: at_start(),
                events: b"{\"kind\":\"page_in\"}\n{\"kind\":\"nope\"}",
                times: &[],
                checkpoint: None,
                retain: usize::MAX,
            },
            ErrorCode::InvalidLog,
        ),
        (
            Restore {
                base: RestoreBase { position: Position((1 << 53) - 2), revision: Revision(0) },
                events: all.as_bytes(),
                times: &[],
                checkpoint: Some((Position((1 << 53) - 2), &view)),
                retain: usize::MAX,
            },
            ErrorCode::InvalidInput,
        ),
    ];
    for (restore, code) in cases {
        let err = ReplaySession::restore("s", Rc::clone(&shared), restore, Millis(0)).err();
        assert_eq!(err.map(|e| e.code), Some(code));
        assert!(!shared.borrow().holds("s"));
    }
    let good = Restore {
        base: at_start(),
        events: all.as_bytes(),
        times: &[],
        checkpoint: None,
        retain: usize::MAX,
    };
    ReplaySession::restore("s", Rc::clone(&shared), good, Millis(0)).unwrap();
    let again = ReplaySession::restore("s", Rc::clone(&shared), good, Millis(0)).err();
    assert_eq!(again.map(|e| e.code), Some(ErrorCode::InvalidInput), "a held session");
}

#[test]
fn check_gives_one_line_per_event_and_appends_nothing() {
    let s = ReplaySession::new("s", store(100)).unwrap();
    let pretty = "[\n  {\"kind\": \"page_in\",\r\n \"turn\": 1, \"entry_count\": 1},\n  {\"kind\": \"page_out\", \"turn\": 2}\n]";
    let checked = s.check(pretty.as_bytes(), None).unwrap();
    assert_eq!(
        checked,
        "{\"kind\": \"page_in\",   \"turn\": 1, \"entry_count\": 1}\n{\"kind\": \"page_out\", \"turn\": 2}"
    );
    assert_eq!(s.cursor(), format!("arc1:{INC}:0:0:s"), "nothing appended");
    assert!(s.check(lines(1..=3).as_bytes(), Some(2)).is_err(), "more than max_events");
    assert!(s.check(b"{\"kind\":\"page_in\"}\n{\"kind\":", None).is_err(), "half an event");
    // The checked lines append as the input would.
    let direct = ReplaySession::new("s", store(100)).unwrap();
    direct.append(pretty.as_bytes(), Millis(0), None).unwrap();
    s.append(checked.as_bytes(), Millis(0), None).unwrap();
    assert_eq!(s.observe().state.event_count, direct.observe().state.event_count);
    assert_eq!(s.cursor(), direct.cursor());
}

#[test]
fn an_idle_session_is_evicted_and_restored_a_followed_one_is_kept() {
    let shared = store(100);
    let all = lines(1..=3);
    let restore = Restore {
        base: at_start(),
        events: all.as_bytes(),
        times: &[],
        checkpoint: None,
        retain: 9,
    };
    let s = ReplaySession::restore("s", Rc::clone(&shared), restore, Millis(0)).unwrap();
    let mut following = s.subscribe(&s.cursor(), Millis(0)).unwrap();
    assert!(!shared.borrow_mut().evict_idle("s"), "a followed session stays");
    following.close();
    assert!(shared.borrow_mut().evict_idle("s"));
    assert!(!shared.borrow().holds("s"));
    assert!(!shared.borrow_mut().evict_idle("s"), "not held any more");
    assert!(!shared.borrow_mut().evict_idle("never-seen"));
    // Its storage brings it back, at the same positions.
    let again = ReplaySession::restore("s", Rc::clone(&shared), restore, Millis(0)).unwrap();
    assert_eq!(again.cursor(), format!("arc1:{INC}:3:3:s"));
}

/// A position of a session that never stopped, with what a storage would
/// have kept there: its revision and its state.
struct Mark {
    position: u64,
    revision: u64,
    view: String,
}

#[test]
fn restarts_from_random_checkpoints_match_the_session_that_never_stopped() {
    let lines = common::sample_lines();
    for seed in 1..=30u64 {
        let mut rng = common::Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let n = 1 + rng.below(lines.len() as u64) as usize;
        let live = ReplaySession::new("s", store(10_000)).unwrap();
        let view = |s: &ReplaySession| agent_replay::json::to_js_json(&s.observe().state);
        let mut marks = vec![Mark { position: 0, revision: 0, view: view(&live) }];
        let mut at = 0;
        while at < n {
            let end = (at + 1 + rng.below(6) as usize).min(n);
            let batch = lines.get(at..end).unwrap().join("\n");
            live.append(batch.as_bytes(), Millis(0), None).unwrap();
            at = end;
            let revision = live.revision().0;
            marks.push(Mark { position: at as u64, revision, view: view(&live) });
        }
        // A storage's restart: the state at a checkpoint, the events from a
        // base at or before it, the newest `retain` of them in the window.
        let checkpoint = marks.get(rng.below(marks.len() as u64) as usize).unwrap();
        let base = marks.get(rng.below(marks.len() as u64) as usize).unwrap();
        let base = if base.position <= checkpoint.position { base } else { checkpoint };
        let events = lines.get(base.position as usize..n).unwrap().join("\n");
        let retain = rng.below(n as u64 + 2) as usize;
        let restore = Restore {
            base: RestoreBase {
                position: Position(base.position),
                revision: Revision(base.revision),
            },
            events: events.as_bytes(),
            times: &[],
            checkpoint: (checkpoint.position > 0 || base.position > 0)
                .then_some((Position(checkpoint.position), checkpoint.view.as_str())),
            retain,
        };
        let restored = ReplaySession::restore("s", store(10_000), restore, Millis(0)).unwrap();
        assert_eq!(restored.observe(), live.observe(), "seed {seed}");
        let window = retain.min(n - base.position as usize);
        for p in 0..=n {
            let cursor = format!("arc1:{INC}:0:{p}:s");
            let got = restored.resume(&cursor, Millis(0)).unwrap();
            let Resume::Replayed { events: expected, .. } =
                live.resume(&cursor, Millis(0)).unwrap()
            else {
                panic!("the live session holds everything");
            };
            match got {
                Resume::Replayed { events, .. } => {
                    assert!(p + window >= n, "seed {seed}: replayed from {p} past the window");
                    assert_eq!(events, expected, "seed {seed}, from {p}");
                }
                Resume::Gap { gap, .. } => {
                    assert!(p + window < n, "seed {seed}: a gap from {p} within the window");
                    assert_eq!(gap.reason, GapReason::Trimmed);
                }
            }
        }
        let next = lines.first().unwrap().as_bytes();
        let a = live.append(next, Millis(0), None).unwrap();
        let b = restored.append(next, Millis(0), None).unwrap();
        assert_eq!(a, b, "seed {seed}: the next append, the same event at the same cursor");
    }
}
