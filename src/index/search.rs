//! Full-text search over the retained event texts: the positions of the
//! events whose JSON text holds a query, letters matched in either case by
//! the rule of JavaScript's case-insensitive `RegExp` without the `u` flag
//! (`canonical`), so the viewer's JS search of a small log and this scan of
//! a paged one find the same events.
//!
//! The query's leading ASCII run is found by a scan over whole segments,
//! not event by event, 16 start offsets at a time: it compares two bytes of
//! the run, each at its offset, over a block of the text (a pair prefilter,
//! as in W. Muła's "SIMD-friendly algorithms for substring searching"), and
//! only the offsets where both match are compared in full. With two bytes
//! instead of one, far fewer offsets reach the full comparison than with a
//! search for one byte, whose every occurrence would. The blocks use
//! WebAssembly SIMD where the target has it (`lanes`), plain bytes
//! elsewhere: the same offsets either way. What follows the run (a query
//! with a letter beyond ASCII) is compared char by char after each place
//! the run is found; an ASCII query, the usual one, has nothing after it.

use std::ops::Range;

use super::case_table::{DELTAS, FIRSTS, SHAPES};

/// A char as a case-insensitive JS `RegExp` without `u` compares it
/// (ECMAScript's `Canonicalize`): its upper case when that is one UTF-16
/// unit, except that a char beyond ASCII never becomes an ASCII one (so
/// `ſ` is no `s` and `ı` no `i`). `ä` and `Ä` match, `σ`, `ς` and `Σ` match;
/// `ß` (upper case `SS`, two units) matches only itself, so `STRASSE`
/// does not find `straße`. Such a RegExp compares UTF-16 units, so a char
/// beyond the BMP (two surrogates) matches only itself. Beyond ASCII the
/// upper cases come from `case_table` (generated from a JS engine's), not
/// std's tables: the same answers in a fraction of the `.wasm`'s size.
pub fn canonical(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_uppercase();
    }
    let Ok(unit) = u16::try_from(u32::from(c)) else { return c };
    let Some(run) = FIRSTS.partition_point(|&first| first <= unit).checked_sub(1) else {
        return c;
    };
    let (Some(&first), Some(&delta), Some(&shape)) =
        (FIRSTS.get(run), DELTAS.get(run), SHAPES.get(run))
    else {
        return c;
    };
    let every_other = shape & 0x80 != 0;
    let step = unit.wrapping_sub(first);
    let nth = if every_other { step / 2 } else { step };
    if (every_other && step % 2 != 0) || nth > u16::from(shape & 0x7f) {
        return c;
    }
    char::from_u32(u32::from(unit.wrapping_add(delta))).unwrap_or(c)
}

/// One byte of the query as the scan compares it: a text byte `h` matches
/// when `h | fold == byte`. For an ASCII letter `byte` is its lower case
/// and `fold` the case bit, so both cases match and nothing else does;
/// other bytes match exactly (`fold` 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Probe {
    /// Its offset in the query.
    offset: usize,
    byte: u8,
    fold: u8,
}

impl Probe {
    fn new(offset: usize, b: u8) -> Self {
        let fold = if b.is_ascii_alphabetic() { 0x20 } else { 0 };
        Probe { offset, byte: b | fold, fold }
    }

    fn hits(self, h: u8) -> bool {
        h | self.fold == self.byte
    }
}

/// What a search looks for.
pub struct Query<'q> {
    /// The query's leading ASCII run, found by the pair scan (`Run`);
    /// `None` when the query starts beyond ASCII.
    run: Option<Run<'q>>,
    /// The query after the run (empty, or from a char beyond ASCII on):
    /// compared char by char, `canonical`.
    rest: &'q str,
}

/// An ASCII run of the query and how the scan finds it: ASCII letters in
/// either case, other bytes exactly (`canonical` on ASCII).
struct Run<'q> {
    needle: &'q [u8],
    /// The two bytes the scan compares first: the rarest in event texts
    /// (`commonness`), so that few offsets need a full comparison.
    probes: [Probe; 2],
    /// The larger of the probes' offsets: a block read at a start offset
    /// reaches this far past it.
    reach: usize,
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

