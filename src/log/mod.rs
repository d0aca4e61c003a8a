//! Loading event logs: a JSON array, JSON Lines, or the kernel's stored
//! entries `{"seq","event"}` as lines or as a JSON array (the SDKs' dump),
//! from a string, bytes, or chunks. Tolerant by
//! default (every valid event is delivered, errors are collected beside
//! them); strict stops at the first error.

mod entries;
mod error;
mod position;
pub(crate) mod utf8;

pub use entries::{EntryError, EntryReader, EntrySink, LineEntry, StoredEntry};
pub use error::{LogError, LogErrorCode};

use serde::de::{self, DeserializeSeed, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::error::Category;
use serde_json::value::RawValue;

use entries::{end_of_input, parse_entry, SeqCheck};

use crate::event::syntax::find_byte;
use crate::event::{EventError, SessionEvent, Str};
use position::{char_column, column_at, prefix_at, LineCursor};

/// How a log is loaded.
#[derive(Debug, Clone, Copy, Default)]
pub struct LogOptions {
    /// Fail on the first error, unknown kinds included.
    pub strict: bool,
    /// Deliver only the events whose kind this accepts; the others are
    /// checked to be well-formed JSON objects with a kind, and counted.
    pub only: Option<fn(&str) -> bool>,
    /// Deliver an event of a kind whose body no fold reads from a scan of
    /// its syntax, kind and turn (`SessionEvent::from_json_deferring`),
    /// and tell the sink where it is (`EventSink::deferred`), for a full
    /// check later. Lines only (an array is read whole at its end); strict
    /// reading and `only` never defer.
    pub defer_check: bool,
}

/// The framings a log can come in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    JsonArray,
    JsonLines,
    /// Stored entries, one a line: the kernel's file log.
    StoredEntries,
    /// A JSON array of stored entries: the SDKs' dump of a session log.
    StoredEntriesArray,
}

impl crate::json::WriteJson for Framing {
    fn write_json(&self, out: &mut crate::json::JsonOut) {
        out.string(match self {
            Framing::JsonArray => "json_array",
            Framing::JsonLines => "json_lines",
            Framing::StoredEntries => "stored_entries",
            Framing::StoredEntriesArray => "stored_entries_array",
        });
    }
}

/// Receives each valid event with its original JSON text, in log order.
pub trait EventSink {
    /// Takes the event, or refuses it with why (the live store refuses an
    /// event past its bounds): the reader then reports it where it is in
    /// the log, as a `limit_exceeded` load error, so nothing goes unsaid.
    fn event(&mut self, json: &str, event: &SessionEvent<'_>) -> Result<(), String>;

    /// The next event given was read from a scan, its fields' types not
    /// checked (`LogOptions::defer_check`): where it is, for that check.
    fn deferred(&mut self, _at: Deferred) {}
}

/// Where an event whose check was deferred is, so that its error, if it
/// has one, is the one an eager read reports (`deferred_error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deferred {
    pub line: usize,
    /// The character column where the event's text starts in its line.
    pub column: usize,
    /// How many load errors this reader reported before it.
    pub errors_before: usize,
}

/// The load error of an event whose check was deferred (`Deferred`) and
/// found `e` in its text: what the eager read of its line gives.
pub fn deferred_error(at: &Deferred, text: &str, e: EventError) -> LogError {
    let column = char_column(prefix_at(text, e.offset)).saturating_sub(1);
    LogError {
        line: at.line,
        column: at.column.saturating_add(column),
        index: None,
        code: code_of(&e),
        message: e.message,
        kind: e.kind,
        field: e.field,
    }
}

impl<F: FnMut(&str, &SessionEvent<'_>)> EventSink for F {
    fn event(&mut self, json: &str, event: &SessionEvent<'_>) -> Result<(), String> {
        self(json, event);
        Ok(())
    }
}

