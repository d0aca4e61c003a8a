//! The one error vocabulary of agent-replay: every code any layer throws or
//! answers (the JS API, the edge handler), with its HTTP status and what it
//! means, in one table ([`ErrorCode::ALL`]) from which the bindings export
//! the JS table and against which the tests check the TypeScript union and
//! the docs. The per-line codes of a loaded log are another vocabulary:
//! positions in a log ([`crate::log::LogErrorCode`]).

use serde::Serialize;

use crate::event::EventError;
use crate::json::{JsonOut, WriteJson};
use crate::log::LogError;

/// Declares `ErrorCode` and its table from one list: variant, wire string,
/// HTTP status, description.
macro_rules! error_codes {
    ($($variant:ident = $code:literal, $status:literal, $doc:literal;)*) => {
        /// A stable error code (`snake_case` on the wire).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
        #[serde(rename_all = "snake_case")]
        pub enum ErrorCode {
            $(#[doc = $doc] $variant,)*
        }

        impl ErrorCode {
            /// Every code, in the order of the docs.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The code as JS and HTTP bodies carry it.
            pub const fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $code,)* }
            }

            /// The HTTP status the edge handler answers it with.
            pub const fn http_status(self) -> u16 {
                match self { $(ErrorCode::$variant => $status,)* }
            }

            /// What it means, in one line.
            pub const fn description(self) -> &'static str {
                match self { $(ErrorCode::$variant => $doc,)* }
            }
        }
    };
}

error_codes! {
    InvalidInput = "invalid_input", 400,
        "An argument of the wrong type or range.";
    InvalidLog = "invalid_log", 400,
        "A log with errors; `errors` lists each with its position.";
    InvalidEvent = "invalid_event", 400,
        "An event that is not a valid event.";
    InvalidObservation = "invalid_observation", 400,
        "Something given as an observation or a session view that is not one.";
    MalformedCursor = "malformed_cursor", 400,
        "Not a cursor this library wrote.";
    WrongSession = "wrong_session", 400,
        "A cursor of another session than the one asked about.";
    InvalidSessionId = "invalid_session_id", 400,
        "A session id that is empty or holds CR, LF or NUL.";
    LimitExceeded = "limit_exceeded", 413,
        "Past a configured bound: an event, a body or a batch of events, or the WebAssembly memory budget.";
    StoreFull = "store_full", 503,
        "A new session refused: every session the store holds has live subscribers; retry later.";
    Closed = "closed", 500,
        "An object used after `free()` (a defect of the code holding it).";
    Forbidden = "forbidden", 403,
        "Refused: by the edge handler's `authorize` hook, or by `serve` for a state-changing request from another origin.";
    InvalidRequest = "invalid_request", 400,
        "An HTTP request whose target is no URL (bad percent-encoding, a bad Host).";
    NotFound = "not_found", 404,
        "No edge route at this path.";
    MethodNotAllowed = "method_not_allowed", 405,
        "An edge route that does not take this method.";
    TooManyStreams = "too_many_streams", 429,
        "Past the edge handler's open-stream bound for the session or the client.";
    UnsupportedHost = "unsupported_host", 500,
        "A host whose WebAssembly lacks SIMD (simd128), which the package's .wasm needs.";
    MisdirectedRequest = "misdirected_request", 421,
        "A request to `serve` whose Host header is none of its own names (as a DNS-rebinding page sends).";
    Unauthorized = "unauthorized", 401,
        "A request to a `serve` that has a read token, without the token.";
    StorageFull = "storage_full", 507,
        "The storage of durable sessions is out of space (a full disk): nothing of the refused batch is stored.";
    StorageUnavailable = "storage_unavailable", 503,
        "The storage of durable sessions cannot be reached or is not the one the cursors name (a database down, restarting or replaced); retry later.";
    Internal = "internal", 500,
        "A defect in agent-replay or the host: not the caller's fault.";
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error as the API reports it: a code, a message, and for `invalid_log`
/// every load error with its position. Serialised as `{code, message, errors?}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    /// Left out of the JSON when empty.
    pub errors: Vec<LogError>,
}

impl WriteJson for ErrorCode {
    fn write_json(&self, out: &mut JsonOut) {
        out.string(self.as_str());
    }
}

impl WriteJson for Error {
    fn write_json(&self, out: &mut JsonOut) {
        out.raw("{");
        out.key("code");
        self.code.write_json(out);
        out.key("message");
        self.message.write_json(out);
        if !self.errors.is_empty() {
            out.key("errors");
            self.errors.write_json(out);
        }
        out.raw("}");
    }
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error { code, message: message.into(), errors: Vec::new() }
    }

    /// `invalid_log` with every load error; `what` says what the log was for.
    pub fn invalid_log(what: &str, errors: Vec<LogError>) -> Self {
        let first = errors.first().map(ToString::to_string).unwrap_or_default();
        let message = format!("{what}{} error(s) in the log; first at {first}", errors.len());
        Error { code: ErrorCode::InvalidLog, message, errors }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

impl From<LogError> for Error {
    /// A log that cannot be read at all (strict mode's first error); a read
    /// stopped short of memory (`crate::memory`) is `limit_exceeded`.
    fn from(e: LogError) -> Self {
        let code = if e.code == crate::log::LogErrorCode::LimitExceeded {
            ErrorCode::LimitExceeded
        } else {
            ErrorCode::InvalidLog
        };
        Error { code, message: e.to_string(), errors: vec![e] }
    }
}

impl From<EventError> for Error {
    fn from(e: EventError) -> Self {
        let message = match &e.field {
            Some(field) => format!("invalid event, field `{field}`: {}", e.message),
            None => format!("invalid event: {}", e.message),
        };
        Error::new(ErrorCode::InvalidEvent, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_consistent() {
        let mut seen = std::collections::HashSet::new();
        for &code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "{code} twice");
            let wire = serde_json::to_string(&code).unwrap_or_default();
            assert_eq!(wire, format!("\"{}\"", code.as_str()), "serde and as_str agree");
            assert!((400..600).contains(&code.http_status()), "{code}");
            assert!(code.description().ends_with('.'), "{code}");
        }
        assert_eq!(ErrorCode::StoreFull.http_status(), 503);
    }
}