/// The offsets of the needle's two rarest bytes, the first found first on
/// a tie (the same one twice for a one-byte needle); `None` for an empty
/// needle.
fn rarest_two(needle: &[u8]) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    let mut second: Option<(usize, usize)> = None;
    for (i, &b) in needle.iter().enumerate() {
        let candidate = (commonness(b), i);
        if best.is_none_or(|kept| candidate.0 < kept.0) {
            second = best;
            best = Some(candidate);
        } else if second.is_none_or(|kept| candidate.0 < kept.0) {
            second = Some(candidate);
        }
    }
    let (_, first) = best?;
    Some((first, second.map_or(first, |(_, i)| i)))
}

impl<'q> Query<'q> {
    /// `None` for an empty query.
    pub fn new(text: &'q str) -> Option<Self> {
        let ascii = text.bytes().position(|b| !b.is_ascii()).unwrap_or(text.len());
        let (run, rest) = text.split_at_checked(ascii)?;
        let run = Run::new(run.as_bytes());
        if run.is_none() && rest.is_empty() {
            return None;
        }
        Some(Query { run, rest })
    }

    /// The byte range of the first match in `hay` starting at or after
    /// `from` (a char boundary).
    pub fn find(&self, hay: &str, from: usize) -> Option<Range<usize>> {
        let mut from = from;
        loop {
            let (start, run_end) = match &self.run {
                Some(run) => {
                    let at = run.find(hay.as_bytes(), from)?;
                    (at, at.checked_add(run.needle.len())?)
                }
                None => {
                    let at = next_char_beyond_ascii(hay.as_bytes(), from)?;
                    (at, at)
                }
            };
            if let Some(end) = self.rest_at(hay, run_end) {
                return Some(start..end);
            }
            from = start.checked_add(1)?;
        }
    }

    /// Where the chars after the run end when they are at `at`.
    fn rest_at(&self, hay: &str, at: usize) -> Option<usize> {
        let mut end = at;
        let mut chars = hay.get(at..)?.chars();
        for want in self.rest.chars() {
            let c = chars.next().filter(|&c| canonical(c) == canonical(want))?;
            end = end.checked_add(c.len_utf8())?;
        }
        Some(end)
    }
}

/// The offset of the first char beyond ASCII at or after `from` (its lead
/// byte): where a query starting with one can match, since `canonical`
/// never takes a char beyond ASCII to ASCII or back.
fn next_char_beyond_ascii(hay: &[u8], from: usize) -> Option<usize> {
    let offset = hay.get(from..)?.iter().position(|&b| b >= 0xc0)?;
    from.checked_add(offset)
}

impl<'q> Run<'q> {
    /// `None` for an empty run.
    fn new(needle: &'q [u8]) -> Option<Self> {
        let (a, b) = rarest_two(needle)?;
        let probe = |i: usize| needle.get(i).map(|&byte| Probe::new(i, byte));
        Some(Run { needle, probes: [probe(a)?, probe(b)?], reach: a.max(b) })
    }

    /// The byte offset of the first match in `hay` at or after `from`.
    fn find(&self, hay: &[u8], from: usize) -> Option<usize> {
        let last = hay.len().checked_sub(self.needle.len())?;
        let mut start = from;
        // Whole blocks while one fits, then offset by offset.
        loop {
            match lanes::next_hits(hay, start, self.reach, self.probes) {
                Ok((block, mut hits)) => {
                    while hits != 0 {
                        let at = block.checked_add(hits.trailing_zeros() as usize)?;
                        if self.is_at(hay, at) {
                            return Some(at);
                        }
                        hits &= hits.wrapping_sub(1);
                    }
                    start = block.checked_add(lanes::WIDTH)?;
                }
                Err(rest) => {
                    return (rest..=last)
                        .find(|&at| self.probes_hit(hay, at) && self.is_at(hay, at))
                }
            }
        }
    }

