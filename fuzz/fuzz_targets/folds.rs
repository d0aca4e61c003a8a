//! Any bytes through every fold: the snapshot (both checks), the session
//! state and view, and their JSON, never panic.
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
    let _ = to_js_json(state.view());
    let _ = to_js_json(state.os_snapshot());
});
