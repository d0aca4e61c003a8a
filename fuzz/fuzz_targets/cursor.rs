//! Any text as a cursor: parsing never panics, and what parses formats
//! back to exactly the same text (one cursor per position).
#![no_main]
use agent_replay::live::SessionCursor;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(cursor) = SessionCursor::parse(text) {
        assert_eq!(cursor.to_string(), text);
        let _ =
            SessionCursor::parse_for_session(text, &cursor.session_id).expect("its own session");
    }
});
