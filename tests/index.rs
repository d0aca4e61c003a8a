//! The paged index (`agent_replay::index`): its pages, state at a position,
//! filters and search agree with the full view and with a plain scan of
//! the log, on a generated log long enough for the checkpoints to thin out
//! and on the real-runtime corpus.

use agent_replay::event::SessionEvent;
use agent_replay::generate::generate_jsonl;
use agent_replay::index::{Filter, SessionIndex};
use agent_replay::json::to_js_json;
use agent_replay::log::LogOptions;
use agent_replay::state::SessionState;

fn index_of(log: &str) -> SessionIndex {
    let mut index = SessionIndex::new(None);
    index.apply_bytes(log.as_bytes(), LogOptions::default()).unwrap();
    index
}

fn lines(log: &str) -> Vec<&str> {
    log.lines().filter(|l| !l.trim().is_empty()).collect()
}

/// The summary and OS snapshot of a state, as JSON, to compare states.
fn seen(state: &SessionState) -> (String, String) {
    (to_js_json(&state.summary()), to_js_json(state.os_snapshot()))
}

#[test]
fn pages_give_each_event_as_written_with_its_kind_and_turn() {
    let log = generate_jsonl(7, 400_000);
    let index = index_of(&log);
    let lines = lines(&log);
    assert_eq!(index.event_count(), lines.len() as u64);
    let page: Vec<_> = index.events(1, 50).collect();
    assert_eq!(page.len(), 50);
    for e in &page {
        let line = lines[e.position as usize - 1];
        assert_eq!(e.text, line);
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(e.kind, value["kind"].as_str().unwrap());
        assert_eq!(e.turn.map(u64::from), value["turn"].as_u64());
    }
    assert_eq!(index.events(lines.len() as u64 - 1, u64::MAX).count(), 2, "clamped to the log");
    assert!(index.event(0).is_none());
    assert!(index.event(lines.len() as u64 + 1).is_none());
}

#[test]
fn the_state_at_any_position_is_the_fold_of_the_events_before_it() {
    let log = generate_jsonl(11, 1_000_000);
    let mut index = SessionIndex::with_checkpoints(None, 16, 8);
    index.apply_bytes(log.as_bytes(), LogOptions::default()).unwrap();
    let lines = lines(&log);
    let (_, kept, spacing) = index.memory_stats();
    assert!(spacing >= 256, "a long log thins its checkpoints (spacing {spacing})");
    assert!(kept <= 8);
    let mut full = SessionState::new(None);
    let mut checked = 0;
    for (i, line) in lines.iter().enumerate() {
        let position = i as u64;
        if position % 997 == 0 || position % spacing == 0 || position % spacing == spacing - 1 {
            assert_eq!(seen(&index.state_at(position)), seen(&full), "at {position}");
            checked += 1;
        }
        full.apply_json(line).unwrap();
    }
    let end = lines.len() as u64;
    assert_eq!(seen(&index.state_at(end)), seen(&full));
    assert_eq!(seen(index.state()), seen(&full), "the index's own state is the whole fold");
    assert_eq!(index.turns(), full.view().turns.as_slice(), "and its turns the view's");
    assert!(checked > 10, "checked at {checked} positions");
    // Steps in any order: back, forward within a checkpoint's span (from
    // the state given last), across checkpoints, to the same position.
    let mut states = vec![SessionState::new(None)];
    for line in &lines {
        let mut next = states.last().unwrap().checkpoint();
        next.apply_json(line).unwrap();
        states.push(next);
    }
    let mut at = end / 2;
    for step in [0, 1, 5, 0, spacing - 3, 2 * spacing + 7, 40] {
        at = (at + step) % (end + 1);
        assert_eq!(seen(&index.state_at(at)), seen(&states[at as usize]), "forward to {at}");
        let back = at.saturating_sub(step + 3);
        assert_eq!(seen(&index.state_at(back)), seen(&states[back as usize]), "back to {back}");
        assert_eq!(seen(&index.state_at(at)), seen(&states[at as usize]), "again at {at}");
    }
}

