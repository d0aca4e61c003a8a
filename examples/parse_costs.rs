use std::time::Instant;
use agent_replay::SessionEvent;
fn main() {
    let text = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for _ in 0..2 {
        let t = Instant::now();
        let ok = std::str::from_utf8(text.as_bytes()).is_ok();
        println!("utf8 validate: {:?} {ok}", t.elapsed());
        let t = Instant::now();
        let mut n = 0;
        for l in &lines { n += serde_json::from_str::<serde::de::IgnoredAny>(l).is_ok() as usize; }
        println!("IgnoredAny per line: {:?} {n}", t.elapsed());
        let t = Instant::now();
        let mut n = 0;
        for l in &lines { n += serde_json::from_str::<&serde_json::value::RawValue>(l).is_ok() as usize; }
        println!("RawValue per line: {:?} {n}", t.elapsed());
        let t = Instant::now();
        let mut n = 0;
        for l in &lines { n += SessionEvent::from_json(l).is_ok() as usize; }
        println!("full typed parse: {:?} {n}", t.elapsed());
        let t = Instant::now();
        let mut n = 0;
        for l in &lines { n += serde_json::from_str::<serde_json::Value>(l).is_ok() as usize; }
        println!("Value parse: {:?} {n}", t.elapsed());
    }
}
