//! Live replay: cursors, the gap rules (one test per row of live-replay.md),
//! retention, subscriptions and the session handle.

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use agent_replay::live::*;
use agent_replay::state::SessionState;
use agent_replay::units::{Millis, Position, Revision};

const INC: &str = "inc1";

fn store(max: usize, age: u64) -> ReplayStore {
    ReplayStore::new(
        StoreConfig { max_events_per_session: max, max_age_ms: age, ..Default::default() },
        INC,
    )
    .unwrap()
}

fn ev(turn: u32) -> String {
    format!(r#"{{"kind":"page_in","turn":{turn},"entry_count":1}}"#)
}

fn positions(r: Replay) -> Vec<u64> {
    match r {
        Replay::Replayed(events) => events.iter().map(|e| e.position.0).collect(),
        Replay::Gap(g) => panic!("gap {g:?}"),
    }
}

fn gap(r: Replay) -> GapReason {
    match r {
        Replay::Gap(g) => g,
        Replay::Replayed(e) => panic!("replayed {} events", e.len()),
    }
}

fn cursor(p: u64, session: &str) -> String {
    format!("arc1:{INC}:0:{p}:{session}")
}

// ---- cursors ------------------------------------------------------------

#[test]
fn cursor_round_trips_with_colons_in_the_session_id() {
    let c = SessionCursor::new("a-b_c.d~9", Revision(17), Position(42), "tenant:acme:session:7");
    let text = c.to_string();
    assert_eq!(text, "arc1:a-b_c.d~9:17:42:tenant:acme:session:7");
    assert_eq!(SessionCursor::parse(&text).unwrap(), c);
    let max = SessionCursor::new("x", Revision((1 << 53) - 1), Position((1 << 53) - 1), "s");
    assert_eq!(SessionCursor::parse(&max.to_string()).unwrap(), max);
}

#[test]
fn cursor_parsing_rejects_everything_non_canonical() {
    for bad in [
        "",
        "arc2:x:0:0:s",
        "x:0:0:s",
        "arc1:x:0:0:",
        "arc1::0:0:s",
        "arc1:x:0:0",
        "arc1:x:+5:0:s",
        "arc1:x:0:+5:s",
        "arc1:x:007:0:s",
        "arc1:x:0:007:s",
        "arc1:x:00:0:s",
        "arc1:x:-1:0:s",
        "arc1:x:9007199254740992:0:s",
        "arc1:x:0:9007199254740992:s",
        "arc1:x:0:99999999999999999999:s",
        "arc1:x:1.0:0:s",
        "arc1:x: 1:0:s",
        "arc1:in/c:0:0:s",
        "arc1:x:0:0:s\n",
        "arc1:x:0:0:s\rt",
        "arc1:x:0:0:s\0",
        "\narc1:x:0:0:s",
        "arc1:x:0\n:0:s",
    ] {
        assert!(matches!(SessionCursor::parse(bad), Err(CursorError::Malformed { .. })), "{bad:?}");
    }
    assert!(SessionCursor::parse("arc1:x:0:0:s").is_ok());
    assert!(matches!(
        SessionCursor::parse_for_session("arc1:x:0:0:a", "b"),
        Err(CursorError::WrongSession { expected, found }) if expected == "b" && found == "a"
    ));
}

// ---- the gap rules, in order -----------------------------------------------

#[test]
fn rule_1_malformed_cursor_is_an_error_not_a_gap() {
    let mut s = store(8, 1000);
    assert!(matches!(s.replay_after("nope", Millis(0)), Err(CursorError::Malformed { .. })));
    assert!(matches!(s.subscribe("arc1:x:007:0:s", Millis(0)), Err(CursorError::Malformed { .. })));
}

#[test]
fn rule_2_foreign_incarnation_is_unavailable() {
    let mut s = store(8, 1000);
    s.append("s", &ev(1), None, Millis(0)).unwrap();
    assert_eq!(gap(s.replay_after("arc1:other:0:0:s", Millis(0)).unwrap()), GapReason::Unavailable);
    assert_eq!(gap(s.replay_after("arc1:other:0:1:s", Millis(0)).unwrap()), GapReason::Unavailable);
}

#[test]
fn rule_4_unknown_session_at_zero_replays_nothing_above_zero_is_unavailable() {
    let mut s = store(8, 1000);
    assert_eq!(
        positions(s.replay_after(&cursor(0, "ghost"), Millis(0)).unwrap()),
        Vec::<u64>::new()
    );
    assert_eq!(
        gap(s.replay_after(&cursor(1, "ghost"), Millis(0)).unwrap()),
        GapReason::Unavailable
    );
}

#[test]
fn rule_5_cursor_ahead_of_the_tail_is_unavailable() {
    let mut s = store(8, 1000);
    s.append("s", &ev(1), None, Millis(0)).unwrap();
    assert_eq!(gap(s.replay_after(&cursor(2, "s"), Millis(0)).unwrap()), GapReason::Unavailable);
}

#[test]
fn rule_6_empty_buffer_after_trimming() {
    let mut s = store(8, 100);
    s.append("s", &ev(1), None, Millis(0)).unwrap();
    s.append("s", &ev(2), None, Millis(0)).unwrap();
    // Everything ages out; the tail stays 2.
    assert_eq!(gap(s.replay_after(&cursor(1, "s"), Millis(500)).unwrap()), GapReason::Trimmed);
    assert_eq!(positions(s.replay_after(&cursor(2, "s"), Millis(500)).unwrap()), Vec::<u64>::new());
    assert_eq!(s.current_cursor("s", None), format!("arc1:{INC}:2:2:s"));
}

#[test]
fn rule_7_cursor_before_the_oldest_retained_is_trimmed() {
    let mut s = store(3, 1000);
    for t in 1..=5 {
        s.append("s", &ev(t), None, Millis(0)).unwrap();
    }
    // Retained: 3, 4, 5.
    assert_eq!(gap(s.replay_after(&cursor(0, "s"), Millis(0)).unwrap()), GapReason::Trimmed);
    assert_eq!(gap(s.replay_after(&cursor(1, "s"), Millis(0)).unwrap()), GapReason::Trimmed);
    assert_eq!(positions(s.replay_after(&cursor(2, "s"), Millis(0)).unwrap()), [3, 4, 5]);
}

#[test]
fn rule_8_replays_every_retained_event_after_the_cursor_in_order() {
    let mut s = store(8, 1000);
    for t in 1..=4 {
        s.append("s", &ev(t), None, Millis(0)).unwrap();
    }
    s.append("other", &ev(9), None, Millis(0)).unwrap();
    let Replay::Replayed(events) = s.replay_after(&cursor(1, "s"), Millis(0)).unwrap() else {
        panic!()
    };
    assert_eq!(
        events.iter().map(|e| (e.position, e.revision)).collect::<Vec<_>>(),
        [(Position(2), Revision(2)), (Position(3), Revision(3)), (Position(4), Revision(4))]
    );
    assert!(events.iter().all(|e| &*e.session_id == "s"), "sessions are isolated");
    assert_eq!(&*events[0].json, ev(2));
    let e = &events[2];
    let c = cursor::format_cursor(INC, e.revision, e.position, &e.session_id);
    assert_eq!(c, format!("arc1:{INC}:4:4:s"));
}

#[test]
fn age_trimming_is_strictly_greater_than_max_age() {
    let mut s = store(8, 1000);
    s.append("s", &ev(1), None, Millis(0)).unwrap();
    s.append("s", &ev(2), None, Millis(10)).unwrap();
    assert_eq!(
        positions(s.replay_after(&cursor(0, "s"), Millis(1000)).unwrap()),
        [1, 2],
        "exactly maxAgeMs old: kept"
    );
    assert_eq!(
        gap(s.replay_after(&cursor(0, "s"), Millis(1001)).unwrap()),
        GapReason::Trimmed,
        "1 ms older: trimmed"
    );
    assert_eq!(positions(s.replay_after(&cursor(1, "s"), Millis(1001)).unwrap()), [2]);
}

#[test]
fn capacity_one_keeps_only_the_newest() {
    let mut s = store(1, 1000);
    for t in 1..=3 {
        s.append("s", &ev(t), None, Millis(0)).unwrap();
    }
    assert_eq!(s.retained("s"), 1);
    assert_eq!(positions(s.replay_after(&cursor(2, "s"), Millis(0)).unwrap()), [3]);
    assert_eq!(gap(s.replay_after(&cursor(1, "s"), Millis(0)).unwrap()), GapReason::Trimmed);
}

#[test]
fn revision_is_given_or_the_largest_turn_so_far() {
    let mut s = store(8, 1000);
    assert_eq!(s.append("s", &ev(3), None, Millis(0)).unwrap().revision, Revision(3));
    assert_eq!(s.append("s", &ev(1), None, Millis(0)).unwrap().revision, Revision(3));
    assert_eq!(
        s.append("s", &ev(1), Some(Revision(40)), Millis(0)).unwrap().revision,
        Revision(40)
    );
    assert_eq!(s.current_cursor("s", None), format!("arc1:{INC}:40:3:s"));
    assert_eq!(s.current_cursor("s", Some(Revision(7))), format!("arc1:{INC}:7:3:s"));
    assert_eq!(s.current_cursor("new", None), format!("arc1:{INC}:0:0:new"));
    assert_eq!(
        s.append("s", r#"{"kind":"run_started","run_id":"r","goal":"g"}"#, None, Millis(0))
            .unwrap()
            .revision,
        Revision(3)
    );
}

#[test]
fn bad_appends_are_refused_and_change_nothing() {
    let mut s = store(8, 1000);
    assert_eq!(s.append("", &ev(1), None, Millis(0)), Err(AppendError::InvalidSessionId));
    assert_eq!(s.append("a\nb", &ev(1), None, Millis(0)), Err(AppendError::InvalidSessionId));
    assert_eq!(
        s.append("s", &ev(1), Some(Revision(1 << 53)), Millis(0)),
        Err(AppendError::InvalidRevision)
    );
    assert!(matches!(
        s.append("s", r#"{"kind":"page_in"}"#, None, Millis(0)),
        Err(AppendError::InvalidEvent(_))
    ));
    assert_eq!(s.current_cursor("s", None), format!("arc1:{INC}:0:0:s"));
    assert!(ReplayStore::new(StoreConfig::default(), "").is_err());
    assert!(ReplayStore::new(StoreConfig::default(), "has:colon").is_err());
    assert!(ReplayStore::new(
        StoreConfig { max_events_per_session: 0, max_age_ms: 1, ..Default::default() },
        "x"
    )
    .is_err());
}

#[test]
fn explicit_trim_applies_the_bounds_now() {
    let mut s = store(8, 100);
    s.append("s", &ev(1), None, Millis(0)).unwrap();
    s.trim_session("s", Millis(50));
    assert_eq!(s.retained("s"), 1);
    s.trim_session("s", Millis(101));
    assert_eq!(s.retained("s"), 0);
}

// ---- subscriptions -----------------------------------------------------------

fn next_event(sub: &Subscription) -> Option<u64> {
    match sub.try_next()? {
        SubscriptionItem::Event(e) => Some(e.position.0),
        SubscriptionItem::Lagged { .. } => panic!("unexpected lag"),
    }
}

fn subscribe(s: &mut ReplayStore, c: &str) -> Subscription {
    match s.subscribe(c, Millis(0)).unwrap() {
        SubscribeResult::Subscribed(sub) => sub,
        SubscribeResult::Gap(g) => panic!("gap {g:?}"),
    }
}

#[test]
fn subscription_yields_buffered_then_live_without_duplicates_or_misses() {
    let mut s = store(8, 1000);
    for t in 1..=3 {
        s.append("s", &ev(t), None, Millis(0)).unwrap();
    }
    let sub = subscribe(&mut s, &cursor(1, "s"));
    // Appended between subscribe and the first read.
    s.append("s", &ev(4), None, Millis(0)).unwrap();
    s.append("other", &ev(4), None, Millis(0)).unwrap();
    let got: Vec<u64> = std::iter::from_fn(|| next_event(&sub)).collect();
    assert_eq!(got, [2, 3, 4]);
    s.append("s", &ev(5), None, Millis(0)).unwrap();
    assert_eq!(next_event(&sub), Some(5));
    assert_eq!(next_event(&sub), None);
    assert!(!sub.is_ended());
}

#[test]
fn subscribing_with_a_gap_returns_the_gap() {
    let mut s = store(2, 1000);
    for t in 1..=4 {
        s.append("s", &ev(t), None, Millis(0)).unwrap();
    }
    assert!(matches!(
        s.subscribe(&cursor(0, "s"), Millis(0)).unwrap(),
        SubscribeResult::Gap(GapReason::Trimmed)
    ));
    assert!(matches!(
        s.subscribe(&cursor(9, "s"), Millis(0)).unwrap(),
        SubscribeResult::Gap(GapReason::Unavailable)
    ));
}

#[test]
fn a_slow_subscriber_lags_with_the_exact_count_and_a_working_resume_cursor() {
    let mut s = store(4, 1000);
    s.append("s", &ev(1), None, Millis(0)).unwrap();
    let sub = subscribe(&mut s, &cursor(0, "s"));
    assert_eq!(next_event(&sub), Some(1));
    for t in 2..=8 {
        s.append("s", &ev(t), None, Millis(0)).unwrap(); // 7 more; the queue holds 4
    }
    assert_eq!(sub.pending(), 4, "bounded by maxEventsPerSession");
    let Some(SubscriptionItem::Lagged { dropped, resume_cursor }) = sub.try_next() else {
        panic!()
    };
    assert_eq!(dropped, 3);
    assert_eq!(resume_cursor, format!("arc1:{INC}:1:1:s"), "the last delivered event");
    assert_eq!(std::iter::from_fn(|| next_event(&sub)).collect::<Vec<_>>(), [5, 6, 7, 8]);
    // The resume cursor works: here it is trimmed past (capacity 4), so a gap, said plainly.
    assert_eq!(gap(s.replay_after(&resume_cursor, Millis(0)).unwrap()), GapReason::Trimmed);
    // With room, the same cursor replays what the lagged consumer missed.
    let mut roomy = store(16, 1000);
    let sub = subscribe(&mut roomy, &cursor(0, "s"));
    for t in 1..=3 {
        roomy.append("s", &ev(t), None, Millis(0)).unwrap();
    }
    assert_eq!(next_event(&sub), Some(1));
    assert_eq!(
        positions(roomy.replay_after(&format!("arc1:{INC}:1:1:s"), Millis(0)).unwrap()),
        [2, 3]
    );
}

#[test]
fn a_subscriber_that_never_reads_stays_within_its_bound() {
    let mut s = store(64, u64::MAX);
    let sub = subscribe(&mut s, &cursor(0, "s"));
    for t in 0..10_000 {
        s.append("s", &ev(t), None, Millis(0)).unwrap();
    }
    assert_eq!(sub.pending(), 64);
    assert_eq!(s.retained("s"), 64);
}

#[test]
fn close_ends_a_subscription_and_the_store_forgets_it() {
    let mut s = store(8, 1000);
    let sub = subscribe(&mut s, &cursor(0, "s"));
    s.append("s", &ev(1), None, Millis(0)).unwrap();
    sub.close();
    assert!(sub.is_ended());
    assert_eq!(sub.try_next(), None);
    s.append("s", &ev(2), None, Millis(0)).unwrap();
    assert_eq!(sub.try_next(), None);
}

#[test]
fn dropping_the_store_ends_every_subscription() {
    let mut s = store(8, 1000);
    let a = subscribe(&mut s, &cursor(0, "s"));
    let b = subscribe(&mut s, &cursor(0, "t"));
    s.append("s", &ev(1), None, Millis(0)).unwrap();
    drop(s);
    assert_eq!(next_event(&a), Some(1), "what was delivered stays readable");
    assert!(a.is_ended());
    assert!(b.is_ended());
    assert_eq!(b.try_next(), None);
}

// ---- the session handle ------------------------------------------------------

/// The parts of a sent observation's state these tests look at.
#[derive(serde::Deserialize)]
struct SentState {
    event_count: u64,
}

fn state_of(observation: &SentObservation) -> SentState {
    serde_json::from_str(observation.state.get()).unwrap()
}

fn handle(max: usize, age: u64) -> ReplaySession {
    ReplaySession::new("sess:1", Rc::new(RefCell::new(store(max, age)))).unwrap()
}

fn sample_lines() -> Vec<&'static str> {
    common::sample_lines()
}

#[test]
fn resume_checks_the_cursor_before_the_store_is_asked() {
    let h = handle(8, 100);
    h.append(ev(1).as_bytes(), Millis(0), None).unwrap();
    let wrong = format!("arc1:{INC}:0:0:someone-else");
    assert!(matches!(h.resume(&wrong, Millis(10_000)), Err(CursorError::WrongSession { .. })));
    assert!(matches!(h.resume("garbage", Millis(10_000)), Err(CursorError::Malformed { .. })));
    assert!(matches!(h.subscribe(&wrong, Millis(10_000)), Err(CursorError::WrongSession { .. })));
    assert!(matches!(h.subscribe("garbage", Millis(10_000)), Err(CursorError::Malformed { .. })));
    // The store was not asked: a replay would have trimmed the aged event.
    assert_eq!(h.store().borrow().retained("sess:1"), 1);
}

#[test]
fn a_replayed_resume_applied_to_the_client_state_gives_the_observation() {
    let h = handle(4096, u64::MAX);
    let lines = sample_lines();
    let mut client = SessionState::new(Some("sess:1".into()));
    for line in &lines[..20] {
        let appended = h.append(line.as_bytes(), Millis(0), None).unwrap();
        client.apply_str(&appended[0].json, Default::default()).unwrap();
    }
    let client_cursor = h.observe().cursor;
    h.append(lines[20..].join("\n").as_bytes(), Millis(0), None).unwrap();
    let Resume::Replayed { events, cursor } = h.resume(&client_cursor, Millis(0)).unwrap() else {
        panic!()
    };
    assert_eq!(events.len(), lines.len() - 20);
    for e in &events {
        client.apply_str(&e.json, Default::default()).unwrap();
    }
    let observation = h.observe();
    assert_eq!(cursor, observation.cursor);
    assert_eq!(client.view(), &observation.state);
    assert_eq!(h.observe_sent().state.get(), agent_replay::json::to_js_json(client.view()));
    assert_eq!(observation.revision, Revision(7));
}

#[test]
fn a_trimmed_resume_returns_the_gap_with_the_observation() {
    let h = handle(2, u64::MAX);
    let first = h.observe().cursor;
    h.append(sample_lines().join("\n").as_bytes(), Millis(0), None).unwrap();
    let Resume::Gap { gap, observation } = h.resume(&first, Millis(0)).unwrap() else { panic!() };
    assert_eq!(gap.reason, GapReason::Trimmed);
    assert_eq!(gap.requested_cursor, first);
    assert_eq!(gap.latest_cursor, observation.cursor);
    assert_eq!(gap.latest_revision, observation.revision);
    assert_eq!(state_of(&observation).event_count, 78, "the state keeps what the buffer trimmed");
}

#[test]
fn session_append_is_all_or_nothing() {
    let h = handle(8, 1000);
    let bad = format!("{}\n{{\"kind\":\"page_in\"}}\n", ev(1));
    assert!(h.append(bad.as_bytes(), Millis(0), None).is_err());
    assert_eq!(h.observe().state.event_count, 0);
    assert_eq!(h.cursor(), format!("arc1:{INC}:0:0:sess:1"));
}

#[test]
fn session_subscription_recovers_from_gaps_and_lag_by_itself() {
    let h = handle(3, u64::MAX);
    let start = h.observe().cursor;
    for t in 1..=5 {
        h.append(ev(t).as_bytes(), Millis(0), None).unwrap();
    }
    // Trimmed past the cursor: the gap first, with the observation, then live.
    let mut sub = h.subscribe(&start, Millis(0)).unwrap();
    let Some(SessionItem::Gap { gap, observation }) = sub.try_next(Millis(0)) else { panic!() };
    assert_eq!(gap.latest_cursor, observation.cursor);
    assert_eq!(state_of(&observation).event_count, 5);
    h.append(ev(6).as_bytes(), Millis(0), None).unwrap();
    assert!(
        matches!(sub.try_next(Millis(0)), Some(SessionItem::Event(e)) if e.position == Position(6))
    );
    // Lag: 5 appends into a queue of 3. The queue keeps the newest 3 like
    // the store does, so what the consumer lost is gone from the store too:
    // the recovery is a gap with an observation that covers 7..=11, then live.
    for t in 7..=11 {
        h.append(ev(t).as_bytes(), Millis(0), None).unwrap();
    }
    let Some(SessionItem::Gap { gap, observation }) = sub.try_next(Millis(0)) else {
        panic!("expected a gap")
    };
    assert_eq!(
        gap.requested_cursor,
        format!("arc1:{INC}:6:6:sess:1"),
        "resumed from the last delivered event"
    );
    assert_eq!(state_of(&observation).event_count, 11);
    assert_eq!(sub.try_next(Millis(0)), None);
    h.append(ev(12).as_bytes(), Millis(0), None).unwrap();
    assert!(
        matches!(sub.try_next(Millis(0)), Some(SessionItem::Event(e)) if e.position == Position(12))
    );
}

#[test]
fn session_subscription_ends_when_closed() {
    let h = handle(8, u64::MAX);
    let mut sub = h.subscribe(&h.observe().cursor, Millis(0)).unwrap();
    assert_eq!(sub.try_next(Millis(0)), None, "nothing pending while nothing is appended");
    h.append(ev(1).as_bytes(), Millis(0), None).unwrap();
    assert!(
        matches!(sub.try_next(Millis(0)), Some(SessionItem::Event(e)) if e.position == Position(1))
    );
    sub.close();
    assert!(sub.is_ended());
    assert_eq!(sub.try_next(Millis(0)), None);
}