#[test]
fn chunks_of_any_size_index_as_the_whole_log() {
    let log = generate_jsonl(3, 200_000);
    let whole = index_of(&log);
    for size in [1, 7, 4096] {
        let mut chunked = SessionIndex::new(None);
        for chunk in log.as_bytes().chunks(size) {
            chunked.write(chunk.to_vec(), LogOptions::default()).unwrap();
        }
        chunked.end().unwrap();
        assert_eq!(chunked.event_count(), whole.event_count());
        assert!(chunked.events(1, u64::MAX).eq(whole.events(1, u64::MAX)), "chunks of {size}");
        assert_eq!(seen(chunked.state()), seen(whole.state()));
    }
}

/// Everything the index answers for a log: its events, state, load
/// errors, searches and filters (queries that also occur between events
/// in some framings).
fn answers(index: &SessionIndex) -> Vec<String> {
    let mut out = vec![
        format!("{:?}", index.events(1, u64::MAX).collect::<Vec<_>>()),
        format!("{:?}", seen(index.state())),
        format!("{:?}", index.load_errors()),
        format!("{:?}", seen(&index.state_at(index.event_count() / 2))),
    ];
    for query in ["seq", "\"event\":{", "},", "}\n", "]", "\"kind\"", "tool_gated", "\r"] {
        out.push(format!("{query:?}: {:?}", index.search(query, 1, usize::MAX)));
        let filter = Filter { query: Some(query.into()), ..Default::default() };
        out.push(format!("{query:?}: {:?}", index.filter(&filter)));
    }
    out
}

#[test]
fn a_log_handed_over_is_indexed_as_one_copied_in_every_framing() {
    let log = generate_jsonl(4, 100_000);
    let lines = lines(&log);
    let entries: Vec<String> =
        lines.iter().enumerate().map(|(i, l)| format!("{{\"seq\":{i},\"event\":{l}}}")).collect();
    let mut broken = log.clone().into_bytes();
    broken.splice(5_000..5_000, [0xff, 0xfe]);
    let logs: Vec<Vec<u8>> = vec![
        log.clone().into_bytes(),
        format!("\u{feff}  {}\r\n\n{}", lines[0], lines[1..].join("\r\n")).into_bytes(),
        format!("[{}]", lines.join(",\n")).into_bytes(),
        entries.join("\n").into_bytes(),
        format!("[{}]", entries.join(",")).into_bytes(),
        format!("{}\n{{\"kind\":\"tool_gated\",\"turn\":\"x\"}}\n", lines.join("\n")).into_bytes(),
        broken,
    ];
    for (n, bytes) in logs.into_iter().enumerate() {
        let mut copied = SessionIndex::new(None);
        copied.apply_bytes(&bytes, LogOptions::default()).unwrap();
        let mut handed = SessionIndex::new(None);
        handed.apply_log(bytes, LogOptions::default()).unwrap();
        assert!(handed.event_count() > 100, "log {n}");
        assert_eq!(answers(&handed), answers(&copied), "log {n}");
    }
    // Strict: the events before the first error stay readable.
    let mut strict = SessionIndex::new(None);
    let bad = format!("{}\n{{\"kind\":7}}\n{}", lines[0], lines[1]);
    assert!(strict
        .apply_log(bad.into_bytes(), LogOptions { strict: true, ..Default::default() })
        .is_err());
    assert_eq!(strict.event(1).map(|e| e.text), Some(lines[0]));
}

