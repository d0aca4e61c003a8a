//! The stored-entry format, read in one place: a line
//! `{"seq":N,"event":{...}}`, on the first line of a keyed batch also
//! `"key"` and `"count"` (the file store's idempotency key), any other field
//! a newer writer adds skipped. `LogReader` reads entries through
//! `parse_entry` and `SeqCheck` to fold their events; `EntryReader` reads
//! them as entries, without parsing the events, for those that store or
//! copy them (the file store, which needs each line's place in its file).

use serde::Deserialize;
use serde_json::error::Category;
use serde_json::value::RawValue;

use super::position::{char_column, column_at};
use super::{offset_in, split_line, utf8, valid_prefix, LogError, LogErrorCode};
use crate::event::EventError;

/// One stored entry, borrowed from its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredEntry<'t> {
    pub seq: u64,
    /// The batch key's JSON text, on the first line of a keyed batch.
    pub key: Option<&'t str>,
    /// How many events the keyed batch holds, beside its key.
    pub count: Option<u64>,
    /// The event's own JSON text, as stored.
    pub event: &'t str,
}

/// Reads a stored entry from `text` (a line without surrounding
/// whitespace). An error's `column` is a byte offset into `text`, for the
/// caller to place; its `line` is `line`.
pub(crate) fn parse_entry(text: &str, line: usize) -> Result<StoredEntry<'_>, LogError> {
    #[derive(Deserialize)]
    struct Entry<'a> {
        seq: u64,
        #[serde(borrow, default)]
        key: Option<&'a RawValue>,
        #[serde(default)]
        count: Option<u64>,
        #[serde(borrow)]
        event: &'a RawValue,
    }
    let entry: Entry = crate::event::objects::from_str(text).map_err(|e| {
        let ev = EventError::from_serde(text, &e);
        LogError {
            line,
            column: ev.offset,
            index: None,
            code: match ev.class {
                Category::Eof => LogErrorCode::Truncated,
                Category::Syntax | Category::Io => LogErrorCode::InvalidJson,
                Category::Data => LogErrorCode::InvalidEntry,
            },
            message: ev.message,
            kind: None,
            field: ev.field,
        }
    })?;
    Ok(StoredEntry {
        seq: entry.seq,
        key: entry.key.map(RawValue::get),
        count: entry.count,
        event: entry.event.get(),
    })
}

/// The `seq` each entry should have: one more than the largest before it.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct SeqCheck {
    next: u64,
}

impl SeqCheck {
    pub(crate) fn starting_at(seq: u64) -> Self {
        SeqCheck { next: seq }
    }

    /// Takes the next entry's `seq`: the problem with it (at `line`, column
    /// 0) when it is not the one expected. The entry itself stays valid.
    pub(crate) fn check(&mut self, seq: u64, line: usize) -> Option<LogError> {
        let expected = self.next;
        // `seq` is input: past a seq of u64::MAX the next expected stays
        // there (no log holds that many entries; only a hostile one gets there).
        self.next = expected.max(seq.saturating_add(1));
        if seq == expected {
            return None;
        }
        let (code, message) = if seq > expected {
            #[allow(clippy::arithmetic_side_effects, reason = "`seq > expected`")]
            let missing = seq - expected;
            (
                LogErrorCode::SeqGap,
                format!("seq {seq} where {expected} was expected: {missing} entries missing"),
            )
        } else {
            (
                LogErrorCode::SeqDisorder,
                format!("seq {seq} where {expected} was expected: out of order or repeated"),
            )
        };
        Some(LogError {
            line,
            column: 0,
            index: None,
            code,
            message,
            kind: None,
            field: Some("seq".into()),
        })
    }
}

/// Marks an end-of-input error on an unterminated last line as truncation
/// (what a writer stopped mid-line leaves); on a whole line it is bad JSON.
pub(crate) fn end_of_input(mut err: LogError, terminated: bool) -> LogError {
    if !terminated && err.code == LogErrorCode::Truncated {
        err.message = format!("truncated last line: the log ends mid-event ({})", err.message);
    } else if err.code == LogErrorCode::Truncated {
        err.code = LogErrorCode::InvalidJson;
    }
    err
}

