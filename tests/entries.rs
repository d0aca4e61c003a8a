//! The stored-entry reader: entries and their lines' places, however the
//! stream is cut into chunks, and the problems it reports.

use agent_replay::log::{
    EntryError, EntryReader, EntrySink, LineEntry, LogErrorCode, LogOptions, LogReader,
};
use agent_replay::SessionEvent;

/// An entry, owned: `(offset, length, seq, key, count, event)`.
type Entry = (u64, u64, u64, Option<String>, Option<u64>, String);

/// What a reader delivered: entries, and errors as `(offset, line, column, code)`.
#[derive(Debug, Default, PartialEq)]
struct Found {
    entries: Vec<Entry>,
    errors: Vec<(u64, usize, usize, LogErrorCode)>,
}

impl EntrySink for Found {
    fn entry(&mut self, e: LineEntry<'_>) {
        let s = e.entry;
        let key = s.key.map(str::to_string);
        self.entries.push((e.offset, e.length, s.seq, key, s.count, s.event.to_string()));
    }
    fn error(&mut self, e: EntryError) {
        self.errors.push((e.offset, e.error.line, e.error.column, e.error.code));
    }
}

fn read_chunks(chunks: &[&[u8]], seq: u64, offset: u64) -> Found {
    let mut found = Found::default();
    let mut reader = EntryReader::new(seq, offset);
    for chunk in chunks {
        reader.push(chunk, &mut found);
    }
    reader.finish(&mut found);
    found
}

fn read(bytes: &[u8]) -> Found {
    read_chunks(&[bytes], 0, 0)
}

const EV0: &str = r#"{"kind":"session_started","turn":0}"#;
const EV1: &str = r#"{"kind":"agent_message","turn":1,"text":"héllo ✓"}"#;

fn log() -> String {
    format!(
        "{{\"seq\":0,\"key\":\"k-1\",\"count\":2,\"event\":{EV0}}}\n\
         {{\"seq\":1,\"event\":{EV1},\"written_by\":{{\"v\":2}}}}\n"
    )
}

#[test]
fn reads_entries_with_their_places_keys_and_counts() {
    let text = log();
    let first = text.find('\n').unwrap() as u64 + 1;
    let found = read(text.as_bytes());
    assert_eq!(found.errors, vec![]);
    assert_eq!(
        found.entries,
        vec![
            (0, first, 0, Some("\"k-1\"".into()), Some(2), EV0.into()),
            (first, text.len() as u64 - first, 1, None, None, EV1.into()),
        ]
    );
}

#[test]
fn every_cut_into_chunks_reads_the_same() {
    let text = log();
    let bytes = text.as_bytes();
    let whole = read(bytes);
    // Every cut, those inside "é" and "✓" included.
    for at in 0..=bytes.len() {
        let (a, b) = bytes.split_at(at);
        assert_eq!(read_chunks(&[a, b], 0, 0), whole, "cut at {at}");
    }
    let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(read_chunks(&bytewise, 0, 0), whole);
}

#[test]
fn starts_at_a_given_seq_and_offset() {
    let text = format!("{{\"seq\":7,\"event\":{EV0}}}\n");
    let found = read_chunks(&[text.as_bytes()], 7, 1000);
    assert_eq!(found.errors, vec![]);
    assert_eq!(found.entries[0].0, 1000);
    assert_eq!(read_chunks(&[text.as_bytes()], 6, 0).errors, vec![(0, 1, 1, LogErrorCode::SeqGap)]);
}

#[test]
fn a_bad_line_is_reported_where_it_is_and_reading_goes_on() {
    let good = format!("{{\"seq\":0,\"event\":{EV0}}}\n");
    let text = format!(
        "{good}  not json\n{{\"seq\":\"x\",\"event\":{{}}}}\n{{\"seq\":1,\"event\":{EV1}}}\n"
    );
    let found = read(text.as_bytes());
    let bad = good.len() as u64;
    let wrong_type = bad + "  not json\n".len() as u64;
    assert_eq!(
        found.errors,
        vec![
            (bad, 2, 4, LogErrorCode::InvalidJson),
            (wrong_type, 3, 10, LogErrorCode::InvalidEntry)
        ]
    );
    assert_eq!(found.entries.iter().map(|e| e.2).collect::<Vec<_>>(), vec![0, 1]);
}

#[test]
fn seq_gaps_and_disorder_are_reported_and_their_entries_kept() {
    let line = |seq: u64| format!("{{\"seq\":{seq},\"event\":{EV0}}}\n");
    let text = [line(0), line(3), line(2)].concat();
    let found = read(text.as_bytes());
    let len = line(0).len() as u64;
    assert_eq!(
        found.errors,
        vec![(len, 2, 1, LogErrorCode::SeqGap), (2 * len, 3, 1, LogErrorCode::SeqDisorder)]
    );
    assert_eq!(found.entries.iter().map(|e| e.2).collect::<Vec<_>>(), vec![0, 3, 2]);
}

#[test]
fn a_torn_last_line_is_truncated_and_a_whole_bad_one_is_not() {
    let good = format!("{{\"seq\":0,\"event\":{EV0}}}\n");
    let torn = format!("{good}{{\"seq\":1,\"event\":{{\"kind\":\"ag");
    let found = read(torn.as_bytes());
    assert_eq!(found.entries.len(), 1);
    assert_eq!(found.errors.len(), 1);
    assert_eq!(
        (found.errors[0].0, found.errors[0].3),
        (good.len() as u64, LogErrorCode::Truncated)
    );
    // Until the end, the torn line waits for the rest of it.
    let mut pushed = Found::default();
    EntryReader::new(0, 0).push(torn.as_bytes(), &mut pushed);
    assert_eq!(pushed.errors, vec![]);
    // The same bytes ended by a line break are a bad line.
    let cut = read(format!("{torn}\n").as_bytes());
    assert_eq!(cut.errors[0].3, LogErrorCode::InvalidJson);
    // An unterminated last line that is whole is an entry.
    let whole = read(good.trim_end().as_bytes());
    assert_eq!(whole.errors, vec![]);
    assert_eq!(whole.entries[0].1, good.len() as u64 - 1);
}

#[test]
fn blank_lines_are_skipped_and_invalid_utf8_reported() {
    let text =
        [b"\r\n".as_slice(), b"{\"seq\":0,\"event\":{}}\r\n", b"{\"seq\":1,\xff}\n"].concat();
    let found = read(&text);
    assert_eq!(found.entries.len(), 1);
    assert_eq!(found.entries[0].0, 2);
    assert_eq!(found.errors, vec![(24, 3, 10, LogErrorCode::InvalidUtf8)]);
}

#[test]
fn the_log_reader_reads_keyed_entries_as_entries() {
    let mut kinds = Vec::new();
    let mut reader = LogReader::new(LogOptions::default());
    let mut sink = |_: &str, e: &SessionEvent<'_>| kinds.push(e.kind().to_string());
    reader.push(log().as_bytes(), &mut sink).unwrap();
    reader.finish(&mut sink).unwrap();
    assert_eq!(reader.errors(), &[]);
    assert_eq!(kinds, ["session_started", "agent_message"]);
}
