//! Full-text search over the retained event texts: the positions of the
//! events whose JSON text holds a query, ASCII letters matched in either
//! case. The scan runs over whole segments with memchr (SIMD where the
//! target has it), not event by event.

use memchr::{memchr, memchr2};

/// What a search looks for.
pub struct Query<'q> {
    needle: &'q [u8],
    /// The byte of the needle the scan looks for: the rarest in event
    /// texts (`commonness`), so that fewer places need a full comparison.
    anchor: usize,
    /// That byte in both cases (the same twice when not a letter).
    anchor_bytes: (u8, u8),
}

/// How common a byte is in event texts, roughly: JSON's punctuation and
/// space first, then the letters in English order of frequency (either
/// case), digits and `_`; other bytes are rare.
fn commonness(b: u8) -> usize {
    const LETTERS: &[u8] = b"etaoinsrhldcumfpgwybvkxjqz";
    match b.to_ascii_lowercase() {
        b'"' | b':' | b',' | b' ' => 40,
        b'_' | b'0'..=b'9' => 20,
        l => LETTERS.iter().position(|&c| c == l).map_or(0, |rank| 30usize.saturating_sub(rank)),
    }
}

impl<'q> Query<'q> {
    /// `None` for an empty query.
    pub fn new(text: &'q str) -> Option<Self> {
        let needle = text.as_bytes();
        let (anchor, &b) = needle.iter().enumerate().min_by_key(|(_, &b)| commonness(b))?;
        let anchor_bytes = (b.to_ascii_lowercase(), b.to_ascii_uppercase());
        Some(Query { needle, anchor, anchor_bytes })
    }

    /// The byte offset of the first match in `hay` at or after `from`.
    pub fn find(&self, hay: &[u8], from: usize) -> Option<usize> {
        let mut look = from.checked_add(self.anchor)?;
        loop {
            let found = look.checked_add(self.candidate(hay.get(look..)?)?)?;
            let at = found.checked_sub(self.anchor)?;
            let end = at.checked_add(self.needle.len())?;
            if hay.get(at..end).is_some_and(|m| m.eq_ignore_ascii_case(self.needle)) {
                return Some(at);
            }
            look = found.checked_add(1)?;
        }
    }

    /// Where the anchor byte occurs next, in either case.
    fn candidate(&self, hay: &[u8]) -> Option<usize> {
        let (lower, upper) = self.anchor_bytes;
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
    fn the_scan_looks_for_the_rarest_byte_and_finds_every_match() {
        let q = Query::new("tool_gated").unwrap();
        assert_eq!(q.needle[q.anchor], b'g', "g is rarer than t, o, l, a, e, d and _");
        let hay = b"xx tool_gated tool_gatex TOOL_GATED";
        assert_eq!(q.find(hay, 0), Some(3));
        assert_eq!(q.find(hay, 4), Some(25));
        assert_eq!(q.find(hay, 26), None);
        assert_eq!(Query::new("g").unwrap().find(b"gg", 1), Some(1));
    }

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
