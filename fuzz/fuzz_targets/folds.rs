//! Any bytes through every fold: the snapshot (both checks), the session
//! state and view, and their JSON, never panic. The view read back from
//! its JSON is the same view and folds on like the original; the same
//! bytes read as a view's JSON never panic either, and valid JSON stays
//! valid through the JS-safe rewrite.
#![no_main]
use agent_replay::json::to_js_json;
use agent_replay::log::LogOptions;
use agent_replay::snapshot::rebuild_os_snapshot_from_bytes;
use agent_replay::state::SessionState;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for full in [false, true] {
        if let Ok((snapshot, _)) = rebuild_os_snapshot_from_bytes(data, false, full) {
            let _ = snapshot.to_json();
        }
    }
    let mut state = SessionState::new(Some("fuzz".into()));
    let _ = state.apply_bytes(data, LogOptions::default());
    let view = to_js_json(state.view());
    let _ = to_js_json(state.os_snapshot());
    let restored = SessionState::from_view_json(&view).expect("a view reads back");
    assert_eq!(to_js_json(restored.view()), view);
    assert_eq!(to_js_json(restored.os_snapshot()), to_js_json(state.os_snapshot()));
    let light = state.checkpoint();
    assert_eq!(to_js_json(&light.summary()), to_js_json(&state.summary()));
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = SessionState::from_view_json(text);
        // The JS-safe rewrite keeps valid JSON valid.
        if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
            let safe = agent_replay::json::js_safe_text(text);
            assert!(
                serde_json::from_str::<serde::de::IgnoredAny>(&safe).is_ok(),
                "{text} -> {safe}"
            );
        }
    }
});