/// A chunk of a log written in pieces is kept as it is (no second copy of
/// its texts), only the events straddling two chunks copied: whatever the
/// cut, in the middle of a UTF-8 character too, in every framing and with
/// bytes that are not UTF-8, the index answers as the whole log's.
#[test]
fn chunks_kept_as_they_are_index_as_the_whole_log_however_cut() {
    let log = generate_jsonl(6, 60_000);
    let lines = lines(&log);
    // Characters of two, three and four bytes, so cuts fall inside them.
    let wide: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| match i % 3 {
            0 => l.replacen("\"kind\"", "\"note\":\"é€😀 ü\",\"kind\"", 1),
            _ => l.to_string(),
        })
        .collect();
    let entries: Vec<String> =
        wide.iter().enumerate().map(|(i, l)| format!("{{\"seq\":{i},\"event\":{l}}}")).collect();
    let mut broken = wide.join("\n").into_bytes();
    broken.splice(5_000..5_000, [0xff, 0xfe]);
    let logs: Vec<Vec<u8>> = vec![
        wide.join("\n").into_bytes(),
        format!("{}\n", wide.join("\n")).into_bytes(),
        format!("\u{feff}  {}\r\n\n{}", wide[0], wide[1..].join("\r\n")).into_bytes(),
        format!("[{}]", wide.join(",\n")).into_bytes(),
        entries.join("\n").into_bytes(),
        broken,
    ];
    for (n, bytes) in logs.into_iter().enumerate() {
        let mut whole = SessionIndex::new(None);
        whole.apply_bytes(&bytes, LogOptions::default()).unwrap();
        assert!(whole.event_count() > 50, "log {n}");
        let mut expected = answers(&whole);
        expected.push(format!("{:?}", whole.search("😀 ü", 1, usize::MAX)));
        for size in [1, 2, 3, 5, 333, 1_001, 4_099, bytes.len()] {
            let mut chunked = SessionIndex::new(None);
            for chunk in bytes.chunks(size) {
                chunked.write(chunk.to_vec(), LogOptions::default()).unwrap();
            }
            chunked.end().unwrap();
            let mut got = answers(&chunked);
            got.push(format!("{:?}", chunked.search("😀 ü", 1, usize::MAX)));
            assert_eq!(got, expected, "log {n} in chunks of {size}");
        }
    }
    // Strict: the events before the first error, read in place from the
    // chunk that holds it, stay readable.
    let known = |l: &&String| {
        SessionEvent::from_json_strict(l).is_ok_and(|e| !matches!(e, SessionEvent::Unknown(_)))
    };
    let valid: Vec<&String> = wide.iter().filter(known).take(3).collect();
    let bad = format!("{}\n{}\n{{\"kind\":7}}\n{}\n", valid[0], valid[1], valid[2]);
    let mut strict = SessionIndex::new(None);
    let opts = LogOptions { strict: true, ..Default::default() };
    strict.write(bad.as_bytes()[..3].to_vec(), opts).unwrap();
    assert!(strict.write(bad.as_bytes()[3..].to_vec(), opts).is_err());
    assert_eq!(strict.event(2).map(|e| e.text), Some(valid[1].as_str()));
    assert_eq!(strict.event_count(), 2);
}

#[test]
fn a_log_written_in_chunks_is_held_about_once() {
    let log = generate_jsonl(8, 2_000_000);
    let mut chunked = SessionIndex::new(None);
    for chunk in log.as_bytes().chunks(64 << 10) {
        chunked.write(chunk.to_vec(), LogOptions::default()).unwrap();
    }
    chunked.end().unwrap();
    let (retained, _, _) = chunked.memory_stats();
    // The chunks, and a copy of each event straddling two of them.
    assert!(retained >= log.len(), "{retained} bytes retained");
    assert!(retained < log.len() + log.len() / 16, "{retained} bytes for a log of {}", log.len());
    assert_eq!(chunked.event_count(), lines(&log).len() as u64);
}

/// The positions a plain scan finds: ASCII letters in either case.
fn scan(lines: &[&str], query: &str) -> Vec<u64> {
    let query = query.to_ascii_lowercase();
    let hits = lines.iter().enumerate().filter(|(_, l)| l.to_ascii_lowercase().contains(&query));
    hits.map(|(i, _)| i as u64 + 1).collect()
}

