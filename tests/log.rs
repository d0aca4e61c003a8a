//! Loading logs: the three framings, strings and bytes, positions of
//! errors, truncation, seq checks, strictness and chunked input.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use agent_replay::log::{Framing, LogErrorCode, LogOptions, LogReader};
use agent_replay::SessionEvent;
use common::{load, load_bytes};

/// The system allocator, counting the bytes each thread asks for: what the
/// loader copies into buffers of its own.
struct CountingAllocator;

thread_local! {
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

fn count_allocated(bytes: usize) {
    // `try_with`: a thread being torn down may still free and allocate.
    let _ = ALLOCATED.try_with(|n| n.set(n.get() + bytes));
}

fn allocated() -> usize {
    ALLOCATED.with(Cell::get)
}

// SAFETY: every call is passed on to `System` unchanged.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_allocated(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_allocated(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: CountingAllocator = CountingAllocator;

const A: &str = r#"{"kind":"page_in","turn":1,"entry_count":1}"#;
const B: &str = r#"{"kind":"page_out","turn":2}"#;
const C: &str = r#"{"kind":"checkpoint_taken","turn":3,"history_len":4}"#;

#[test]
fn json_lines_with_crlf_blank_lines_and_bom() {
    let text = format!("\u{feff}{A}\r\n\r\n  \n{B}\r\n{C}");
    let (events, report) = load(&text, true).unwrap();
    assert_eq!(events, [A, B, C]);
    assert_eq!(report.framing, Framing::JsonLines);
    assert!(report.errors.is_empty());
}

#[test]
fn json_array_and_stored_entries_give_the_same_events() {
    let array = format!("\u{feff}[\n  {A},\n  {B},\n  {C}\n]\n");
    let (events, report) = load(&array, true).unwrap();
    assert_eq!(
        (events.as_slice(), report.framing),
        ([A, B, C].map(String::from).as_slice(), Framing::JsonArray)
    );
    let stored = format!(
        "{{\"seq\":0,\"event\":{A}}}\n{{\"seq\":1,\"event\":{B}}}\n{{\"seq\":2,\"event\":{C}}}\n"
    );
    let (events, report) = load(&stored, true).unwrap();
    assert_eq!(events, [A, B, C]);
    assert_eq!(report.framing, Framing::StoredEntries);
}

#[test]
fn strings_and_bytes_give_the_same_result() {
    let log = agent_replay::generate::generate_jsonl(3, 20_000);
    assert_eq!(load(&log, false).unwrap(), load_bytes(log.as_bytes(), false).unwrap());
    let bad = format!("{A}\n{{\"kind\":\"page_in\",\"turn\":\"x\"}}\n{B}");
    assert_eq!(load(&bad, false).unwrap(), load_bytes(bad.as_bytes(), false).unwrap());
}

#[test]
fn json_lines_errors_name_line_column_field_and_keep_the_rest() {
    let text = format!("{A}\n{{\"kind\":\"page_in\",\"turn\":\"x\",\"entry_count\":1}}\nnot json\n{B}\n{{\"kind\":\"page_in\", \"turn\":1}}\n{C}\n");
    let (events, report) = load(&text, false).unwrap();
    assert_eq!(events, [A, B, C]);
    let errs = &report.errors;
    assert_eq!(errs.len(), 3);
    assert_eq!(
        (errs[0].line, errs[0].code, errs[0].field.as_deref(), errs[0].kind.as_deref()),
        (2, LogErrorCode::InvalidEvent, Some("turn"), Some("page_in"))
    );
    assert_eq!(errs[0].column, 28); // the last character of the bad value "x"
    assert_eq!((errs[1].line, errs[1].column, errs[1].code), (3, 2, LogErrorCode::InvalidJson)); // "no" is not "null"
    assert_eq!(
        (errs[2].line, errs[2].code, errs[2].field.as_deref()),
        (5, LogErrorCode::InvalidEvent, Some("entry_count"))
    );
}

#[test]
fn columns_count_characters_not_bytes() {
    let text = r#"{"kind":"milestone_blocked","turn":1,"phase_id":"ééé","reason":5}"#;
    let (_, report) = load(text, false).unwrap();
    let e = &report.errors[0];
    assert_eq!(e.field.as_deref(), Some("reason"));
    assert_eq!(e.column, text.chars().count() - 1); // the 5, counted in characters
}

#[test]
fn array_errors_give_the_element_index_and_line() {
    let text = format!("[\n{A},\n{{\"kind\":\"page_out\",\"turn\":true}},\n{B}\n]");
    let (events, report) = load(&text, false).unwrap();
    assert_eq!(events, [A, B]);
    let e = &report.errors[0];
    assert_eq!((e.index, e.line, e.field.as_deref()), (Some(1), 3, Some("turn")));
    assert_eq!(e.column, 30);
}

#[test]
fn a_cut_off_array_keeps_every_complete_element() {
    let text = format!("[{A},\n{B},\n{{\"kind\":\"page_in\",\"tu");
    let (events, report) = load(&text, false).unwrap();
    assert_eq!(events, [A, B]);
    assert_eq!(report.errors.len(), 1);
    assert_eq!((report.errors[0].code, report.errors[0].line), (LogErrorCode::Truncated, 3));
}

#[test]
fn truncated_last_line_is_reported_and_everything_before_kept() {
    for framing in ["lines", "stored"] {
        let (a, b, cut) = match framing {
            "lines" => {
                (A.to_string(), B.to_string(), r#"{"kind":"checkpoint_taken","tu"#.to_string())
            }
            _ => (
                format!(r#"{{"seq":0,"event":{A}}}"#),
                format!(r#"{{"seq":1,"event":{B}}}"#),
                r#"{"seq":2,"event":{"kind":"pa"#.to_string(),
            ),
        };
        let (events, report) = load(&format!("{a}\n{b}\n{cut}"), false).unwrap();
        assert_eq!(events, [A, B], "{framing}");
        assert_eq!(report.errors.len(), 1, "{framing}");
        let e = &report.errors[0];
        assert_eq!((e.code, e.line), (LogErrorCode::Truncated, 3), "{framing}");
        assert!(e.message.starts_with("truncated last line"));
        // The same bytes on a terminated line are invalid JSON, not truncation.
        let (_, report) = load(&format!("{cut}\n{a}\n"), false).unwrap();
        assert_eq!(report.errors[0].code, LogErrorCode::InvalidJson, "{framing}");
    }
}

#[test]
fn seq_gaps_and_disorder_are_reported_and_events_kept() {
    let entry = |seq: u64, e: &str| format!(r#"{{"seq":{seq},"event":{e}}}"#);
    let text = [entry(0, A), entry(1, B), entry(4, C), entry(3, A), entry(5, B)].join("\n");
    let (events, report) = load(&text, false).unwrap();
    assert_eq!(events, [A, B, C, A, B]);
    let codes: Vec<_> = report.errors.iter().map(|e| (e.line, e.code)).collect();
    assert_eq!(codes, [(3, LogErrorCode::SeqGap), (4, LogErrorCode::SeqDisorder)]);
    assert!(report.errors[0].message.contains("2 entries missing"));
    let err = load(&text, true).unwrap_err();
    assert_eq!((err.line, err.code), (3, LogErrorCode::SeqGap));
}

#[test]
fn stored_entry_errors_point_into_the_event() {
    let text = format!("{{\"seq\":0,\"event\":{A}}}\n{{\"seq\":1,\"event\":{{\"kind\":\"page_in\",\"turn\":-4,\"entry_count\":1}}}}\n{{\"seq\":\"two\",\"event\":{B}}}");
    let (events, report) = load(&text, false).unwrap();
    assert_eq!(events, [A]);
    let e = &report.errors;
    assert_eq!((e[0].line, e[0].column, e[0].field.as_deref()), (2, 44, Some("turn")));
    assert_eq!(
        (e[1].line, e[1].code, e[1].field.as_deref()),
        (3, LogErrorCode::InvalidEntry, Some("seq"))
    );
}

#[test]
fn unknown_kinds_are_kept_when_tolerant_and_errors_when_strict() {
    let text = format!("{A}\n{{\"kind\":\"teleported\",\"turn\":1}}\n{B}");
    let (events, report) = load(&text, false).unwrap();
    assert_eq!(events.len(), 3);
    assert!(report.errors.is_empty());
    let err = load(&text, true).unwrap_err();
    assert_eq!(
        (err.line, err.code, err.kind.as_deref()),
        (2, LogErrorCode::UnknownKind, Some("teleported"))
    );
    let err = load(&format!("[{A}, {{\"kind\":\"teleported\"}}]"), true).unwrap_err();
    assert_eq!((err.index, err.code), (Some(1), LogErrorCode::UnknownKind));
    // A kind deepstrike 0.2.77 adds: known when tolerant, not to the core.
    let round = r#"{"kind":"round_started","round":1,"goal":"g"}"#;
    assert!(load(&format!("{A}\n{round}\n"), false).unwrap().1.errors.is_empty());
    let err = load(&format!("{A}\n{round}\n"), true).unwrap_err();
    assert_eq!(
        (err.line, err.code, err.kind.as_deref()),
        (2, LogErrorCode::UnknownKind, Some("round_started"))
    );
}

#[test]
fn strict_stops_at_the_first_error() {
    let text = format!("{A}\n{{\"kind\":\"page_in\"}}\nnope\n");
    let err = load(&text, true).unwrap_err();
    assert_eq!((err.line, err.code), (2, LogErrorCode::InvalidEvent));
}

#[test]
fn invalid_utf8_lines_are_errors_and_the_rest_loads() {
    let mut bytes = format!("{A}\n").into_bytes();
    bytes.extend_from_slice(b"{\"kind\":\"page_out\",\"turn\":1,\"x\":\"\xff\xfe\"}\n");
    bytes.extend_from_slice(format!("{B}\n").as_bytes());
    let (events, report) = load_bytes(&bytes, false).unwrap();
    assert_eq!(events, [A, B]);
    assert_eq!(
        (report.errors[0].line, report.errors[0].column, report.errors[0].code),
        (2, 34, LogErrorCode::InvalidUtf8)
    );
}

#[test]
fn invalid_utf8_in_an_array_is_reported_as_such_in_both_modes() {
    let mut bytes =
        format!("[{A},\n{B},\n{{\"kind\":\"page_out\",\"turn\":1,\"x\":\"").into_bytes();
    bytes.extend_from_slice(b"\xff\"}]");
    let (events, report) = load_bytes(&bytes, false).unwrap();
    assert_eq!(events, [A, B]);
    let codes: Vec<_> = report.errors.iter().map(|e| (e.line, e.code)).collect();
    assert_eq!(codes, [(3, LogErrorCode::InvalidUtf8)]);
    assert_eq!(load_bytes(&bytes, true).unwrap_err().code, LogErrorCode::InvalidUtf8);
}

/// Property: bytes, read line by line, give what the string gives when they
/// are UTF-8, and what the streamed reading gives when they are not, in
/// both modes, whatever the framing, BOMs, blank lines and bad bytes.
#[test]
fn bytes_load_as_their_string_or_as_streamed() {
    let mut rng = common::Rng(12);
    let pieces: [&[u8]; 16] = [
        A.as_bytes(),
        B.as_bytes(),
        br#"{"seq":0,"event":{"kind":"page_out","turn":2}}"#,
        b"\n",
        b"\r\n",
        b"  ",
        "\u{feff}".as_bytes(),
        b"[",
        b"]",
        b",",
        b"\xff",
        b"\xc3",
        "\u{e9}".as_bytes(),
        br#"{"kind":1}"#,
        br#"{"kind":"page_in","tu"#,
        b"\xef\xbb",
    ];
    let mut seen_invalid = 0;
    for _ in 0..20_000 {
        let mut log = Vec::new();
        for _ in 0..rng.below(12) {
            // Mostly events and newlines, the rest now and then.
            let piece = match rng.below(3) {
                0 => rng.below(pieces.len() as u64),
                1 => rng.below(2),
                _ => 3,
            };
            log.extend_from_slice(pieces[piece as usize]);
        }
        for strict in [false, true] {
            let got = load_bytes(&log, strict);
            match std::str::from_utf8(&log) {
                Ok(text) => assert_eq!(got, load(text, strict), "{text:?}"),
                Err(_) => {
                    seen_invalid += 1;
                    let mut reader = LogReader::new(LogOptions { strict, ..Default::default() });
                    let mut events = Vec::new();
                    let mut sink = |t: &str, _: &SessionEvent<'_>| events.push(t.to_string());
                    let streamed = reader
                        .push(&log, &mut sink)
                        .and_then(|()| reader.finish(&mut sink))
                        .map(|()| (events, reader.report()));
                    assert_eq!(got, streamed, "{log:?}");
                }
            }
        }
    }
    assert!(seen_invalid > 1_000);
}

/// Property: any chunking of a log gives exactly the one-shot result.
#[test]
fn chunked_loading_equals_one_shot_loading() {
    let mut rng = common::Rng(42);
    let mut logs = vec![agent_replay::generate::generate_jsonl(9, 30_000)];
    logs.push(format!("\u{feff}[{A},\n{B},{{\"kind\":\"page_in\",\"turn\":\"q\"}},{C}]"));
    logs.push(format!("{A}\r\n{{\"bad\r\n\n{B}\n{{\"kind\":\"page_in\",\"tu"));
    logs.push(format!("{{\"seq\":0,\"event\":{A}}}\n{{\"seq\":2,\"event\":{B}}}\n"));
    logs.push(format!("\r\n\n  [{A},{B}]"));
    logs.push(entries_array(true));
    logs.push(format!(
        "[{{\"seq\":0,\"event\":{A}}},{{\"seq\":5,\"event\":{B}}},{{\"seq\":\"\"}}]"
    ));
    logs.push(format!("\u{feff}\n \n{A}\n{{\"kind\":1}}\n"));
    // Only the first BOM is the file's; a second is the line's first character.
    logs.push(format!("\u{feff}\u{feff}{A}\n{B}\n"));
    for log in &logs {
        let expected = load(log, false).unwrap();
        for _ in 0..30 {
            let mut reader = LogReader::new(LogOptions::default());
            let mut events = Vec::new();
            let mut sink = |t: &str, _: &SessionEvent<'_>| events.push(t.to_string());
            let bytes = log.as_bytes();
            let mut at = 0;
            while at < bytes.len() {
                let max = if rng.below(2) == 0 { 7 } else { 4000 };
                let n = 1 + rng.below(max) as usize;
                let end = (at + n).min(bytes.len());
                reader.push(&bytes[at..end], &mut sink).unwrap();
                at = end;
            }
            reader.finish(&mut sink).unwrap();
            assert_eq!((events, reader.report()), expected);
        }
    }
}

/// A line longer than many chunks costs copies in proportion to its length,
/// not to its length times the number of chunks: the pending start of a line
/// is kept and added to, never copied again whole for each chunk.
#[test]
fn a_long_line_in_small_chunks_is_copied_in_linear_time() {
    let filler = "x".repeat(1 << 20);
    let line = format!(
        "{{\"kind\":\"checkpoint_taken\",\"turn\":1,\"history_len\":4,\"note\":\"{filler}\"}}"
    );
    for chunk_size in [64 << 10, 1 << 10] {
        let mut reader = LogReader::new(LogOptions::default());
        let mut events = 0;
        let mut sink = |_: &str, _: &SessionEvent<'_>| events += 1;
        let before = allocated();
        for chunk in line.as_bytes().chunks(chunk_size) {
            reader.push(chunk, &mut sink).unwrap();
        }
        let copied = allocated() - before;
        reader.push(b"\n", &mut sink).unwrap();
        reader.finish(&mut sink).unwrap();
        assert_eq!((events, reader.report().errors.len()), (1, 0));
        // A growing buffer doubles: its allocations add up to less than
        // four times its final length.
        assert!(
            copied <= 4 * line.len(),
            "{copied} bytes allocated for a {}-byte line in {chunk_size}-byte chunks",
            line.len()
        );
    }
}

/// The SDK's dump: a JSON array of stored entries, compact or pretty-printed.
fn entries_array(pretty: bool) -> String {
    let sep = if pretty { ",\n  " } else { "," };
    let entries = [A, B, C]
        .iter()
        .enumerate()
        .map(|(seq, e)| format!("{{\"seq\": {seq}, \"event\": {e}}}"))
        .collect::<Vec<_>>()
        .join(sep);
    if pretty {
        format!("[\n  {entries}\n]\n")
    } else {
        format!("[{entries}]")
    }
}

#[test]
fn an_array_of_stored_entries_gives_the_events_of_its_lines() {
    for pretty in [false, true] {
        let (events, report) = load(&entries_array(pretty), true).unwrap();
        assert_eq!(events, [A, B, C], "pretty: {pretty}");
        assert_eq!(report.framing, Framing::StoredEntriesArray);
        assert!(report.errors.is_empty());
    }
    let (_, report) = load("[]", true).unwrap();
    assert_eq!(report.framing, Framing::JsonArray);
}

#[test]
fn an_array_of_stored_entries_checks_seq_and_places_its_errors() {
    let text = format!(
        "[\n{{\"seq\":0,\"event\":{A}}},\n{{\"seq\":2,\"event\":{B}}},\n{{\"seq\":1,\"event\":{C}}},\n\
         {{\"seq\":\"x\",\"event\":{A}}},\n{{\"seq\":3,\"event\":{{\"kind\":\"page_in\",\"turn\":-1,\"entry_count\":1}}}}\n]"
    );
    let (events, report) = load(&text, false).unwrap();
    assert_eq!(events, [A, B, C]);
    let found: Vec<_> = report
        .errors
        .iter()
        .map(|e| (e.index, e.line, e.column, e.code, e.field.as_deref()))
        .collect();
    assert_eq!(
        found,
        [
            (Some(1), 3, 1, LogErrorCode::SeqGap, Some("seq")),
            (Some(2), 4, 1, LogErrorCode::SeqDisorder, Some("seq")),
            (Some(3), 5, 10, LogErrorCode::InvalidEntry, Some("seq")),
            (Some(4), 6, 44, LogErrorCode::InvalidEvent, Some("turn")),
        ]
    );
    let err = load(&text, true).unwrap_err();
    assert_eq!((err.index, err.line, err.code), (Some(1), 3, LogErrorCode::SeqGap));
}
