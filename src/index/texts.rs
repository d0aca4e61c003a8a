//! The event texts a paged index retains: each event's JSON as written,
//! kept once. They sit in segments that are never reallocated: one growing
//! buffer would copy the whole log at each doubling and hold it twice at
//! the peak, which a 1 GB log in a 4 GiB WebAssembly memory cannot afford.
//! A whole log handed over (`adopt`), or a chunk of one written in pieces,
//! becomes a segment as it is: its texts are not copied, and it holds what
//! lies between them too (newlines, stored entries' `seq`, an array's
//! commas). A text no such segment holds (an event split across two
//! chunks) is copied, into a segment of copies: each segment's texts are
//! the events of one run of positions, which a search of a segment relies
//! on.

use crate::memory;

/// The largest segment; an event longer than this gets a segment of its own.
const MAX_SEGMENT: usize = 8 << 20;
/// The first segment: a small log takes little memory.
const FIRST_SEGMENT: usize = 64 << 10;

/// Where one event's text is: its segment, its byte offset and length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub segment: u32,
    pub start: u32,
    pub len: u32,
}

impl Span {
    /// The byte offset just past the text in its segment.
    pub fn end(self) -> usize {
        (self.start as usize).saturating_add(self.len as usize)
    }
}

/// The retained texts, so that a search can run over a whole segment: each
/// copied text followed by a newline, an adopted log as it is.
#[derive(Debug, Default)]
pub struct RetainedTexts {
    segments: Vec<String>,
    /// Whether the last segment takes copies: not when it was handed over.
    copying: bool,
    /// Bytes copied so far: the next segment for copies is as large, so
    /// that many copies take few segments however many chunks were handed
    /// over between them.
    copied: usize,
}

impl RetainedTexts {
    /// A segment for a whole log to be kept as it is (`adopt`), empty until
    /// then; its index.
    pub fn reserve_segment(&mut self) -> Option<u32> {
        let index = u32::try_from(self.segments.len()).ok()?;
        self.segments.push(String::new());
        self.copying = false;
        Some(index)
    }

    /// Keeps `log` as the segment `index` reserved for it.
    pub fn adopt(&mut self, index: u32, log: String) {
        if let Some(segment) = self.segments.get_mut(index as usize) {
            *segment = log;
        }
    }

    /// Keeps a text; `None` when it is too long to address (4 GiB) or a new
    /// segment is refused, past the memory limit (`crate::memory`).
    pub fn push(&mut self, text: &str) -> Option<Span> {
        let len = u32::try_from(text.len()).ok()?;
        let need = text.len().checked_add(1)?;
        let fits = self.copying && self.segments.last().is_some_and(|s| spare(s) >= need);
        if !fits {
            // After a segment handed over, a text that straddled two chunks
            // is most often the only copy before the next one: no more room.
            let after_adopted = !self.copying && !self.segments.is_empty();
            let grown =
                if after_adopted { 0 } else { self.copied.clamp(FIRST_SEGMENT, MAX_SEGMENT) };
            let size = grown.max(need);
            let mut segment = String::new();
            memory::fallibly(&mut || segment.try_reserve_exact(size).is_ok()).ok()?;
            self.segments.push(segment);
            self.copying = true;
        }
        self.copied = self.copied.saturating_add(need);
        let segment = u32::try_from(self.segments.len().checked_sub(1)?).ok()?;
        let buffer = self.segments.last_mut()?;
        let start = u32::try_from(buffer.len()).ok()?;
        buffer.push_str(text);
        buffer.push('\n');
        Some(Span { segment, start, len })
    }

    /// The text at `span`.
    pub fn get(&self, span: Span) -> Option<&str> {
        self.segments.get(span.segment as usize)?.get(span.start as usize..span.end())
    }

    /// The segment `index` (texts and their newlines).
    pub fn segment(&self, index: u32) -> Option<&str> {
        self.segments.get(index as usize).map(String::as_str)
    }

    /// Bytes held, spare capacity included.
    pub fn capacity(&self) -> usize {
        self.segments.iter().map(String::capacity).sum()
    }
}

/// A whole log being read before the segment reserved for it keeps it
/// (`RetainedTexts::adopt`): where it is in memory, to place its texts in
/// it without copying them. (Moving the `String` into the segment does not
/// move its bytes.)
#[derive(Debug, Clone, Copy)]
pub struct Adopting {
    segment: u32,
    address: usize,
    len: usize,
}

impl Adopting {
    pub fn new(segment: u32, log: &str) -> Self {
        Adopting { segment, address: log.as_ptr() as usize, len: log.len() }
    }

    /// Where `text` is in the log; `None` when it is not a part of it or
    /// lies past what a span addresses.
    pub fn span(&self, text: &str) -> Option<Span> {
        let start = (text.as_ptr() as usize).checked_sub(self.address)?;
        if start.checked_add(text.len())? > self.len {
            return None;
        }
        let (start, len) = (u32::try_from(start).ok()?, u32::try_from(text.len()).ok()?);
        Some(Span { segment: self.segment, start, len })
    }
}

/// The bytes a segment can still take without reallocating.
#[allow(clippy::arithmetic_side_effects, reason = "a String's length never exceeds its capacity")]
fn spare(segment: &String) -> usize {
    segment.capacity() - segment.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_come_back_across_segments() {
        let mut texts = RetainedTexts::default();
        let long = "x".repeat(FIRST_SEGMENT);
        let a = texts.push("{\"a\":1}").unwrap();
        let b = texts.push(&long).unwrap();
        let c = texts.push("{}").unwrap();
        assert_eq!(texts.get(a), Some("{\"a\":1}"));
        assert_eq!(texts.get(b), Some(long.as_str()));
        assert_eq!(texts.get(c), Some("{}"));
        assert_ne!(a.segment, b.segment, "a text that does not fit starts a segment");
        assert_eq!(texts.segment(a.segment), Some("{\"a\":1}\n"));

        let log = String::from("[{\"b\":2},\n{}]");
        let index = texts.reserve_segment().unwrap();
        let adopting = Adopting::new(index, &log);
        let b = adopting.span(&log[1..8]).unwrap();
        assert_eq!(adopting.span("{}"), None, "a text held elsewhere");
        let c = texts.push("{}").unwrap();
        texts.adopt(index, log);
        assert_eq!((b.start, b.len, texts.get(b)), (1, 7, Some("{\"b\":2}")));
        assert_ne!(c.segment, index, "a copy goes after the reserved segment");
        assert_eq!(texts.get(c), Some("{}"));
    }
}