#[test]
fn search_pages_and_filters_find_what_a_plain_scan_finds() {
    let log = generate_jsonl(5, 2_000_000);
    let index = index_of(&log);
    let lines = lines(&log);
    // "KIND" is in every event: the first and last of each segment too.
    for query in ["TOOL_GATED", "\"turn\":3,", "budget", "}\n{", "KIND", "\n", "no such text"] {
        let mut found = Vec::new();
        let mut from = Some(1);
        while let Some(at) = from {
            let (page, next) = index.search(query, at, 100);
            assert!(page.len() <= 100);
            found.extend(page);
            from = next;
        }
        assert_eq!(found, scan(&lines, query), "{query:?}");
        let filter = Filter { query: Some(query.into()), ..Filter::default() };
        assert_eq!(index.filter(&filter), found, "{query:?}");
    }
    assert_eq!(index.search("", 1, 10), (vec![], None));
}

/// A log whose messages hold letters beyond ASCII, one event each.
fn unicode_log(texts: &[&str]) -> String {
    let line = |(turn, text): (usize, &&str)| {
        format!(
            "{{\"kind\":\"llm_completed\",\"turn\":{},\"message\":{{\"role\":\"assistant\",\
             \"content\":\"{text}\"}}}}\n",
            turn + 1
        )
    };
    texts.iter().enumerate().map(line).collect()
}

#[test]
fn search_matches_letters_beyond_ascii_in_either_case_as_a_js_regexp_does() {
    let log = unicode_log(&[
        "kein ärger",
        "KEIN ÄRGER",
        "die straße",
        "DIE STRASSE",
        "ὈΔΥΣΣΕΎΣ",
        "ὀδυσσεύς",
        "ſ",
        "x",
    ]);
    let index = index_of(&log);
    assert_eq!(index.event_count(), 8);
    let found = |query: &str| index.search(query, 1, 100).0;
    assert_eq!(found("Ärger"), [1, 2]);
    assert_eq!(found("ärger"), [1, 2]);
    assert_eq!(found("Straße"), [3], "ß is not SS");
    assert_eq!(found("strasse"), [4]);
    assert_eq!(found("οδυσσευσ"), [] as [u64; 0], "accents are letters of their own");
    assert_eq!(found("δυσσεύς"), [5, 6], "σ, ς and Σ are one letter");
    assert_eq!(found("\"S\""), [] as [u64; 0], "ſ is not s");
    let filter = Filter { query: Some("ÄRGER".into()), ..Filter::default() };
    assert_eq!(index.filter(&filter), [1, 2]);
}

#[test]
fn filters_keep_what_the_viewer_asks_for() {
    let log = generate_jsonl(9, 500_000);
    let index = index_of(&log);
    let lines = lines(&log);
    let kind_of = |i: usize| -> String {
        let v: serde_json::Value = serde_json::from_str(lines[i]).unwrap();
        v["kind"].as_str().unwrap().to_string()
    };
    let kinds = Filter { kinds: Some(vec!["tool_gated".into()]), ..Filter::default() };
    let expect: Vec<u64> =
        (0..lines.len()).filter(|&i| kind_of(i) == "tool_gated").map(|i| i as u64 + 1).collect();
    assert!(!expect.is_empty());
    assert_eq!(index.filter(&kinds), expect);
    let gated_with_turn = Filter {
        kinds: Some(vec!["tool_gated".into()]),
        query: Some("TURN".into()),
        ..Filter::default()
    };
    let expect: Vec<u64> = scan(&lines, "turn")
        .into_iter()
        .filter(|p| kind_of(*p as usize - 1) == "tool_gated")
        .collect();
    assert_eq!(index.filter(&gated_with_turn), expect);
    assert_eq!(index.filter(&Filter::default()).len(), lines.len());
}

#[test]
fn kernel_observations_filter_by_their_observation_kind() {
    let log = concat!(
        r#"{"kind":"kernel_observation","turn":1,"observation_kind":"tick","raw":{}}"#,
        "\n",
        r#"{"kind":"kernel_observation","turn":1,"observation_kind":"io","raw":{}}"#,
        "\n",
        r#"{"kind":"round_started","round":1}"#,
        "\n",
        r#"{"kind":"kernel_observation","turn":2, "observation_kind" : "tick","raw":{}}"#,
        "\n",
        r#"{"kind":"kernel_observation","turn":2,"observation_kind":"t\u0069ck","raw":{}}"#,
        "\n",
    );
    let index = index_of(log);
    let ticks = Filter { kinds: Some(vec!["kernel_observation/tick".into()]), ..Filter::default() };
    assert_eq!(
        index.filter(&ticks),
        vec![1, 4, 5],
        "an escaped name is read as the parser reads it"
    );
    let counts = index.observation_kinds();
    assert_eq!(counts.get("tick"), Some(&3));
    assert_eq!(counts.get("io"), Some(&1));
}

