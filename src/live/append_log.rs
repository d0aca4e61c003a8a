//! Appending a whole log to the store, tolerantly: every valid event the
//! store accepts is appended, and every problem is reported where it is in
//! the log: the load errors, and each event the store refused (larger than
//! `max_event_bytes`), which the reader places like a load error, so that
//! nothing is dropped without a word. Short of memory, the read stops
//! (`crate::memory`): the events before are appended, and reported so.

use super::store::{AppendError, ReplayStore};
use crate::error::Error;
use crate::event::SessionEvent;
use crate::log::{EventSink, LogError, LogOptions, LogReader};
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

/// Appends each event the reader delivers; refuses one past the store's
/// bounds (the reader reports it where it is) and stops at a refusal that
/// is no event's fault (the store is full).
struct Appender<'s> {
    store: &'s mut ReplayStore,
    session_id: &'s str,
    now: Millis,
    appended: usize,
    fatal: Option<AppendError>,
}

impl Appender<'_> {
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "counts events of one input held in memory: below usize::MAX"
    )]
    fn count_appended(&mut self) {
        self.appended += 1;
    }
}

impl EventSink for Appender<'_> {
    fn event(&mut self, json: &str, event: &SessionEvent<'_>) -> Result<(), String> {
        if self.fatal.is_some() {
            return Ok(());
        }
        match self.store.append_checked(self.session_id, json, event.turn(), None, self.now) {
            Ok(_) => {
                self.count_appended();
                Ok(())
            }
            Err(e @ (AppendError::EventTooLarge(_) | AppendError::ShortOfMemory)) => {
                Err(e.to_string())
            }
            Err(e) => {
                self.fatal = Some(e);
                Ok(())
            }
        }
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
        let mut appender = Appender { store: self, session_id, now, appended: 0, fatal: None };
        // Tolerant, the reader stops only short of memory (`crate::memory`):
        // what it appended before is reported, with the error saying where
        // it stopped.
        let mut reader = LogReader::new(LogOptions::default());
        let read = reader.push(bytes, &mut appender).and_then(|()| reader.finish(&mut appender));
        let mut errors = reader.errors().to_vec();
        errors.extend(read.err());
        let appended = appender.appended;
        if let Some(e) = appender.fatal {
            return Err(e.into());
        }
        let cursor = self.current_cursor(session_id, None);
        Ok(AppendLogReport { appended, errors, cursor })
    }
}
