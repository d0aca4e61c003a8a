use std::time::Instant;
fn main() {
    let bytes = std::fs::read(std::env::args().nth(1).unwrap()).unwrap();
    for _ in 0..2 {
        let t = Instant::now();
        let mut s = agent_replay::state::SessionState::new(None);
        s.apply_bytes(&bytes, Default::default()).unwrap();
        let a = t.elapsed();
        let t = Instant::now();
        let j = agent_replay::json::to_js_json(s.view());
        println!("apply {:?} view json {:?} ({} MB)", a, t.elapsed(), j.len() / 1_000_000);
    }
}