    /// Whether both probes match at start offset `at`.
    fn probes_hit(&self, hay: &[u8], at: usize) -> bool {
        self.probes
            .iter()
            .all(|p| at.checked_add(p.offset).and_then(|i| hay.get(i)).is_some_and(|&h| p.hits(h)))
    }

    /// Whether the whole run is at `at` (either case for ASCII letters).
    fn is_at(&self, hay: &[u8], at: usize) -> bool {
        let end = at.saturating_add(self.needle.len());
        hay.get(at..end).is_some_and(|m| m.eq_ignore_ascii_case(self.needle))
    }
}

/// The block scan: `next_hits(hay, start, reach, probes)` reads blocks of
/// `WIDTH` start offsets from `start` on, while one fits in `hay` (`reach`
/// is the larger probe offset), to the first whose offsets both probes
/// match at: `Ok((block start, bits))`, bit `k` for offset `block start +
/// k`. `Err(start)` when no block fits any more: the offsets from there on
/// are left to the caller.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod lanes {
    use super::Probe;
    use core::arch::wasm32::{
        u8x16_bitmask, u8x16_eq, u8x16_splat, v128, v128_and, v128_any_true, v128_load, v128_or,
    };

    pub const WIDTH: usize = 16;

    /// The lanes where both probes match, for the block at `at`.
    struct Pair {
        offsets: (usize, usize),
        folds: (v128, v128),
        bytes: (v128, v128),
    }

    impl Pair {
        /// # Safety
        /// `at + offset + WIDTH <= hay.len()` for both probes' offsets.
        #[inline(always)]
        #[allow(clippy::arithmetic_side_effects, reason = "in `hay`, by the caller's contract")]
        unsafe fn hits(&self, hay: &[u8], at: usize) -> v128 {
            let base = hay.as_ptr();
            // SAFETY: in `hay` (the contract); v128_load needs no alignment.
            let (a, b) = unsafe {
                (
                    v128_load(base.add(at + self.offsets.0).cast::<v128>()),
                    v128_load(base.add(at + self.offsets.1).cast::<v128>()),
                )
            };
            v128_and(
                u8x16_eq(v128_or(a, self.folds.0), self.bytes.0),
                u8x16_eq(v128_or(b, self.folds.1), self.bytes.1),
            )
        }
    }

    #[allow(
        clippy::arithmetic_side_effects,
        reason = "`start` stays at most `last`, itself less than `hay.len()`, plus a block"
    )]
    pub fn next_hits(
        hay: &[u8],
        mut start: usize,
        reach: usize,
        probes: [Probe; 2],
    ) -> Result<(usize, u16), usize> {
        let [a, b] = probes;
        let pair = Pair {
            offsets: (a.offset, b.offset),
            folds: (u8x16_splat(a.fold), u8x16_splat(b.fold)),
            bytes: (u8x16_splat(a.byte), u8x16_splat(b.byte)),
        };
        // The last start offset a whole block can be read from.
        let Some(last) = hay.len().checked_sub(reach).and_then(|n| n.checked_sub(WIDTH)) else {
            return Err(start);
        };
        // Four blocks a step while they fit (one test of all four), then one.
        while start + 3 * WIDTH <= last {
            // SAFETY: every block ends at most at `last + reach + WIDTH`, `hay.len()`.
            let (one, two, three, four) = unsafe {
                (
                    pair.hits(hay, start),
                    pair.hits(hay, start + WIDTH),
                    pair.hits(hay, start + 2 * WIDTH),
                    pair.hits(hay, start + 3 * WIDTH),
                )
            };
            if v128_any_true(v128_or(v128_or(one, two), v128_or(three, four))) {
                // The first block with a hit (one has: `v128_any_true`).
                let masks = [one, two, three, four].map(|block| u8x16_bitmask(block));
                let (k, bits) =
                    masks.into_iter().enumerate().find(|&(_, bits)| bits != 0).unwrap_or((3, 0));
                return Ok((start + k * WIDTH, bits));
            }
            start += 4 * WIDTH;
        }
        while start <= last {
            // SAFETY: as above.
            let bits = u8x16_bitmask(unsafe { pair.hits(hay, start) });
            if bits != 0 {
                return Ok((start, bits));
            }
            start += WIDTH;
        }
        Err(start)
    }
}

