//! A live session written a log in chunks (`ReplaySession::write`): each
//! event read once, appended and folded; the same state, at the same
//! positions, as a `SessionState` written the same chunks.

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use agent_replay::json::to_json_exact;
use agent_replay::live::session::SessionAppendError;
use agent_replay::live::*;
use agent_replay::log::{LogErrorCode, LogOptions};
use agent_replay::state::SessionState;
use agent_replay::units::Millis;

fn session(max_event_bytes: usize) -> ReplaySession {
    let config = StoreConfig { max_event_bytes, ..Default::default() };
    let store = Rc::new(RefCell::new(ReplayStore::new(config, "inc").unwrap()));
    ReplaySession::new("s1", store).unwrap()
}

/// The sample as stored entries, with a bad line and a seq gap among them.
fn stored_log() -> String {
    let mut out = String::new();
    for (i, line) in common::sample_lines().iter().enumerate() {
        let seq = if i < 10 { i } else { i + 1 };
        out.push_str(&format!("{{\"seq\":{seq},\"event\":{line}}}\n"));
        if i == 5 {
            out.push_str("not an entry\n");
        }
    }
    out
}

#[test]
fn a_log_written_in_chunks_is_appended_and_folded_as_a_state_folds_it() {
    let log = stored_log();
    let live = session(1 << 20);
    let mut state = SessionState::new(Some("s1".into()));
    let mut appended = 0;
    for chunk in log.as_bytes().chunks(97) {
        appended += live.write(chunk, Millis(1)).unwrap();
        state.write(chunk, LogOptions::default()).unwrap();
    }
    appended += live.end(Millis(1)).unwrap();
    state.end().unwrap();
    let lines = common::sample_lines().len();
    assert_eq!(appended, lines);
    let view = live.observe().state;
    assert_eq!(to_json_exact(&view), to_json_exact(state.view()));
    let codes: Vec<_> = view.load_errors.iter().map(|e| e.code).collect();
    assert_eq!(codes, [LogErrorCode::InvalidJson, LogErrorCode::SeqGap]);
    // Positions count the events, as a viewer reading the file counts them.
    assert_eq!(SessionCursor::parse(&live.cursor()).unwrap().position.0, lines as u64);
}

#[test]
fn an_event_the_store_refuses_stops_the_log_there() {
    let small = r#"{"kind":"page_in","turn":1,"entry_count":1}"#;
    let large =
        format!(r#"{{"kind":"page_in","turn":2,"entry_count":1,"pad":"{}"}}"#, "x".repeat(200));
    let live = session(150);
    let log = format!("{small}\n{large}\n{small}\n");
    let err = live.write(log.as_bytes(), Millis(1)).unwrap_err();
    assert!(matches!(err, SessionAppendError::Store(AppendError::EventTooLarge(_))), "{err:?}");
    // The store and the state hold the same events: the first only.
    assert_eq!(live.observe().state.event_count, 1);
    assert_eq!(SessionCursor::parse(&live.cursor()).unwrap().position.0, 1);
    assert!(matches!(live.write(small.as_bytes(), Millis(1)), Err(SessionAppendError::Store(_))));
    assert!(matches!(live.end(Millis(1)), Err(SessionAppendError::Store(_))));
}
