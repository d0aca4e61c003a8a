//! The paged index's deferred check (`SessionIndex::deferring`, issue 28):
//! a deferred load, once its check has run, has the eager load's errors
//! (line, column, field, code, message, in order), events, state and
//! turns, on hostile and mutated logs, whole or in chunks; strict loads
//! never defer; an invalid event read before the check reaches it is
//! refused on read.

mod common;

use agent_replay::generate::{generate_jsonl, SAMPLE_JSONL};
use agent_replay::index::SessionIndex;
use agent_replay::json::to_js_json;
use agent_replay::log::{LogError, LogOptions};
use common::Rng;

const TOLERANT: LogOptions = LogOptions { strict: false, only: None, defer_check: false };
const STRICT: LogOptions = LogOptions { strict: true, only: None, defer_check: false };

/// What a finished index shows: its load errors, events and state.
#[derive(Debug, PartialEq)]
struct Seen {
    errors: Vec<LogError>,
    events: Vec<(u64, String, Option<u32>, String)>,
    summary: String,
    os: String,
    turns: String,
    series: Vec<f64>,
    states: Vec<String>,
    transcript: String,
}

fn seen(index: &SessionIndex) -> Seen {
    let count = index.event_count();
    let events = index
        .events(1, count)
        .map(|e| (e.position, e.kind.to_string(), e.turn, e.text.to_string()))
        .collect();
    let at = [0, 1, count / 3, count / 2, count.saturating_sub(1), count];
    let states = at
        .iter()
        .map(|&p| {
            let s = index.state_at(p);
            format!("{}{}", to_js_json(&s.summary()), to_js_json(s.os_snapshot()))
        })
        .collect();
    Seen {
        errors: index.load_errors().clone(),
        events,
        summary: to_js_json(&index.state().summary()),
        os: to_js_json(index.state().os_snapshot()),
        turns: to_js_json(&index.turns()),
        series: index.turn_series(),
        states,
        transcript: to_js_json(&index.transcript(1, count, 50)),
    }
}

fn eager(log: &[u8], opts: LogOptions) -> SessionIndex {
    let mut index = SessionIndex::new(None);
    let _ = index.apply_log(log.to_vec(), opts);
    index
}

fn deferred(log: &[u8], opts: LogOptions) -> SessionIndex {
    let mut index = SessionIndex::new(None).deferring(true);
    let _ = index.apply_log(log.to_vec(), opts);
    index
}

/// Written in chunks of `size` bytes, then ended.
fn written(log: &[u8], size: usize, defer: bool, opts: LogOptions) -> SessionIndex {
    let mut index = SessionIndex::new(None).deferring(defer);
    for chunk in log.chunks(size) {
        if index.write(chunk.to_vec(), opts).is_err() {
            return index;
        }
    }
    let _ = index.end();
    index
}

/// Whether the check of events of this kind is deferred.
fn deferred_kind(kind: Option<&str>) -> bool {
    matches!(kind, Some("entropy_sample" | "entropy_alert" | "checkpoint_taken"))
}

/// Runs the check to its end in steps of `budget`; the steps taken.
fn check(index: &mut SessionIndex, budget: usize) -> usize {
    let mut steps = 0;
    loop {
        steps += 1;
        let progress = index.check_step(budget);
        if progress.done {
            assert_eq!(progress.checked_to, index.event_count());
            return steps;
        }
        assert!(steps < 1_000_000, "the check ends");
    }
}

