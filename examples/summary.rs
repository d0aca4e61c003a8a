//! Prints the OS snapshot and the view of a log file (or the sample).
fn main() {
    let text = match std::env::args().nth(1) {
        Some(path) => std::fs::read_to_string(path).expect("read"),
        None => agent_replay::generate::SAMPLE_JSONL.to_string(),
    };
    let mut state = agent_replay::state::SessionState::new(None);
    let report = state.apply_str(&text, Default::default()).expect("load");
    println!("{:?} errors={:?}", report.framing, report.errors);
    println!("{}", state.os_snapshot().to_json());
    println!("{}", agent_replay::json::to_js_json(state.view()));
}
