//! Turning byte offsets into 1-based lines and character columns, on the
//! error path only.

/// Character column (1-based) of the end of `prefix`, a line's start.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "a count of the characters of a string held in memory is below usize::MAX"
)]
pub fn char_column(prefix: &str) -> usize {
    prefix.chars().count() + 1
}

/// Character column (1-based) of a byte offset in a line, backing off to a
/// character boundary (offsets from parsers need not fall on one).
pub fn column_at(line: &str, byte: usize) -> usize {
    char_column(prefix_at(line, byte))
}

/// The longest start of `text` of at most `byte` bytes.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "0 is a character boundary: `end` stops there at the latest"
)]
pub fn prefix_at(text: &str, byte: usize) -> &str {
    let mut end = byte.min(text.len());
    loop {
        if let Some(prefix) = text.get(..end) {
            return prefix;
        }
        end -= 1;
    }
}

/// Locates offsets in a text in increasing order, each step counting only
/// the bytes since the last: O(n) over any number of errors.
pub struct LineCursor<'t> {
    text: &'t str,
    offset: usize,
    line: usize,
    line_start: usize,
}

impl<'t> LineCursor<'t> {
    pub fn new(text: &'t str) -> Self {
        LineCursor { text, offset: 0, line: 1, line_start: 0 }
    }

    /// (line, column) of a byte offset; restarts if asked to go backwards.
    #[allow(
        clippy::arithmetic_side_effects,
        clippy::indexing_slicing,
        reason = "`self.offset` and `self.line_start` are offsets of `before`, the latter just \
                  after a newline: on a character boundary; lines count newlines of a text \
                  held in memory"
    )]
    pub fn locate(&mut self, offset: usize) -> (usize, usize) {
        let before = prefix_at(self.text, offset);
        if before.len() < self.offset {
            *self = LineCursor::new(self.text);
        }
        let seen = self.offset;
        for (i, &b) in before.as_bytes()[seen..].iter().enumerate() {
            if b == b'\n' {
                self.line += 1;
                self.line_start = seen + i + 1;
            }
        }
        self.offset = before.len();
        (self.line, char_column(&before[self.line_start..]))
    }
}