#[test]
fn unknown_kinds_are_indexed_under_their_own_name() {
    let log = "{\"kind\":\"from_the_future\",\"x\":1}\n{\"kind\":\"run_started\",\"run_id\":\"r\",\"goal\":\"g\",\"criteria\":[]}\n";
    let index = index_of(log);
    assert_eq!(index.event(1).unwrap().kind, "from_the_future");
    let unknown = Filter { kinds: Some(vec![]), unknown: true, ..Filter::default() };
    assert_eq!(index.filter(&unknown), vec![1]);
    let by_name = Filter { kinds: Some(vec!["from_the_future".into()]), ..Filter::default() };
    assert_eq!(index.filter(&by_name), vec![1]);
}

#[test]
fn the_real_corpus_indexes_with_the_same_state_as_the_view() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/deepstrike-0.2.77");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let log = std::fs::read_to_string(&path).unwrap();
        let index = index_of(&log);
        let mut full = SessionState::new(None);
        full.apply_str(&log, LogOptions::default()).unwrap();
        assert_eq!(seen(index.state()), seen(&full), "{}", path.display());
        assert!(index.load_errors().is_empty());
        let half = index.event_count() / 2;
        let mut head = SessionState::new(None);
        for e in index.events(1, half) {
            head.apply_json(e.text).unwrap();
        }
        assert_eq!(seen(&index.state_at(half)), seen(&head), "{}", path.display());
    }
}

#[test]
fn past_a_bound_of_distinct_unknown_kinds_events_are_load_errors_not_a_slowdown() {
    use agent_replay::index::MAX_UNKNOWN_KINDS;
    let n = MAX_UNKNOWN_KINDS + 100;
    let log: String = (0..n).map(|i| format!("{{\"kind\":\"future_{i}\"}}\n")).collect();
    let index = index_of(&log);
    assert_eq!(index.event_count(), MAX_UNKNOWN_KINDS as u64);
    assert_eq!(index.load_errors().len(), 100);
    let first = &index.load_errors()[0];
    assert_eq!((first.line, first.kind.as_deref()), (MAX_UNKNOWN_KINDS + 1, Some("future_4096")));
    assert_eq!(agent_replay::json::to_js_json(&first.code), "\"limit_exceeded\"");
    let known_again = format!("{log}{{\"kind\":\"future_7\"}}\n");
    assert_eq!(index_of(&known_again).event_count(), MAX_UNKNOWN_KINDS as u64 + 1);
    let one = Filter { kinds: Some(vec!["future_7".into()]), ..Filter::default() };
    assert_eq!(index.filter(&one), vec![8]);
}

/// `line` read by the parser alone: a leading key with an escape makes the
/// scan that reads the runtime's turn-only kinds hand the event over.
fn parsed(line: &str) -> String {
    format!("{{\"\\u0078\":0,{}", &line[1..])
}

/// The generated log writes keys in order (`kind` after `effect_id`);
/// after it, the same kinds with `kind` leading, a wake (a runtime turn
/// below the life's, from a turn-only kind), a new run and a round.
fn log_of_turn_only_kinds() -> String {
    let mut log = generate_jsonl(13, 200_000);
    for (i, turn) in [9, 9, 2, 3, 1].into_iter().enumerate() {
        log.push_str(&format!(
            "{{\"kind\":\"context_prepared\",\"turn\":{turn},\"preparation\":{{\"n\":{i}}}}}\n\
             {{\"kind\":\"workflow_node_completed\",\"turn\":{turn},\"status\":\"ok\"}}\n\
             {{\"kind\":\"provider_attempt\",\"attempt_seq\":{i}}}\n\
             {{\"kind\":\"from_the_future\",\"turn\":{turn}}}\n"
        ));
        if i == 2 {
            log.push_str("{\"kind\":\"run_started\",\"run_id\":\"r2\",\"goal\":\"g\"}\n");
            log.push_str("{\"kind\":\"round_started\",\"round\":1}\n");
        }
    }
    log
}