/// Why a valid event was not delivered.
enum Rejected {
    /// A kind this version does not know, in strict mode.
    UnknownKind(String),
    /// The sink refused it (its kind, and why).
    Refused(String, String),
    /// Memory ran short (`crate::memory`): the read stops here.
    ShortOfMemory,
}

/// What a finished load found besides its events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadReport {
    pub framing: Framing,
    pub events: usize,
    pub errors: Vec<LogError>,
}

/// Loads a whole log held in a string, without copying it.
pub fn read_str(
    text: &str,
    opts: LogOptions,
    sink: &mut dyn EventSink,
) -> Result<LoadReport, LogError> {
    let mut reader = LogReader::new(opts);
    if starts_array(text.as_bytes()) {
        reader.framing = Some(Framing::JsonArray);
        reader.array(text.strip_prefix('\u{feff}').unwrap_or(text), sink)?;
    } else {
        // A BOM is the first line's to strip (`line`), once: a second one
        // is that line's first character, as the streamed reading sees it.
        reader.lines_str(text, sink)?;
    }
    Ok(reader.report())
}

/// Loads a whole log held in bytes; lines that are not UTF-8 are errors.
/// JSON Lines without a BOM (nearly every log) are checked line by line as
/// they are read, while the line is in the cache, rather than in a pass
/// over the whole log first: what `read_str` gives a log that is UTF-8, and
/// the streamed reading (`push`) one that is not.
pub fn read_bytes(
    bytes: &[u8],
    opts: LogOptions,
    sink: &mut dyn EventSink,
) -> Result<LoadReport, LogError> {
    if !starts_array(bytes) && !bytes.starts_with("\u{feff}".as_bytes()) {
        let mut reader = LogReader::new(opts);
        let tail = reader.lines_bytes(bytes, sink)?;
        if !tail.is_empty() {
            reader.line_bytes(tail, false, sink)?;
        }
        return Ok(reader.report());
    }
    match utf8::as_str(bytes) {
        Some(text) => read_str(text, opts, sink),
        None => {
            let mut reader = LogReader::new(opts);
            reader.push(bytes, sink)?;
            reader.finish(sink)?;
            Ok(reader.report())
        }
    }
}

/// Incremental loader: `push` chunks as they arrive, then `finish`.
/// JSON Lines are handled as soon as each line is complete; a JSON array
/// is buffered until `finish`.
#[derive(Debug, Default)]
pub struct LogReader {
    strict: bool,
    only: Option<fn(&str) -> bool>,
    /// `LogOptions::defer_check`, when it applies (not strict, no `only`).
    defer: bool,
    framing: Option<Framing>,
    /// How far the start of a pushed log has told its framing.
    lead: Lead,
    lines_done: usize,
    seq: SeqCheck,
    pending: Vec<u8>,
    events: usize,
    errors: Vec<LogError>,
}

impl LogReader {
    pub fn new(opts: LogOptions) -> Self {
        let defer = opts.defer_check && !opts.strict && opts.only.is_none();
        LogReader { strict: opts.strict, only: opts.only, defer, ..Default::default() }
    }

    /// Errors collected so far (tolerant mode).
    pub fn errors(&self) -> &[LogError] {
        &self.errors
    }

    pub fn report(&self) -> LoadReport {
        LoadReport {
            framing: self.framing.unwrap_or(Framing::JsonLines),
            events: self.events,
            errors: self.errors.clone(),
        }
    }

    /// Feeds the next chunk of the log. Each byte is looked at and copied a
    /// bounded number of times, however the log is cut into chunks.
    pub fn push(&mut self, chunk: &[u8], sink: &mut dyn EventSink) -> Result<(), LogError> {
        match self.lead {
            Lead::Known(true) => {}
            Lead::Known(false) => return self.push_lines(chunk, sink),
            // Only a BOM and whitespace so far: kept, for an array's
            // positions or as blank lines.
            _ => match self.lead.read(chunk) {
                None => {}
                Some(true) => self.framing = Some(Framing::JsonArray),
                Some(false) => {
                    let blank = std::mem::take(&mut self.pending);
                    let tail = self.lines_bytes(&blank, sink)?;
                    self.pending.extend_from_slice(tail);
                    return self.push_lines(chunk, sink);
                }
            },
        }
        self.keep(chunk)
    }

