//! Full-text search over the retained event texts: the positions of the
//! events whose JSON text holds a query, ASCII letters matched in either
//! case. The scan runs over whole segments with memchr (SIMD where the
//! target has it), not event by event.

use memchr::{memchr, memchr2};

/// What a search looks for.
pub struct Query<'q> {
    needle: &'q [u8],
    /// The first byte in both cases (the same twice when not a letter).
    first: (u8, u8),
}

impl<'q> Query<'q> {
    /// `None` for an empty query.
    pub fn new(text: &'q str) -> Option<Self> {
        let needle = text.as_bytes();
        let &b = needle.first()?;
        Some(Query { needle, first: (b.to_ascii_lowercase(), b.to_ascii_uppercase()) })
    }

    /// The byte offset of the first match in `hay` at or after `from`.
    pub fn find(&self, hay: &[u8], mut from: usize) -> Option<usize> {
        loop {
            let rest = hay.get(from..)?;
            let at = from.checked_add(self.candidate(rest)?)?;
            let end = at.checked_add(self.needle.len())?;
            if hay.get(at..end).is_some_and(|m| m.eq_ignore_ascii_case(self.needle)) {
                return Some(at);
            }
            from = at.checked_add(1)?;
        }
    }

    /// Where the first byte occurs next, in either case.
    fn candidate(&self, hay: &[u8]) -> Option<usize> {
        let (lower, upper) = self.first;
        if lower == upper {
            memchr(lower, hay)
        } else {
            memchr2(lower, upper, hay)
        }
    }

    /// The query's length in bytes (never 0).
    pub fn byte_len(&self) -> usize {
        self.needle.len()
    }
}

/// True when `text` holds `query` (either case for ASCII letters).
pub fn holds(text: &str, query: &Query<'_>) -> bool {
    query.find(text.as_bytes(), 0).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_letters_in_either_case_and_other_bytes_exactly() {
        let q = Query::new("Tool_Gated").unwrap();
        assert_eq!(q.find(b"{\"kind\":\"tool_gated\"}", 0), Some(9));
        assert_eq!(q.find(b"{\"kind\":\"tool_gated\"}", 10), None);
        let q = Query::new("\u{e9}t\u{e9}").unwrap();
        assert!(holds("un \u{e9}t\u{e9} chaud", &q));
        assert!(!holds("un \u{c9}T\u{c9} chaud", &q), "beyond ASCII, bytes match exactly");
        assert!(Query::new("").is_none());
    }
}
