//! Turning byte offsets into 1-based lines and character columns, on the
//! error path only.

/// Character column (1-based) of the end of `prefix`, a line's start.
pub fn char_column(prefix: &str) -> usize {
    prefix.chars().count().saturating_add(1)
}

/// Character column (1-based) of a byte offset in a line, backing off to a
/// character boundary (offsets from parsers need not fall on one).
pub fn column_at(line: &str, byte: usize) -> usize {
    let mut end = byte.min(line.len());
    while !line.is_char_boundary(end) {
        end = end.saturating_sub(1);
    }
    char_column(line.get(..end).unwrap_or_default())
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
    pub fn locate(&mut self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset = offset.saturating_sub(1);
        }
        if offset < self.offset {
            *self = LineCursor::new(self.text);
        }
        let span = self.text.as_bytes().get(self.offset..offset).unwrap_or_default();
        for (i, &b) in span.iter().enumerate() {
            if b == b'\n' {
                self.line = self.line.saturating_add(1);
                self.line_start = self.offset.saturating_add(i).saturating_add(1);
            }
        }
        self.offset = offset;
        (self.line, char_column(self.text.get(self.line_start..offset).unwrap_or_default()))
    }
}