    /// Whether the next byte pushed starts a line of a log known to be
    /// lines (JSON Lines or stored entries): no line's start is pending.
    pub fn at_line_start(&self) -> bool {
        self.lead == Lead::Known(false) && self.pending.is_empty()
    }

    /// Whole lines of a log being pushed, each ending in a newline, read in
    /// place (`at_line_start`, and UTF-8 already): what a caller that keeps
    /// the chunk it pushes hands over, so that its events' texts are parts
    /// of it.
    pub fn push_lines_str(
        &mut self,
        lines: &str,
        sink: &mut dyn EventSink,
    ) -> Result<(), LogError> {
        self.lines_str(lines, sink)
    }

    /// Lines in chunks: the pending start of a line is completed by the
    /// chunk's first newline, the chunk's whole lines are read in place and
    /// its unterminated end is added to the pending bytes.
    fn push_lines(&mut self, chunk: &[u8], sink: &mut dyn EventSink) -> Result<(), LogError> {
        let mut rest = chunk;
        if !self.pending.is_empty() {
            let Some((head, after)) = split_line(chunk) else {
                self.pending.extend_from_slice(chunk);
                return Ok(());
            };
            let mut line = std::mem::take(&mut self.pending);
            line.extend_from_slice(head);
            self.line_bytes(&line, true, sink)?;
            rest = after;
        }
        let tail = self.lines_bytes(rest, sink)?;
        self.pending.extend_from_slice(tail);
        Ok(())
    }

    /// Keeps bytes of a log not yet known to be lines, or of an array (all
    /// of it is buffered until `finish`): a growth the memory limit may
    /// refuse, which stops the read. A line's start, kept between chunks,
    /// is one event's: the limit lets it pass.
    fn keep(&mut self, bytes: &[u8]) -> Result<(), LogError> {
        crate::memory::try_extend(&mut self.pending, bytes)
            .map_err(|_| rejected(self.lines_done, 0, None, Rejected::ShortOfMemory))
    }

    /// Ends the log: handles an unterminated last line or the buffered array.
    pub fn finish(&mut self, sink: &mut dyn EventSink) -> Result<(), LogError> {
        let pending = std::mem::take(&mut self.pending);
        if self.framing != Some(Framing::JsonArray) {
            // Blank lines, if the framing was never known.
            let tail = self.lines_bytes(&pending, sink)?;
            if tail.is_empty() {
                return Ok(());
            }
            return self.line_bytes(tail, false, sink);
        }
        let body = pending.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(&pending);
        match std::str::from_utf8(body) {
            Ok(text) => self.array(text, sink),
            Err(_) => {
                let text = valid_prefix(body);
                let before = self.errors.len();
                // The prefix ends where the bad bytes start: its "truncated"
                // error is the invalid UTF-8, reported as such.
                match self.array(text, sink) {
                    Err(err) if err.code != LogErrorCode::Truncated => return Err(err),
                    _ => {}
                }
                if self.errors.len() > before
                    && self.errors.last().is_some_and(|e| e.code == LogErrorCode::Truncated)
                {
                    self.errors.pop();
                }
                let (line, column) = LineCursor::new(text).locate(text.len());
                self.fail(invalid_utf8(line, column))
            }
        }
    }

    fn fail(&mut self, err: LogError) -> Result<(), LogError> {
        // Short of memory, the first error stops the read: the event that
        // found memory short (`deliver`), or one that failed for want of it.
        if self.strict || crate::memory::is_short() {
            return Err(err);
        }
        self.errors.push(err);
        Ok(())
    }

