//! Load errors with their positions.

crate::view::readable! {
    /// What kind of problem a load error is; stable strings for callers.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum LogErrorCode as names {
        /// Not JSON at all (a syntax error).
        InvalidJson = "invalid_json",
        /// JSON, but not a valid event (type, missing field, bad enum value).
        InvalidEvent = "invalid_event",
        /// A kind this version does not know (an error only in strict mode).
        UnknownKind = "unknown_kind",
        /// The last line ends mid-event: its writer stopped mid-append.
        Truncated = "truncated",
        /// The bytes of a line are not UTF-8.
        InvalidUtf8 = "invalid_utf8",
        /// A stored-entry line is not `{"seq", "event"}`.
        InvalidEntry = "invalid_entry",
        /// Stored-entry `seq` skipped numbers: entries are missing.
        SeqGap = "seq_gap",
        /// Stored-entry `seq` went backwards or repeated.
        SeqDisorder = "seq_disorder",
        /// A valid event the live store refused: larger than its `maxEventBytes`.
        LimitExceeded = "limit_exceeded",
    }
}

crate::view::readable! {
    /// One problem in a log, with where it is. `line` and `column` are 1-based;
    /// the column counts characters. `index` is the element index in a JSON array.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct LogError {
        pub line: usize,
        pub column: usize,
        pub index: Option<usize> = omit_none,
        pub code: LogErrorCode,
        pub message: String,
        pub kind: Option<String> = omit_none,
        pub field: Option<String> = omit_none,
    }
}

impl std::fmt::Display for LogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)?;
        if let Some(i) = self.index {
            write!(f, " (element {i})")?;
        }
        if let Some(field) = &self.field {
            write!(f, ", field `{field}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LogError {}
