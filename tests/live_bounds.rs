//! Store-wide bounds: the largest event, the most sessions, the byte budget,
//! and what an evicted session's cursors get (a gap, never a wrong replay).

use std::cell::RefCell;
use std::rc::Rc;

use agent_replay::live::*;
use agent_replay::units::{Millis, Position, Revision};

const INC: &str = "b";

fn store(max_sessions: usize, max_total_bytes: usize) -> ReplayStore {
    let config =
        StoreConfig { max_sessions, max_total_bytes, max_event_bytes: 200, ..Default::default() };
    ReplayStore::new(config, INC).unwrap()
}

fn ev(turn: u32) -> String {
    format!(r#"{{"kind":"page_in","turn":{turn},"entry_count":1}}"#)
}

fn replay(s: &mut ReplayStore, c: &str) -> Result<Vec<u64>, GapReason> {
    match s.replay_after(c, Millis(0)).unwrap() {
        Replay::Replayed(events) => Ok(events.iter().map(|e| e.position.0).collect()),
        Replay::Gap(g) => Err(g),
    }
}

#[test]
fn an_event_over_max_event_bytes_is_refused_and_nothing_changes() {
    let mut s = store(10, 1 << 20);
    let big = format!(
        r#"{{"kind":"milestone_blocked","turn":1,"phase_id":"p","reason":"{}"}}"#,
        "x".repeat(300)
    );
    assert!(
        matches!(s.append("a", &big, None, Millis(0)), Err(AppendError::EventTooLarge(n)) if n == big.len())
    );
    assert_eq!(s.current_cursor("a", None), format!("arc1:{INC}:0:0:a"));
    let h = ReplaySession::new("a", Rc::new(RefCell::new(store(10, 1 << 20)))).unwrap();
    let log = format!("{}\n{big}\n", ev(1));
    assert!(h.append(log.as_bytes(), Millis(0), None).is_err());
    assert_eq!(h.observe().state.event_count, 0, "all or nothing");
}

#[test]
fn past_max_sessions_the_least_recently_active_idle_session_is_evicted() {
    let mut s = store(2, 1 << 20);
    s.append("a", &ev(1), None, Millis(0)).unwrap();
    s.append("b", &ev(1), None, Millis(0)).unwrap();
    s.append("a", &ev(2), None, Millis(0)).unwrap(); // a is now the more recent
    s.append("c", &ev(1), None, Millis(0)).unwrap(); // evicts b
    assert_eq!(s.session_count(), 2);
    assert_eq!(s.retained("b"), 0);
    assert_eq!(s.retained("a"), 2);
    // An evicted session's cursors: a gap, never a silent empty replay.
    assert_eq!(replay(&mut s, &format!("arc1:{INC}:0:0:b")), Err(GapReason::Unavailable));
    assert_eq!(replay(&mut s, &format!("arc1:{INC}:1:2:b")), Err(GapReason::Unavailable));
    // Exactly where it stopped, nothing was missed.
    assert_eq!(replay(&mut s, &format!("arc1:{INC}:1:1:b")), Ok(vec![]));
    assert_eq!(s.current_cursor("b", None), format!("arc1:{INC}:1:1:b"));
    // It comes back where it stood: positions go on, an old cursor stays right.
    let back = s.append("b", &ev(5), None, Millis(0)).unwrap();
    assert_eq!((back.position, back.revision), (Position(2), Revision(5)));
    assert_eq!(replay(&mut s, &format!("arc1:{INC}:1:1:b")), Ok(vec![2]));
}

#[test]
fn sessions_with_subscribers_are_not_evicted() {
    let mut s = store(2, 1 << 20);
    let SubscribeResult::Subscribed(_a) =
        s.subscribe(&format!("arc1:{INC}:0:0:a"), Millis(0)).unwrap()
    else {
        panic!()
    };
    let SubscribeResult::Subscribed(_b) =
        s.subscribe(&format!("arc1:{INC}:0:0:b"), Millis(0)).unwrap()
    else {
        panic!()
    };
    assert_eq!(s.append("c", &ev(1), None, Millis(0)), Err(AppendError::TooManySessions));
    assert!(matches!(
        s.subscribe(&format!("arc1:{INC}:0:0:c"), Millis(0)).unwrap(),
        SubscribeResult::Gap(GapReason::Unavailable)
    ));
    drop(_b);
    assert_eq!(
        s.append("c", &ev(1), None, Millis(0)).unwrap().position,
        Position(1),
        "b's subscriber is gone: b is evicted"
    );
}

#[test]
fn the_byte_budget_holds_after_every_append() {
    let budget = 4_000;
    let mut s = store(1000, budget);
    let SubscribeResult::Subscribed(live) =
        s.subscribe(&format!("arc1:{INC}:0:0:watched"), Millis(0)).unwrap()
    else {
        panic!()
    };
    for i in 0..2_000u32 {
        let session = format!("s{}", i % 37);
        s.append(&session, &ev(i), None, Millis(0)).unwrap();
        if i % 5 == 0 {
            s.append("watched", &ev(i), None, Millis(0)).unwrap();
        }
        assert!(s.retained_bytes() <= budget, "{} > {budget} at {i}", s.retained_bytes());
    }
    // The watched session was trimmed, not evicted: its subscriber got every event.
    let delivered = std::iter::from_fn(|| live.try_next())
        .filter(|x| matches!(x, SubscriptionItem::Event(_)))
        .count();
    assert!(delivered > 0);
    assert!(s.session_count() <= 1000);
}

#[test]
fn forgotten_sessions_start_above_the_floor_so_old_cursors_get_gaps() {
    // max_sessions 1: tombstones hold 8; the ninth eviction forgets the first.
    let mut s = store(1, 1 << 20);
    for t in 1..=3 {
        s.append("first", &ev(t), None, Millis(0)).unwrap();
    }
    for i in 0..10 {
        s.append(&format!("other{i}"), &ev(1), None, Millis(0)).unwrap();
    }
    // "first" (tail 3) is forgotten: its old cursors must not replay.
    assert_eq!(replay(&mut s, &format!("arc1:{INC}:0:0:first")), Err(GapReason::Unavailable));
    assert_eq!(replay(&mut s, &format!("arc1:{INC}:3:2:first")), Err(GapReason::Unavailable));
    let again = s.append("first", &ev(9), None, Millis(0)).unwrap();
    assert!(
        again.position > Position(3),
        "positions start above every forgotten tail: {}",
        again.position
    );
    // Back with a buffer, an old-life cursor is behind its oldest event: a gap still.
    assert_eq!(replay(&mut s, &format!("arc1:{INC}:3:2:first")), Err(GapReason::Trimmed));
}

#[test]
fn append_log_reports_each_refused_event_where_it_is_and_keeps_the_rest() {
    let big = format!(
        r#"{{"kind":"milestone_blocked","turn":1,"phase_id":"p","reason":"é{}"}}"#,
        "x".repeat(300)
    );
    let placed = |report: &AppendLogReport| -> Vec<(usize, usize, String)> {
        let code = |e: &agent_replay::log::LogError| agent_replay::json::to_js_json(&e.code);
        report.errors.iter().map(|e| (e.line, e.column, code(e))).collect()
    };
    let limit = r#""limit_exceeded""#.to_string();
    // UTF-8 input: the events are slices of it.
    let mut s = store(10, 1 << 20);
    let log = format!("{}\n  {big}\n{{\n{}\n{big}", ev(1), ev(2));
    let report = s.append_log("a", log.as_bytes(), Millis(0)).unwrap();
    assert_eq!(report.appended, 2);
    assert_eq!(report.cursor, format!("arc1:{INC}:2:2:a"));
    assert_eq!(
        placed(&report),
        vec![(2, 3, limit.clone()), (3, 1, r#""invalid_json""#.into()), (5, 1, limit.clone())]
    );
    // An array on one line: columns count characters, not bytes.
    let log = format!(r#"[{{"kind":"page_in","turn":1,"entry_count":1,"x":"é"}}, {big}]"#);
    let report = s.append_log("c", log.as_bytes(), Millis(0)).unwrap();
    assert_eq!(placed(&report), vec![(1, 55, limit.clone())]);
    // Not UTF-8: the unterminated last line is a copy, found in the input.
    let mut bytes = format!("{}\n\u{ff}\n{big}\n{big}", ev(1)).into_bytes();
    bytes[ev(1).len() + 1] = 0xff;
    let report = s.append_log("b", &bytes, Millis(0)).unwrap();
    assert_eq!(report.appended, 1);
    assert_eq!(
        placed(&report),
        vec![(2, 1, r#""invalid_utf8""#.into()), (3, 1, limit.clone()), (4, 1, limit)]
    );
}

#[test]
fn append_log_to_a_session_the_store_has_no_room_for_is_store_full() {
    let mut s = store(1, 1 << 20);
    let SubscribeResult::Subscribed(_held) =
        s.subscribe(&format!("arc1:{INC}:0:0:a"), Millis(0)).unwrap()
    else {
        panic!("subscribed")
    };
    s.append("a", &ev(1), None, Millis(0)).unwrap();
    let err = s.append_log("b", ev(1).as_bytes(), Millis(0)).unwrap_err();
    assert_eq!(err.code, agent_replay::ErrorCode::StoreFull);
    assert_eq!(s.current_cursor("b", None), format!("arc1:{INC}:0:0:b"));
}

#[test]
fn subscribing_to_a_new_session_while_its_admission_raises_the_floor_misses_nothing() {
    // max_sessions 1: tombstones hold 8; "first" (tail 3) then 8 others fill them.
    let mut s = store(1, 1 << 20);
    for t in 1..=3 {
        s.append("first", &ev(t), None, Millis(0)).unwrap();
    }
    for i in 0..8 {
        s.append(&format!("other{i}"), &ev(1), None, Millis(0)).unwrap();
    }
    // "ghost" stands at the floor, 0, when its cursor is checked; admitting it
    // evicts "other7", which forgets "first": it starts at the new floor, 3.
    let SubscribeResult::Subscribed(sub) =
        s.subscribe(&format!("arc1:{INC}:0:0:ghost"), Millis(0)).unwrap()
    else {
        panic!("the cursor stood where the session did")
    };
    assert_eq!(sub.try_next(), None, "nothing was appended to ghost");
    s.append("ghost", &ev(1), None, Millis(0)).unwrap();
    let Some(SubscriptionItem::Event(e)) = sub.try_next() else { panic!("the live event") };
    assert_eq!(e.position, Position(4), "above the forgotten tail of first");
}