    /// Lines of a string: every line ends in `\n` but perhaps the last.
    fn lines_str(&mut self, text: &str, sink: &mut dyn EventSink) -> Result<(), LogError> {
        let mut rest = text;
        while let Some((line, next)) = split_line_str(rest) {
            self.count_line();
            self.line(line, true, sink)?;
            rest = next;
        }
        if rest.is_empty() {
            return Ok(());
        }
        self.count_line();
        self.line(rest, false, sink)
    }

    /// The whole lines of `bytes`; returns what follows the last newline.
    fn lines_bytes<'b>(
        &mut self,
        bytes: &'b [u8],
        sink: &mut dyn EventSink,
    ) -> Result<&'b [u8], LogError> {
        let mut rest = bytes;
        while let Some((line, next)) = split_line(rest) {
            self.line_bytes(line, true, sink)?;
            rest = next;
        }
        Ok(rest)
    }

    /// One line of bytes, checked for UTF-8 on its own.
    fn line_bytes(
        &mut self,
        line: &[u8],
        terminated: bool,
        sink: &mut dyn EventSink,
    ) -> Result<(), LogError> {
        self.count_line();
        match utf8::as_str(line) {
            Some(text) => self.line(text, terminated, sink),
            None => {
                let column = char_column(valid_prefix(line));
                self.fail(invalid_utf8(self.lines_done, column))
            }
        }
    }

    /// Saturating: a streamed log is never held whole, and on a 32-bit
    /// target more than usize::MAX lines can arrive; line numbers then stay
    /// at the largest rather than wrap.
    fn count_line(&mut self) {
        self.lines_done = self.lines_done.saturating_add(1);
    }

    /// One line of JSON Lines or stored entries.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "the offsets added are of parts of `raw`, one after the other: their sum is \
                  at most its length"
    )]
    fn line(
        &mut self,
        raw: &str,
        terminated: bool,
        sink: &mut dyn EventSink,
    ) -> Result<(), LogError> {
        let raw =
            if self.lines_done == 1 { raw.strip_prefix('\u{feff}').unwrap_or(raw) } else { raw };
        let trimmed = raw.trim_start();
        let lead = offset_in(raw, trimmed);
        let text = trimmed.trim_end();
        if text.is_empty() {
            return Ok(());
        }
        if self.framing.is_none() {
            self.framing = detect_line_framing(text);
        }
        let (event_text, base) = if self.framing == Some(Framing::StoredEntries) {
            let place = |mut err: LogError| {
                err.column = column_at(raw, lead + err.column);
                err
            };
            match self.entry(text) {
                Ok((event_text, seq_problem)) => {
                    if let Some(err) = seq_problem {
                        self.fail(place(err))?;
                    }
                    (event_text, offset_in(text, event_text))
                }
                Err(err) => return self.fail(end_of_input(place(err), terminated)),
            }
        } else {
            (text, 0)
        };
        let mut deferred = false;
        match self.parse(event_text, Some(&mut deferred)) {
            Ok(ref event) => {
                if deferred {
                    // Told before the event: the sink keeps the note with
                    // the event, or refuses both.
                    let column = column_at(raw, lead + base);
                    let errors_before = self.errors.len();
                    sink.deferred(Deferred { line: self.lines_done, column, errors_before });
                }
                match self.deliver(event_text, event.as_ref(), sink) {
                    Ok(()) => Ok(()),
                    Err(why) => {
                        let column = column_at(raw, lead + base);
                        self.fail(rejected(self.lines_done, column, None, why))
                    }
                }
            }
            Err(e) => {
                let err = LogError {
                    line: self.lines_done,
                    column: column_at(raw, lead + base + e.offset),
                    index: None,
                    code: code_of(&e),
                    message: e.message,
                    kind: e.kind,
                    field: e.field,
                };
                self.fail(end_of_input(err, terminated))
            }
        }
    }

    /// A stored entry: the event's text, and the problem with its `seq` when
    /// it is not the next one (the event itself is valid: the caller reports
    /// the problem and keeps it). An error's `column` is a byte offset into
    /// `text` until the caller places it.
    fn entry<'t>(&mut self, text: &'t str) -> Result<(&'t str, Option<LogError>), LogError> {
        let entry = parse_entry(text, self.lines_done)?;
        Ok((entry.event, self.seq.check(entry.seq, self.lines_done)))
    }

    /// Parses an event, or only checks it when `only` rejects its kind
    /// (kinds strict reading does not know are parsed in strict mode, to be
    /// reported). Given `deferred` (a line's event), the reader defers
    /// what `LogOptions::defer_check` lets it, and sets it then.
    fn parse<'t>(
        &self,
        text: &'t str,
        deferred: Option<&mut bool>,
    ) -> Result<Option<SessionEvent<'t>>, EventError> {
        match self.only {
            None if self.strict => SessionEvent::from_json_strict(text).map(Some),
            None => match deferred.filter(|_| self.defer) {
                Some(deferred) => SessionEvent::from_json_deferring(text, deferred).map(Some),
                None => SessionEvent::from_json(text).map(Some),
            },
            Some(only) => SessionEvent::from_json_if(text, self.strict, &|kind| {
                only(kind) || (self.strict && !SessionEvent::reads_kind(kind, true))
            }),
        }
    }

    /// Hands a valid event to the sink; in strict mode an unknown kind is
    /// an error instead, and so is an event the sink refuses (returned for
    /// the caller to place).
    fn deliver(
        &mut self,
        text: &str,
        event: Option<&SessionEvent<'_>>,
        sink: &mut dyn EventSink,
    ) -> Result<(), Rejected> {
        // Saturating, like line numbers: a stream can bring more events
        // than a 32-bit usize counts.
        let Some(event) = event else {
            self.events = self.events.saturating_add(1);
            return Ok(());
        };
        if let (true, SessionEvent::Unknown(u)) = (self.strict, event) {
            return Err(Rejected::UnknownKind(u.kind.to_string()));
        }
        let taken = sink.event(text, event);
        // Memory ran short (`crate::memory`), in this event or before it:
        // the read stops here, whatever the sink said.
        if crate::memory::is_short() {
            return Err(Rejected::ShortOfMemory);
        }
        taken.map_err(|why| {
            // The sink took the event: its kind is read again, on this rare
            // path only (a copy of it for every event costs an allocation).
            let kind = SessionEvent::from_json(text).map(|e| e.kind().to_string());
            Rejected::Refused(kind.unwrap_or_default(), why)
        })?;
        self.events = self.events.saturating_add(1);
        Ok(())
    }

    /// A whole JSON array, element by element, so that a broken or cut-off
    /// array still yields every complete element before the break.
    fn array(&mut self, text: &str, sink: &mut dyn EventSink) -> Result<(), LogError> {
        let mut cursor = LineCursor::new(text);
        let mut stop: Option<LogError> = None;
        let mut de = serde_json::Deserializer::from_str(text);
        let result = ArraySeed { reader: self, text, cursor: &mut cursor, sink, stop: &mut stop }
            .deserialize(&mut de);
        if let Some(err) = stop {
            return Err(err);
        }
        let failure = match result {
            Ok(()) => de.end().err(),
            Err(e) => Some(e),
        };
        if let Some(e) = failure {
            let ev = EventError::from_serde(text, &e);
            let (line, column) = cursor.locate(ev.offset.min(text.len()));
            let truncated = ev.class == Category::Eof;
            return self.fail(LogError {
                line,
                column,
                index: None,
                code: if truncated { LogErrorCode::Truncated } else { LogErrorCode::InvalidJson },
                message: if truncated {
                    format!("the array ends early: {} complete events kept", self.events)
                } else {
                    ev.message
                },
                kind: None,
                field: None,
            });
        }
        Ok(())
    }
}

