//! Helpers shared by the native tests.
#![allow(dead_code)]

use agent_replay::log::{self, LoadReport, LogError, LogOptions};
use agent_replay::SessionEvent;

/// Loads a log and returns the original texts of its events with the report.
pub fn load(text: &str, strict: bool) -> Result<(Vec<String>, LoadReport), LogError> {
    let mut texts = Vec::new();
    let report = log::read_str(
        text,
        LogOptions { strict, ..Default::default() },
        &mut |t: &str, _e: &SessionEvent<'_>| texts.push(t.to_string()),
    )?;
    Ok((texts, report))
}

/// Same from bytes.
pub fn load_bytes(bytes: &[u8], strict: bool) -> Result<(Vec<String>, LoadReport), LogError> {
    let mut texts = Vec::new();
    let report = log::read_bytes(
        bytes,
        LogOptions { strict, ..Default::default() },
        &mut |t: &str, _e: &SessionEvent<'_>| texts.push(t.to_string()),
    )?;
    Ok((texts, report))
}

pub fn sample_lines() -> Vec<&'static str> {
    agent_replay::generate::SAMPLE_JSONL.lines().collect()
}

/// A small deterministic PRNG for property tests.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}
