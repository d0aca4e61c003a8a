//! Writes a deterministic, realistic generated log to stdout:
//! `cargo run --release --example generate -- SEED BYTES > log.jsonl`.
use std::io::Write;

fn main() {
    let mut args = std::env::args().skip(1);
    let seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let bytes = args.next().and_then(|s| s.parse().ok()).unwrap_or(1 << 20);
    let log = agent_replay::generate::generate_jsonl(seed, bytes);
    if let Err(e) = std::io::stdout().write_all(log.as_bytes()) {
        eprintln!("generate: {e}");
        std::process::exit(1);
    }
}