struct ArraySeed<'r, 't, 'c> {
    reader: &'r mut LogReader,
    text: &'t str,
    cursor: &'c mut LineCursor<'t>,
    sink: &'r mut dyn EventSink,
    stop: &'r mut Option<LogError>,
}

impl<'de> DeserializeSeed<'de> for ArraySeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ArraySeed<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of events")
    }
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "an element's index and offsets count within the array's text, held in memory"
    )]
    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0usize;
        while let Some(raw) = seq.next_element::<&'de RawValue>()? {
            if let Err(err) = self.element(raw.get(), index) {
                *self.stop = Some(err);
                return Err(de::Error::custom("stopped at the first error (strict)"));
            }
            index += 1;
        }
        Ok(())
    }
}

impl ArraySeed<'_, '_, '_> {
    /// One element: an event, or a stored entry when the array's first
    /// element is one. `Err` only to stop (strict).
    fn element(&mut self, element: &str, index: usize) -> Result<(), LogError> {
        if index == 0 && detect_line_framing(element) == Some(Framing::StoredEntries) {
            self.reader.framing = Some(Framing::StoredEntriesArray);
        }
        let event_text = if self.reader.framing == Some(Framing::StoredEntriesArray) {
            match self.reader.entry(element) {
                Ok((event_text, seq_problem)) => {
                    if let Some(err) = seq_problem {
                        let err = self.place(err, element, 0, index);
                        self.reader.fail(err)?;
                    }
                    event_text
                }
                Err(err) => {
                    let offset = err.column;
                    let err = self.place(err, element, offset, index);
                    return self.reader.fail(err);
                }
            }
        } else {
            element
        };
        match self.reader.parse(event_text, None) {
            Ok(ref event) => match self.reader.deliver(event_text, event.as_ref(), self.sink) {
                Ok(()) => Ok(()),
                Err(why) => {
                    let (line, column) = self.cursor.locate(offset_in(self.text, event_text));
                    self.reader.fail(rejected(line, column, Some(index), why))
                }
            },
            Err(e) => {
                let err = LogError {
                    line: 0,
                    column: 0,
                    index: None,
                    code: code_of(&e),
                    message: e.message,
                    kind: e.kind,
                    field: e.field,
                };
                let err = self.place(err, event_text, e.offset, index);
                self.reader.fail(err)
            }
        }
    }

    /// `err`, found at byte `offset` of `part` (a part of the array's text),
    /// with its line, column and element index in the array.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "an offset in `part` plus where `part` starts is an offset in the array's text"
    )]
    fn place(&mut self, mut err: LogError, part: &str, offset: usize, index: usize) -> LogError {
        (err.line, err.column) = self.cursor.locate(offset_in(self.text, part) + offset);
        err.index = Some(index);
        err
    }
}