/// `next_hits` byte by byte, for targets without WebAssembly SIMD (native
/// builds and their tests): the same blocks and bits as the SIMD one.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod lanes {
    use super::Probe;

    pub const WIDTH: usize = 16;

    pub fn next_hits(
        hay: &[u8],
        mut start: usize,
        reach: usize,
        probes: [Probe; 2],
    ) -> Result<(usize, u16), usize> {
        let [a, b] = probes;
        let fits = |start: usize| {
            start
                .checked_add(reach)
                .and_then(|n| n.checked_add(WIDTH))
                .is_some_and(|end| end <= hay.len())
        };
        while fits(start) {
            let lane = |k: usize| {
                let at = start.saturating_add(k);
                let hit =
                    |p: Probe| hay.get(at.saturating_add(p.offset)).is_some_and(|&h| p.hits(h));
                u16::from(hit(a) && hit(b)) << k
            };
            let bits = (0..WIDTH).map(lane).fold(0, |bits, bit| bits | bit);
            if bits != 0 {
                return Ok((start, bits));
            }
            start = start.saturating_add(WIDTH);
        }
        Err(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(text: &str, query: &str) -> bool {
        Query::new(query).unwrap().find(text, 0).is_some()
    }

    fn start(query: &Query<'_>, hay: &str, from: usize) -> Option<usize> {
        query.find(hay, from).map(|m| m.start)
    }

    #[test]
    fn the_scan_probes_the_two_rarest_bytes_and_finds_every_match() {
        let q = Query::new("tool_gated").unwrap();
        let run = q.run.as_ref().unwrap();
        let probed: Vec<u8> = run.probes.iter().map(|p| run.needle[p.offset]).collect();
        assert_eq!(probed, b"g_", "g, then _ (as rare as d), are rarer than t, o, l, a and e");
        let hay = "xx tool_gated tool_gatex TOOL_GATED";
        assert_eq!(q.find(hay, 0), Some(3..13));
        assert_eq!(start(&q, hay, 4), Some(25));
        assert_eq!(q.find(hay, 26), None);
        assert_eq!(start(&Query::new("g").unwrap(), "gg", 1), Some(1));
    }

    #[test]
    fn finds_ascii_letters_in_either_case_and_other_ascii_bytes_exactly() {
        let q = Query::new("Tool_Gated").unwrap();
        assert_eq!(start(&q, "{\"kind\":\"tool_gated\"}", 0), Some(9));
        assert_eq!(q.find("{\"kind\":\"tool_gated\"}", 10), None);
        // `|0x20` must not fold what is not a letter: `@` is `` ` `` less the bit, `[` is `{`'s.
        assert!(!holds("`{", "@["));
        assert!(holds("x@[", "@["));
        assert!(Query::new("").is_none());
    }

    #[test]
    fn finds_letters_beyond_ascii_in_either_case_as_a_js_regexp_does() {
        assert!(holds("kein ärger hier", "Ärger"));
        assert!(holds("KEIN ÄRGER", "ärger"));
        assert_eq!(Query::new("ÄRGER").unwrap().find("x ärger", 0), Some(2..8));
        assert!(holds("un ÉTÉ chaud", "\u{e9}t\u{e9}"));
        assert!(holds("ΟΔΥΣΣΕΎΣ", "οδυσσεύς"), "σ, ς and Σ are one letter");
        assert!(holds("ПРИВЕТ", "привет"));
        // Upper cases of more than one char, or in ASCII, fold nothing.
        assert!(!holds("STRASSE", "straße"));
        assert!(!holds("straße", "STRASSE"));
        assert!(holds("STRAßE", "straße"));
        assert!(!holds("ſ", "s") && !holds("s", "ſ") && !holds("ı", "I"));
        // Case pairs whose UTF-8 lengths differ: the match is the text's length.
        assert_eq!(Query::new("Ⱥx").unwrap().find("-ⱥX-", 0), Some(1..5));
        // Beyond the BMP nothing folds (a JS RegExp without `u` compares UTF-16 units).
        assert!(!holds("𐐨", "𐐀") && holds("a𐐀", "𐐀"));
        // A match starts only on a char, never inside one.
        assert!(!holds("\u{e4}\u{e4}", "\u{e4}\u{e4}\u{e4}"));
        assert_eq!(start(&Query::new("ä").unwrap(), "aäÄ", 2), Some(3));
    }

    /// The first match at or after `from`, offset by offset (ASCII).
    fn naive(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
        let last = hay.len().checked_sub(needle.len())?;
        (from..=last).find(|&at| hay[at..at + needle.len()].eq_ignore_ascii_case(needle))
    }

    /// The first match at or after `from`, char by char (`canonical`).
    fn naive_chars(hay: &str, needle: &str, from: usize) -> Option<usize> {
        let want: Vec<char> = needle.chars().map(canonical).collect();
        hay.char_indices().map(|(i, _)| i).filter(|&i| i >= from).find(|&i| {
            let got: Vec<char> = hay[i..].chars().take(want.len()).map(canonical).collect();
            got == want
        })
    }

    /// A small xorshift generator: the same cases on every run.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    #[test]
    fn finds_what_a_byte_by_byte_search_finds_on_random_texts() {
        // Few distinct bytes, so that probes often match and full
        // comparisons often fail; both cases of letters, and `@`/`` ` ``,
        // which differ by the case bit but are not letters.
        const ALPHABET: &[u8] = b"aAbB_@`\"x";
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..3000 {
            let hay: Vec<u8> =
                (0..rng.below(80)).map(|_| ALPHABET[rng.below(ALPHABET.len())]).collect();
            let needle: Vec<u8> =
                (0..1 + rng.below(5)).map(|_| ALPHABET[rng.below(ALPHABET.len())]).collect();
            let q = Query::new(std::str::from_utf8(&needle).unwrap()).unwrap();
            let from = rng.below(hay.len() + 2);
            let hay_text = std::str::from_utf8(&hay).unwrap();
            assert_eq!(start(&q, hay_text, from), naive(&hay, &needle, from), "{hay:?} {needle:?}");
        }
    }

    #[test]
    fn finds_what_a_char_by_char_search_finds_on_random_texts_beyond_ascii() {
        const ALPHABET: &[char] = &['a', 'A', 'ä', 'Ä', 'ß', 's', 'S', 'ς', 'σ', 'Σ', 'ⱥ', 'Ⱥ'];
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..3000 {
            let pick = |rng: &mut Rng, n: usize| -> String {
                (0..n).map(|_| ALPHABET[rng.below(ALPHABET.len())]).collect()
            };
            let (hay_len, needle_len) = (rng.below(40), 1 + rng.below(4));
            let hay = pick(&mut rng, hay_len);
            let needle = pick(&mut rng, needle_len);
            let q = Query::new(&needle).unwrap();
            let boundaries: Vec<usize> = hay.char_indices().map(|(i, _)| i).collect();
            let from = boundaries.get(rng.below(boundaries.len() + 1)).copied().unwrap_or(0);
            assert_eq!(start(&q, &hay, from), naive_chars(&hay, &needle, from), "{hay} {needle}");
        }
    }

    #[test]
    fn finds_matches_at_every_offset_around_block_edges() {
        for len in [1, 2, 7, 16, 17, 33] {
            let needle = "Qz".repeat(len).get(..len).unwrap().to_string();
            let q = Query::new(&needle).unwrap();
            for at in 0..70 {
                for tail in 0..3 {
                    let mut hay = vec![b'.'; at + len + tail];
                    hay[at..at + len].copy_from_slice(needle.to_ascii_uppercase().as_bytes());
                    let hay = String::from_utf8(hay).unwrap();
                    assert_eq!(start(&q, &hay, 0), Some(at), "{needle} at {at} of {}", hay.len());
                    assert_eq!(start(&q, &hay, at + 1), None);
                }
            }
        }
    }
}