/// Lines of the deferred kinds made invalid in each way their fields'
/// types can be, around valid ones, as JSON Lines and as stored entries.
fn hostile_lines() -> Vec<String> {
    let bad = [
        r#"{"kind":"entropy_sample","turn":3,"score":"high","rho":0,"repeat_pressure":0,"failure_rate":0,"rollbacks_in_window":0,"window_turns":1}"#,
        r#"{"kind":"entropy_sample","turn":3,"score":0.5}"#,
        r#"{"kind":"entropy_sample","turn":3,"score":0.5,"score":0.5,"rho":0,"repeat_pressure":0,"failure_rate":0,"rollbacks_in_window":0,"window_turns":1}"#,
        r#"{"kind":"entropy_sample","turn":3,"note":"é—ü","score":0.5,"rho":0,"repeat_pressure":0,"failure_rate":0,"rollbacks_in_window":-1,"window_turns":1}"#,
        r#"  {"turn":2,"kind":"checkpoint_taken","history_len":{"a":[1,2]}}"#,
        r#"{"turn":2,"history_len":4,"kind":"checkpoint_taken","extra":[{"kind":"x"}],"history_len":5}"#,
        r#"{"kind":"checkpoint_taken","turn":2}"#,
        r#"{"kind":"entropy_alert","turn":4,"score":1,"threshold":null}"#,
        r#"{"kind":"entropy_alert","turn":4,"score":1,"threshold":true}"#,
    ];
    let good = [
        r#"{"kind":"entropy_sample","turn":3,"score":0.5,"rho":0,"repeat_pressure":0,"failure_rate":0,"rollbacks_in_window":0,"window_turns":1}"#,
        r#"{"kind":"checkpoint_taken","turn":2,"history_len":8}"#,
        r#"{"kind":"entropy_alert","turn":4,"score":1,"threshold":0.5}"#,
    ];
    let sample: Vec<&str> = SAMPLE_JSONL.lines().collect();
    let mut lines = Vec::new();
    for (i, b) in bad.iter().enumerate() {
        lines.push(sample[i % sample.len()].to_string());
        lines.push(b.to_string());
        lines.push(good[i % good.len()].to_string());
        lines.push(r#"{"kind":"tool_completed","turn":"x"}"#.to_string());
    }
    lines
}

fn jsonl(lines: &[String]) -> Vec<u8> {
    let mut log = lines.join("\n");
    log.push('\n');
    log.into_bytes()
}

fn stored(lines: &[String]) -> Vec<u8> {
    let entries: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| format!(r#"{{"seq":{},"event":{}}}"#, (i + 1) * (1 + i % 7 / 6), l.trim()))
        .collect();
    jsonl(&entries)
}

/// A line with one byte changed, removed or added.
fn mutate(line: &str, rng: &mut Rng) -> String {
    let mut b = line.as_bytes().to_vec();
    let at = rng.below(b.len() as u64 + 1) as usize;
    match rng.below(3) {
        0 if at < b.len() => {
            b.remove(at);
        }
        1 if at < b.len() => b[at] = b"\"{}[],:0-.aenrtu \\"[rng.below(18) as usize],
        _ => b.insert(at, b"\"{}[],:0-.9e"[rng.below(12) as usize]),
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// The logs the tests read: hostile lines, the generated log with some of
/// its lines mutated, and the corpus.
fn logs() -> Vec<(String, Vec<u8>)> {
    let hostile = hostile_lines();
    let mut logs = vec![
        ("hostile".to_string(), jsonl(&hostile)),
        ("hostile entries".to_string(), stored(&hostile)),
        ("hostile unterminated".to_string(), hostile.join("\r\n").into_bytes()),
        ("hostile, not all UTF-8".to_string(), {
            let mut log = jsonl(&hostile);
            log.extend_from_slice(b"{\"kind\":\"entropy_alert\",\"turn\":1,\"x\":\"\xff\"}\n");
            log.extend_from_slice(&jsonl(&hostile));
            log
        }),
    ];
    let mut rng = Rng(0x5eed);
    for seed in 0..6 {
        let generated = generate_jsonl(seed, 60_000);
        let mutated: Vec<String> = generated
            .lines()
            .map(|l| if rng.below(8) == 0 { mutate(l, &mut rng) } else { l.to_string() })
            .collect();
        logs.push((format!("mutated {seed}"), jsonl(&mutated)));
        if seed == 0 {
            logs.push(("mutated entries".to_string(), stored(&mutated)));
            logs.push(("generated".to_string(), generated.into_bytes()));
        }
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/deepstrike-0.2.77");
    let mut corpus: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    corpus.sort();
    for path in corpus.iter().filter(|p| p.extension().is_some_and(|e| e == "jsonl")) {
        logs.push((path.display().to_string(), std::fs::read(path).unwrap()));
    }
    logs
}

#[test]
fn after_the_check_a_deferred_load_is_the_eager_load() {
    let mut with_errors = 0;
    for (name, log) in logs() {
        let want = seen(&eager(&log, TOLERANT));
        with_errors += want.errors.iter().filter(|e| deferred_kind(e.kind.as_deref())).count();
        let mut whole = deferred(&log, TOLERANT);
        check(&mut whole, 7);
        assert_eq!(seen(&whole), want, "{name}: whole");
        let mut bytes = SessionIndex::new(None).deferring(true);
        let _ = bytes.apply_bytes(&log, TOLERANT);
        check(&mut bytes, 1 << 20);
        assert_eq!(seen(&bytes), want, "{name}: bytes");
        for size in [1 + log.len() / 5, 4096, 97] {
            let mut chunked = written(&log, size, true, TOLERANT);
            check(&mut chunked, 1000);
            assert_eq!(seen(&chunked), want, "{name}: chunks of {size}");
            assert_eq!(seen(&written(&log, size, false, TOLERANT)), want, "{name}: eager chunks");
        }
    }
    assert!(with_errors >= 20, "the logs hold invalid events of deferred kinds: {with_errors}");
}

#[test]
fn the_check_finds_what_the_write_did_not() {
    let log = jsonl(&hostile_lines());
    let want = eager(&log, TOLERANT);
    let mut index = deferred(&log, TOLERANT);
    let before = index.check_progress();
    assert!(!before.done);
    assert!(index.load_errors().len() < want.load_errors().len(), "errors deferred");
    assert!(index.event_count() > want.event_count(), "invalid events navigable until checked");
    let steps = check(&mut index, 1);
    assert!(steps > 5, "one event a step: {steps}");
    assert_eq!(index.load_errors(), want.load_errors());
    let fields: Vec<_> = index.load_errors().iter().filter_map(|e| e.field.as_deref()).collect();
    for field in ["score", "rho", "history_len", "rollbacks_in_window", "threshold"] {
        assert!(fields.contains(&field), "{field} in {fields:?}");
    }
}

#[test]
fn an_invalid_event_read_before_the_check_is_refused() {
    let lines = hostile_lines();
    let log = jsonl(&lines);
    let want = eager(&log, TOLERANT);
    let valid: Vec<String> = want.events(1, u64::MAX).map(|e| e.text.to_string()).collect();
    // Read each way, each on an index whose check has not started, with a
    // checkpoint after each event (one after an invalid event folded it).
    let fresh = || {
        let mut index = SessionIndex::with_checkpoints(None, 1, 1 << 20).deferring(true);
        index.apply_log(log.clone(), TOLERANT).unwrap();
        index
    };
    let count = fresh().event_count();
    let mut refused = 0;
    for p in 1..=count {
        let index = fresh();
        match index.event(p) {
            Some(e) => assert!(valid.contains(&e.text.to_string()), "{}", e.text),
            None => refused += 1,
        }
    }
    assert_eq!(refused, count - want.event_count());
    let state = |s: agent_replay::state::SessionState| to_js_json(&s.summary());
    let mut invalid_before = 0;
    for p in 1..=count {
        let index = fresh();
        let got = state(index.state_at(p));
        invalid_before += u64::from(index.event(p).is_none());
        assert_eq!(got, state(want.state_at(p - invalid_before)), "state_at({p})");
    }
    let texts = |index: &SessionIndex| -> Vec<String> {
        index.events(1, u64::MAX).map(|e| e.text.to_string()).collect()
    };
    assert_eq!(texts(&fresh()), valid, "events");
    let index = fresh();
    let all: Vec<u32> = (1..=count as u32).collect();
    let at: Vec<String> = index.events_at(&all).map(|e| e.text.to_string()).collect();
    assert_eq!(at, valid, "events_at");
    assert_eq!(state(fresh().state_at(count)), state(want.state_at(want.event_count())));
    let transcript = |i: &SessionIndex, to| to_js_json(&i.transcript(1, to, 100));
    assert_eq!(transcript(&fresh(), count), transcript(&want, want.event_count()));
    // Read before the check, then checked: the eager load's.
    let mut index = fresh();
    assert_eq!(texts(&index), valid);
    check(&mut index, 3);
    assert_eq!(seen(&index), seen(&want));
}

#[test]
fn strict_loads_never_defer() {
    for (name, log) in logs() {
        let want = seen(&eager(&log, STRICT));
        let index = deferred(&log, STRICT);
        assert!(index.check_progress().done, "{name}");
        assert_eq!(seen(&index), want, "{name}");
        let chunked = written(&log, 4096, true, STRICT);
        assert_eq!(seen(&chunked), seen(&written(&log, 4096, false, STRICT)), "{name}");
        let mut strict_first = SessionIndex::new(None).deferring(true);
        assert_eq!(
            strict_first.apply_log(log.clone(), STRICT).map(|r| r.errors),
            SessionIndex::new(None).apply_log(log.clone(), STRICT).map(|r| r.errors),
            "{name}"
        );
    }
}

#[test]
fn without_the_option_nothing_is_deferred() {
    let log = jsonl(&hostile_lines());
    let mut index = eager(&log, TOLERANT);
    assert_eq!(index.check_progress(), index.check_step(0));
    assert!(index.check_progress().done);
    let deferring = SessionIndex::new(None).deferring(true);
    assert!(deferring.check_progress().done, "nothing written: nothing to check");
}

#[test]
fn checks_and_reads_between_the_writes_change_nothing() {
    let mut rng = Rng(77);
    for (name, log) in logs().into_iter().filter(|(n, _)| !n.contains("corpus")) {
        let want = seen(&eager(&log, TOLERANT));
        let mut index = SessionIndex::with_checkpoints(None, 4, 64).deferring(true);
        let mut at = 0;
        while at < log.len() {
            let size = 1 + rng.below(log.len() as u64 / 8 + 2) as usize;
            let end = (at + size).min(log.len());
            index.write(log[at..end].to_vec(), TOLERANT).unwrap();
            at = end;
            // A step of the check, or a read that checks ahead of it.
            let p = rng.below(index.event_count() + 2);
            match rng.below(5) {
                0 => drop(index.check_step(rng.below(50) as usize)),
                1 => drop(index.event(p)),
                2 => drop(index.state_at(p)),
                3 => drop(index.transcript(p / 2, p, 10)),
                _ => drop(index.events(p, p + 20).count()),
            }
            let progress = index.check_progress();
            assert!(!progress.done && progress.checked_to <= index.event_count(), "{name}");
        }
        index.end().unwrap();
        check(&mut index, 5);
        assert_eq!(seen(&index), want, "{name}");
    }
}