/// A whole line's entry and where the line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineEntry<'t> {
    /// The byte offset of the line's start in the stream.
    pub offset: u64,
    /// The line's bytes, its line break included.
    pub length: u64,
    pub entry: StoredEntry<'t>,
}

/// A problem with a line, and the byte offset of the line's start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryError {
    pub offset: u64,
    pub error: LogError,
}

/// What `EntryReader` finds in a line: an entry, a problem, or both (an
/// entry whose `seq` is not the next is reported, then delivered).
pub trait EntrySink {
    fn entry(&mut self, entry: LineEntry<'_>);
    fn error(&mut self, error: EntryError);
}

/// Stored entries in chunks, as entries: each whole line is read as it
/// completes, its event's text kept as stored (checked to be JSON, not
/// parsed as an event). Lines that are blank are skipped; lines that are
/// not entries are reported and skipped, as `LogReader` does. At `finish`,
/// an unterminated last line is read too: cut short (what a crash
/// mid-write leaves), it is reported `truncated`.
#[derive(Debug, Default)]
pub struct EntryReader {
    seq: SeqCheck,
    /// The stream offset of the next line's start.
    offset: u64,
    lines: usize,
    /// The start of a line the chunks so far have not ended.
    pending: Vec<u8>,
}

impl EntryReader {
    /// A reader of a stream whose first line has `seq` and is at byte
    /// `offset` (both 0 for a whole file).
    pub fn new(seq: u64, offset: u64) -> Self {
        EntryReader { seq: SeqCheck::starting_at(seq), offset, ..Default::default() }
    }

    /// Reads the whole lines `chunk` completes; keeps its unterminated end.
    pub fn push(&mut self, chunk: &[u8], sink: &mut dyn EntrySink) {
        let mut rest = chunk;
        if !self.pending.is_empty() {
            let Some((head, after)) = split_line(chunk) else {
                self.pending.extend_from_slice(chunk);
                return;
            };
            let mut line = std::mem::take(&mut self.pending);
            line.extend_from_slice(head);
            self.line(&line, true, sink);
            rest = after;
        }
        while let Some((line, after)) = split_line(rest) {
            self.line(line, true, sink);
            rest = after;
        }
        self.pending.extend_from_slice(rest);
    }

    /// Ends the stream: reads its unterminated last line, if any.
    pub fn finish(&mut self, sink: &mut dyn EntrySink) {
        let last = std::mem::take(&mut self.pending);
        if !last.is_empty() {
            self.line(&last, false, sink);
        }
    }

    /// One line (without its line break, which `terminated` says it had).
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "stream offsets count bytes read, far below u64::MAX; the offsets added in a \
                  line are of its parts, one after the other"
    )]
    fn line(&mut self, bytes: &[u8], terminated: bool, sink: &mut dyn EntrySink) {
        self.lines = self.lines.saturating_add(1);
        let offset = self.offset;
        let length = bytes.len() as u64 + u64::from(terminated);
        self.offset += length;
        let line = self.lines;
        let fail = |error| EntryError { offset, error };
        let Some(raw) = utf8::as_str(bytes) else {
            let column = char_column(valid_prefix(bytes));
            return sink.error(fail(super::invalid_utf8(line, column)));
        };
        let raw = if offset == 0 { raw.strip_prefix('\u{feff}').unwrap_or(raw) } else { raw };
        let text = raw.trim();
        if text.is_empty() {
            return;
        }
        let lead = offset_in(raw, text);
        let entry = match parse_entry(text, line) {
            Ok(entry) => entry,
            Err(mut err) => {
                err.column = column_at(raw, lead + err.column);
                return sink.error(fail(end_of_input(err, terminated)));
            }
        };
        if let Some(err) = self.seq.check(entry.seq, line) {
            sink.error(fail(LogError { column: column_at(raw, lead), ..err }));
        }
        sink.entry(LineEntry { offset, length, entry });
    }
}