#[test]
fn events_read_from_a_scan_fold_as_parsed_on_both_sides_of_each_checkpoint() {
    // The index folds turn-only and bodiless events again from their
    // slots; the full fold reads every text through the parser.
    let log = log_of_turn_only_kinds();
    let lines = lines(&log);
    let mut index = SessionIndex::with_checkpoints(None, 3, 64);
    index.apply_bytes(log.as_bytes(), LogOptions::default()).unwrap();
    assert_eq!(index.event_count(), lines.len() as u64);
    let mut full = SessionState::new(None);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(seen(&index.state_at(i as u64)), seen(&full), "at {i}");
        full.apply_json(&parsed(line)).unwrap();
    }
    assert_eq!(seen(&index.state_at(lines.len() as u64)), seen(&full));
    assert_eq!(seen(index.state()), seen(&full));
    assert_eq!(index.turns(), full.view().turns.as_slice());
    assert!(full.view().lives.len() >= 3, "a wake and a new run start lives");
}

#[test]
fn a_transcript_folded_again_from_slots_is_the_parsers_on_any_window() {
    let log = log_of_turn_only_kinds();
    let lines = lines(&log);
    let mut index = SessionIndex::with_checkpoints(None, 3, 64);
    index.apply_bytes(log.as_bytes(), LogOptions::default()).unwrap();
    let end = lines.len() as u64;
    for (from, to) in [(1, end), (end - 30, end), (2, 40), (end / 2, end / 2 + 300), (5, 4)] {
        let mut alone = SessionState::new(None);
        for line in lines.iter().take(to as usize).skip(from as usize - 1) {
            alone.apply_json(&parsed(line)).unwrap();
        }
        let mut expected = alone.into_view().transcript;
        expected.iter_mut().for_each(|entry| entry.shift(from - 1));
        assert_eq!(index.transcript(from, to, usize::MAX), expected, "{from}..={to}");
        let last = index.transcript(from, to, 3);
        assert_eq!(
            last,
            expected[expected.len().saturating_sub(3)..],
            "the last 3 of {from}..={to}"
        );
    }
}

#[test]
fn a_turn_only_kind_with_a_bad_body_is_the_parsers_load_error() {
    let log = [
        r#"{"kind":"context_prepared","preparation":{}}"#,
        r#"{"effect_id":"e","kind":"kernel_observation","turn":-1}"#,
        r#"{"kind":"workflow_completed","turn":1,"turn":2}"#,
        r#"{"effect_id":"e","kind":"provider_attempt","kind":"provider_attempt"}"#,
        r#"{"kind":"provider_attempt","status":tru}"#,
        r#"{"kind":"context_prepared","turn":4}"#,
    ]
    .join("\n");
    let mut index = SessionIndex::new(None);
    index.apply_bytes(log.as_bytes(), LogOptions::default()).unwrap();
    assert_eq!(index.event_count(), 1);
    let errors: Vec<(usize, &str, Option<&str>)> = index
        .load_errors()
        .iter()
        .map(|e| (e.line, e.message.as_str(), e.field.as_deref()))
        .collect();
    assert_eq!(
        errors,
        [
            (1, "missing field `turn`", Some("turn")),
            (2, "invalid value: integer `-1`, expected u32", Some("turn")),
            (3, "duplicate field `turn`", Some("turn")),
            (4, "duplicate field `kind`", Some("kind")),
            (5, "expected ident", Some("status")),
        ]
    );
    // Strict reading knows deepstrike-core's kinds only, as before.
    let strict = LogOptions { strict: true, ..Default::default() };
    let error = SessionIndex::new(None).apply_bytes(log.as_bytes(), strict).unwrap_err();
    let unknown = "unknown event kind `context_prepared` (strict mode)";
    assert_eq!((error.line, error.message.as_str()), (1, unknown));
}