/// The first line of `b` (without its newline) and what follows the
/// newline; `None` when `b` holds no newline.
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    reason = "`i` is the index of a byte of `b`: `i + 1 <= b.len()`"
)]
fn split_line(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let i = find_byte(b, b'\n')?;
    Some((&b[..i], &b[i + 1..]))
}

/// `split_line` of a string. With WebAssembly SIMD, by `find_byte`'s
/// sixteen bytes at a time (std's `memchr` reads two words at a time: four
/// bytes each on wasm32, eight natively, where it is kept). A newline is one
/// byte of UTF-8 and never part of another character: both parts are
/// strings.
fn split_line_str(text: &str) -> Option<(&str, &str)> {
    if cfg!(all(target_arch = "wasm32", target_feature = "simd128")) {
        let i = find_byte(text.as_bytes(), b'\n')?;
        Some((text.get(..i)?, text.get(i.checked_add(1)?..)?))
    } else {
        text.split_once('\n')
    }
}

/// Where `inner`, a part of `outer`, starts in it.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "`inner` borrows from `outer`: its address is not below `outer`'s"
)]
fn offset_in(outer: &str, inner: &str) -> usize {
    inner.as_ptr() as usize - outer.as_ptr() as usize
}

/// The longest start of `bytes` that is UTF-8 (empty bytes: empty).
fn valid_prefix(bytes: &[u8]) -> &str {
    bytes.utf8_chunks().next().map_or("", |chunk| chunk.valid())
}

