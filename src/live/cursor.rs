//! Session cursors: `arc1:{incarnation}:{revision}:{position}:{session_id}`.
//! Users treat them as opaque; only this module reads them, and it reads
//! only the canonical form, so one position has exactly one cursor.

use std::fmt;

use crate::error::{Error, ErrorCode};
use crate::json::MAX_SAFE_INTEGER;
use crate::units::{Position, Revision};

/// What every cursor starts with (the format's version).
const PREFIX: &str = "arc1:";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionCursor {
    pub incarnation: String,
    pub revision: Revision,
    pub position: Position,
    pub session_id: String,
}

/// Why a cursor cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CursorError {
    /// Not a cursor this library wrote.
    Malformed { reason: &'static str },
    /// A cursor of another session than the one asked about.
    WrongSession { expected: String, found: String },
}

impl fmt::Display for CursorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CursorError::Malformed { reason } => write!(f, "malformed cursor: {reason}"),
            CursorError::WrongSession { expected, found } => {
                write!(f, "cursor of session {found:?} used for session {expected:?}")
            }
        }
    }
}

impl std::error::Error for CursorError {}

impl CursorError {
    pub fn code(&self) -> ErrorCode {
        match self {
            CursorError::Malformed { .. } => ErrorCode::MalformedCursor,
            CursorError::WrongSession { .. } => ErrorCode::WrongSession,
        }
    }
}

impl From<CursorError> for Error {
    fn from(e: CursorError) -> Self {
        Error::new(e.code(), e.to_string())
    }
}

/// Characters a cursor (an SSE `id:` line, a URL part) must never hold.
pub fn has_forbidden_char(s: &str) -> bool {
    s.bytes().any(|b| matches!(b, b'\r' | b'\n' | 0))
}

/// An incarnation: non-empty URL-safe characters (RFC 3986 unreserved).
pub fn is_valid_incarnation(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// A session id usable in a cursor: non-empty, no CR, LF or NUL.
pub fn is_valid_session_id(s: &str) -> bool {
    !s.is_empty() && !has_forbidden_char(s)
}

/// A canonical decimal integer in [0, 2^53-1]: no sign, no leading zeros.
fn canonical_u53(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.is_empty()
        || b.len() > 16
        || !b.iter().all(u8::is_ascii_digit)
        || (b.len() > 1 && b.first() == Some(&b'0'))
    {
        return None;
    }
    s.parse::<u64>().ok().filter(|&n| n <= MAX_SAFE_INTEGER)
}

impl SessionCursor {
    pub fn new(
        incarnation: &str,
        revision: Revision,
        position: Position,
        session_id: &str,
    ) -> Self {
        SessionCursor {
            incarnation: incarnation.into(),
            revision,
            position,
            session_id: session_id.into(),
        }
    }

    pub fn parse(text: &str) -> Result<Self, CursorError> {
        let bad = |reason| Err(CursorError::Malformed { reason });
        if has_forbidden_char(text) {
            return bad("contains CR, LF or NUL");
        }
        let Some(rest) = text.strip_prefix(PREFIX) else {
            return bad("does not start with arc1:");
        };
        let mut parts = rest.splitn(4, ':');
        let (Some(incarnation), Some(revision), Some(position), Some(session_id)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return bad("has fewer than five parts");
        };
        if !is_valid_incarnation(incarnation) {
            return bad("incarnation is empty or not URL-safe");
        }
        let Some(revision) = canonical_u53(revision) else {
            return bad("revision is not a canonical integer in [0, 2^53-1]");
        };
        let Some(position) = canonical_u53(position) else {
            return bad("position is not a canonical integer in [0, 2^53-1]");
        };
        if session_id.is_empty() {
            return bad("session id is empty");
        }
        Ok(SessionCursor::new(incarnation, Revision(revision), Position(position), session_id))
    }

    /// Parses and checks the cursor belongs to `session_id`.
    pub fn parse_for_session(text: &str, session_id: &str) -> Result<Self, CursorError> {
        let cursor = Self::parse(text)?;
        if cursor.session_id != session_id {
            return Err(CursorError::WrongSession {
                expected: session_id.into(),
                found: cursor.session_id,
            });
        }
        Ok(cursor)
    }
}

impl fmt::Display for SessionCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_cursor(f, &self.incarnation, self.revision, self.position, &self.session_id)
    }
}

/// Formats a cursor without building a `SessionCursor`.
pub fn format_cursor(
    incarnation: &str,
    revision: Revision,
    position: Position,
    session_id: &str,
) -> String {
    let mut out = String::new();
    let _ = write_cursor(&mut out, incarnation, revision, position, session_id);
    out
}

/// Writes a cursor: the one place its format is spelled (pieces and
/// `itoa`, not `write!`: the wire to JS writes one per event).
pub fn write_cursor(
    out: &mut impl fmt::Write,
    incarnation: &str,
    revision: Revision,
    position: Position,
    session_id: &str,
) -> fmt::Result {
    let mut digits = itoa::Buffer::new();
    out.write_str(PREFIX)?;
    out.write_str(incarnation)?;
    out.write_char(':')?;
    out.write_str(digits.format(revision.0))?;
    out.write_char(':')?;
    out.write_str(digits.format(position.0))?;
    out.write_char(':')?;
    out.write_str(session_id)
}
