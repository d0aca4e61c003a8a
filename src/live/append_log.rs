//! Appending a whole log to the store, tolerantly: every valid event the
//! store accepts is appended, and every problem is reported where it is in
//! the log: the load errors, and each event the store refused (larger than
//! `max_event_bytes`), so that nothing is dropped without a word.

use super::store::{AppendError, ReplayStore};
use crate::error::Error;
use crate::event::SessionEvent;
use crate::log::{self, LogError, LogErrorCode, LogOptions};
use crate::units::Millis;

/// What `append_log` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppendLogReport {
    /// Events appended.
    pub appended: usize,
    /// The log's load errors and the events refused, in log order.
    pub errors: Vec<LogError>,
    /// The session's current cursor, after the appends.
    pub cursor: String,
}

/// Places the events of a log's bytes that the store refused: lines and
/// character columns (1-based) of increasing offsets, each counting only the
/// bytes since the last.
struct Locator<'a> {
    bytes: &'a [u8],
    /// Where the last event placed ended.
    end: usize,
    offset: usize,
    line: usize,
    column: usize,
}

impl<'a> Locator<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Locator { bytes, end: 0, offset: 0, line: 1, column: 1 }
    }

    /// Where an event's text sits in the bytes. The reader hands out slices
    /// of the input (a UTF-8 input, complete lines of any input); the rest
    /// (an unterminated last line or an array, of non-UTF-8 input) it copied,
    /// and the text is then its first copy after the last event placed.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "offsets and lengths of texts held in memory: below isize::MAX"
    )]
    fn place(&mut self, text: &str) -> (usize, usize) {
        let mut at = (text.as_ptr() as usize).wrapping_sub(self.bytes.as_ptr() as usize);
        if at >= self.bytes.len() {
            let needle = text.as_bytes();
            let mut windows = self.bytes.windows(needle.len().max(1)).skip(self.end);
            // Found: the reader's copies are verbatim parts of the input (were
            // one not, it would be placed where the last event ended).
            at = self.end + windows.position(|w| w == needle).unwrap_or(0);
        }
        self.end = at + text.len();
        self.locate(at)
    }

    #[allow(
        clippy::arithmetic_side_effects,
        reason = "lines and columns count bytes of an input held in memory"
    )]
    fn locate(&mut self, offset: usize) -> (usize, usize) {
        for &b in self.bytes.iter().take(offset).skip(self.offset) {
            if b == b'\n' {
                self.line += 1;
                self.column = 1;
            } else if b & 0xC0 != 0x80 {
                // Not a UTF-8 continuation byte: a character starts here.
                self.column += 1;
            }
        }
        self.offset = self.offset.max(offset);
        (self.line, self.column)
    }
}

impl ReplayStore {
    /// Appends every valid event of a log (any framing) that the store
    /// accepts. A session the store has no room for (`store_full`) is an
    /// error: it can only refuse the first event, so nothing was appended.
    pub fn append_log(
        &mut self,
        session_id: &str,
        bytes: &[u8],
        now: Millis,
    ) -> Result<AppendLogReport, Error> {
        if !super::cursor::is_valid_session_id(session_id) {
            return Err(AppendError::InvalidSessionId.into());
        }
        let mut appended = 0usize;
        let mut refused = Vec::new();
        let mut fatal = None;
        let mut locator = Locator::new(bytes);
        let mut sink = |json: &str, event: SessionEvent<'_>| {
            if fatal.is_some() {
                return;
            }
            match self.append_checked(session_id, json, event.turn(), None, now) {
                #[allow(
                    clippy::arithmetic_side_effects,
                    reason = "at most one event per byte of an input held in memory"
                )]
                Ok(_) => appended += 1,
                Err(e @ AppendError::EventTooLarge(_)) => {
                    let (line, column) = locator.place(json);
                    refused.push(LogError {
                        line,
                        column,
                        index: None,
                        code: LogErrorCode::LimitExceeded,
                        message: e.to_string(),
                        kind: Some(event.kind().to_string()),
                        field: None,
                    });
                }
                Err(e) => fatal = Some(e),
            }
        };
        let report = log::read_bytes(bytes, LogOptions::default(), &mut sink)?;
        if let Some(e) = fatal {
            return Err(e.into());
        }
        let mut errors = report.errors;
        errors.extend(refused);
        errors.sort_by_key(|e| (e.line, e.column));
        Ok(AppendLogReport { appended, errors, cursor: self.current_cursor(session_id, None) })
    }
}