fn invalid_utf8(line: usize, column: usize) -> LogError {
    LogError {
        line,
        column,
        index: None,
        code: LogErrorCode::InvalidUtf8,
        message: "invalid UTF-8".into(),
        kind: None,
        field: None,
    }
}

fn rejected(line: usize, column: usize, index: Option<usize>, why: Rejected) -> LogError {
    let (code, message, kind, field) = match why {
        Rejected::UnknownKind(kind) => {
            let message = format!("unknown event kind `{kind}` (strict mode)");
            (LogErrorCode::UnknownKind, message, Some(kind), Some("kind".into()))
        }
        Rejected::Refused(kind, why) => (LogErrorCode::LimitExceeded, why, Some(kind), None),
        Rejected::ShortOfMemory => {
            let why = "the memory limit was reached here: the read stopped".into();
            (LogErrorCode::LimitExceeded, why, None, None)
        }
    };
    LogError { line, column, index, code, message, kind, field }
}

fn code_of(e: &EventError) -> LogErrorCode {
    match e.class {
        Category::Eof => LogErrorCode::Truncated,
        Category::Syntax | Category::Io => LogErrorCode::InvalidJson,
        Category::Data => LogErrorCode::InvalidEvent,
    }
}

/// Whether a whole log is a JSON array: its first byte after a BOM that is
/// not whitespace is `[`.
fn starts_array(b: &[u8]) -> bool {
    Lead::Start.read(b) == Some(true)
}

/// What the start of a log has shown, byte by byte: whether it is a JSON
/// array is known at its first byte that is neither whitespace nor part of a
/// leading BOM. Chunks are read as they come, each byte once.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Lead {
    /// Nothing yet.
    #[default]
    Start,
    /// The start of a BOM; these bytes of it are still to come.
    Bom(&'static [u8]),
    /// A BOM or whitespace, then only whitespace.
    Blank,
    /// The first significant byte was seen: whether it opens an array.
    Known(bool),
}

impl Lead {
    /// Reads the next bytes of the log: whether it is a JSON array, once
    /// that is known.
    fn read(&mut self, bytes: &[u8]) -> Option<bool> {
        for &b in bytes {
            *self = match (*self, b) {
                (Lead::Known(_), _) => break,
                (Lead::Start, 0xEF) => Lead::Bom(b"\xBB\xBF"),
                (Lead::Bom([next, rest @ ..]), b) if b == *next => {
                    if rest.is_empty() {
                        Lead::Blank
                    } else {
                        Lead::Bom(rest)
                    }
                }
                (Lead::Start | Lead::Blank, b) if b.is_ascii_whitespace() => Lead::Blank,
                (_, b) => Lead::Known(b == b'['),
            };
        }
        match *self {
            Lead::Known(array) => Some(array),
            _ => None,
        }
    }
}

/// Stored entries when the first parsable line has `event` and no `kind`.
fn detect_line_framing(line: &str) -> Option<Framing> {
    let keys: Keys = crate::event::objects::from_str(line).ok()?;
    Some(if keys.event && !keys.kind { Framing::StoredEntries } else { Framing::JsonLines })
}

/// Which of `event` and `kind` an object has; every value is skipped
/// unread (no map of the keys is built).
#[derive(Default)]
struct Keys {
    event: bool,
    kind: bool,
}

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(KeysVisitor)
    }
}

struct KeysVisitor;

impl<'de> Visitor<'de> for KeysVisitor {
    type Value = Keys;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
        let mut keys = Keys::default();
        while let Some(key) = map.next_key::<Str<'de>>()? {
            match &*key {
                "event" => keys.event = true,
                "kind" => keys.kind = true,
                _ => {}
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(keys)
    }
}
