//! A JSON syntax check for events a fold does not read: it only says
//! whether the text is one well-formed JSON value (RFC 8259; any nesting
//! depth, like serde_json's own skipping, on an explicit stack), fast. Strings, most of a log's bytes,
//! are scanned eight bytes at a time. On `false` the caller asks serde_json
//! for the exact error and position.

// Index arithmetic here only ever adds at most 8 to an index just checked
// against the text's length (which a slice keeps below isize::MAX); the
// SWAR word arithmetic wraps by design.
#![allow(clippy::arithmetic_side_effects)]

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Non-zero iff some byte of `v` is zero.
#[inline]
fn has_zero_byte(v: u64) -> u64 {
    v.wrapping_sub(ONES) & !v & HIGHS
}

/// Non-zero iff some byte of `v` ends a plain string run: `"`, `\` or a
/// control character (< 0x20).
#[inline]
fn has_special(v: u64) -> u64 {
    has_zero_byte(v ^ (ONES * b'"' as u64))
        | has_zero_byte(v ^ (ONES * b'\\' as u64))
        | (v.wrapping_sub(ONES * 0x20) & !v & HIGHS)
}

pub(crate) use blocks::skip_ascii;

/// The index of the first `needle` byte in `b`: sixteen bytes at a time
/// where WebAssembly SIMD is there (`blocks`), then eight at a time.
pub fn find_byte(b: &[u8], needle: u8) -> Option<usize> {
    let pattern = ONES * needle as u64;
    let mut i = blocks::skip_to_byte(b, 0, needle);
    while let Some(chunk) = b.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let hit = has_zero_byte(u64::from_le_bytes(*chunk) ^ pattern);
        if hit != 0 {
            return Some(i + (hit.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b.get(i..)?.iter().position(|&c| c == needle).map(|p| i + p)
}

/// From `i`, past the bytes of `b` that are not `"`, `\` or a control
/// character, eight at a time: where the first such byte is, or where less
/// than eight bytes are left (the caller goes on from there).
#[inline(always)]
pub(crate) fn skip_plain(b: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = b.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let special = has_special(u64::from_le_bytes(*chunk));
        if special != 0 {
            // The lowest flagged byte is the first special one (the tricks
            // only misflag bytes above a true match).
            return i + (special.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i
}

/// The open containers (true: object) as bits; a Vec only past 64 levels.
struct Stack {
    bits: u64,
    depth: usize,
    spill: Vec<bool>,
}

impl Stack {
    fn push(&mut self, object: bool) {
        if self.depth >= 64 {
            self.spill.push(object);
        } else {
            self.bits = (self.bits & !(1 << self.depth)) | (u64::from(object) << self.depth);
        }
        self.depth += 1;
    }

    fn last(&self) -> Option<bool> {
        match self.depth {
            0 => None,
            d if d > 64 => self.spill.last().copied(),
            d => Some(self.bits & (1 << (d - 1)) != 0),
        }
    }

    /// Called only with a container open (`last` was `Some`): depth >= 1.
    fn pop(&mut self) {
        if self.depth > 64 {
            self.spill.pop();
        }
        self.depth -= 1;
    }
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// After the opening quote: to just past the closing one. Inlined:
    /// most strings are short keys, where a call costs more than the scan.
    #[inline(always)]
    fn string(&mut self) -> bool {
        loop {
            self.skip_plain();
            match self.peek() {
                Some(b'"') => {
                    self.i += 1;
                    return true;
                }
                Some(b'\\') => {
                    self.i += 1;
                    match self.peek() {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 1,
                        Some(b'u') => {
                            let hex = self.b.get(self.i + 1..self.i + 5);
                            if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                                return false;
                            }
                            self.i += 5;
                        }
                        _ => return false,
                    }
                }
                Some(c) if c < 0x20 => return false,
                Some(_) => self.i += 1,
                None => return false,
            }
        }
    }

    /// Past the bytes that are not `"`, `\` or a control character
    /// (`skip_plain`).
    #[inline(always)]
    fn skip_plain(&mut self) {
        self.i = skip_plain(self.b, self.i);
    }

    /// A member's key and its colon, up to the value.
    fn key(&mut self) -> bool {
        if self.peek() != Some(b'"') {
            return false;
        }
        self.i += 1;
        if !self.string() {
            return false;
        }
        self.ws();
        if self.peek() != Some(b':') {
            return false;
        }
        self.i += 1;
        self.ws();
        true
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> bool {
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return false,
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return false;
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if self.digits() == 0 {
                return false;
            }
        }
        true
    }

    fn literal(&mut self, word: &[u8]) -> bool {
        let ok = self.b.get(self.i..self.i + word.len()) == Some(word);
        self.i += word.len();
        ok
    }
}

/// True when `text` is exactly one JSON value with optional whitespace.
pub fn is_valid_json(text: &str) -> bool {
    let mut c = Cursor { b: text.as_bytes(), i: 0 };
    c.ws();
    c.value() && {
        c.ws();
        c.i == c.b.len()
    }
}

/// What a fold can read of an event without parsing it: the top-level
/// members `kind` and `turn` of a text that is one well-formed JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopLevel<'a> {
    /// The first `kind` member's value, when it is a string without escapes.
    pub kind: Option<&'a str>,
    /// How many `kind` members there are.
    pub kinds: u32,
    /// The first `turn` member's value, when it is an integer written with
    /// digits alone that fits a `u32`.
    pub turn: Option<u32>,
    /// How many `turn` members there are.
    pub turns: u32,
}

impl<'a> TopLevel<'a> {
    /// The kind, when it is the object's only `kind` member.
    pub fn unique_kind(&self) -> Option<&'a str> {
        self.kind.filter(|_| self.kinds == 1)
    }

    /// The turn, when it is the object's only `turn` member.
    pub fn unique_turn(&self) -> Option<u32> {
        self.turn.filter(|_| self.turns == 1)
    }
}

/// The top-level `kind` and `turn` of `text`, checking as `is_valid_json`
/// does that it is one JSON value: `None` when it is not, when that value
/// is not an object, or when a top-level key holds an escape (a parser
/// would decode it, and could read it as `kind` or `turn`).
pub fn top_level(text: &str) -> Option<TopLevel<'_>> {
    members(text, false)
}

/// The value of the first top-level `kind` member of an event's text, its
/// text checked as `top_level` checks it up to there: whether the rest is
/// well-formed, and whether that `kind` is the only one, are left to the
/// caller. `None` where `top_level` would give no kind.
pub fn first_kind(text: &str) -> Option<&str> {
    members(text, true)?.kind
}

/// `top_level`, or with `first_kind` its scan up to the first `kind`.
fn members(text: &str, first_kind: bool) -> Option<TopLevel<'_>> {
    let mut c = Cursor { b: text.as_bytes(), i: 0 };
    let mut top = TopLevel { kind: None, kinds: 0, turn: None, turns: 0 };
    c.ws();
    if c.peek() != Some(b'{') {
        return None;
    }
    c.i += 1;
    c.ws();
    if c.peek() == Some(b'}') {
        c.i += 1;
    } else {
        loop {
            let key = c.plain_key()?;
            let start = c.i;
            if !c.value() {
                return None;
            }
            let value = text.get(start..c.i)?;
            if key == b"kind" {
                top.kinds = top.kinds.saturating_add(1);
                if top.kinds == 1 {
                    top.kind = value.strip_prefix('"').and_then(|v| v.strip_suffix('"'));
                    top.kind = top.kind.filter(|k| !k.contains('\\'));
                }
                if first_kind {
                    return Some(top);
                }
            } else if key == b"turn" {
                top.turns = top.turns.saturating_add(1);
                if top.turns == 1 && value.bytes().all(|b| b.is_ascii_digit()) {
                    top.turn = value.parse().ok();
                }
            }
            c.ws();
            match c.peek() {
                Some(b',') => {
                    c.i += 1;
                    c.ws();
                }
                Some(b'}') => {
                    c.i += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    c.ws();
    (c.i == c.b.len()).then_some(top)
}

impl<'a> Cursor<'a> {
    /// A member's key without escapes, and its colon, up to the value; the
    /// key's bytes. (Scanned eight bytes at a time as strings are: most
    /// keys span one or two words.)
    fn plain_key(&mut self) -> Option<&'a [u8]> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.i + 1;
        self.i = start;
        loop {
            self.skip_plain();
            match self.peek()? {
                b'"' => break,
                c if c >= 0x20 && c != b'\\' => self.i += 1,
                _ => return None,
            }
        }
        let key = self.b.get(start..self.i)?;
        self.i += 1;
        self.ws();
        if self.peek() != Some(b':') {
            return None;
        }
        self.i += 1;
        self.ws();
        Some(key)
    }

    /// One JSON value from here (whitespace before it already skipped), to
    /// just past it.
    fn value(&mut self) -> bool {
        let c = self;
        let mut stack = Stack { bits: 0, depth: 0, spill: Vec::new() };
        'value: loop {
            // A value.
            match c.peek() {
                Some(b'{') => {
                    c.i += 1;
                    c.ws();
                    if c.peek() == Some(b'}') {
                        c.i += 1;
                    } else {
                        stack.push(true);
                        if !c.key() {
                            return false;
                        }
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    c.i += 1;
                    c.ws();
                    if c.peek() == Some(b']') {
                        c.i += 1;
                    } else {
                        stack.push(false);
                        continue 'value;
                    }
                }
                Some(b'"') => {
                    c.i += 1;
                    if !c.string() {
                        return false;
                    }
                }
                Some(b't') if c.literal(b"true") => {}
                Some(b'f') if c.literal(b"false") => {}
                Some(b'n') if c.literal(b"null") => {}
                Some(b'-' | b'0'..=b'9') if c.number() => {}
                _ => return false,
            }
            // After a value: close containers or go on to the next member.
            loop {
                let Some(in_object) = stack.last() else {
                    return true;
                };
                c.ws();
                match (c.peek(), in_object) {
                    (Some(b','), true) => {
                        c.i += 1;
                        c.ws();
                        if !c.key() {
                            return false;
                        }
                        continue 'value;
                    }
                    (Some(b','), false) => {
                        c.i += 1;
                        c.ws();
                        continue 'value;
                    }
                    (Some(b'}'), true) | (Some(b']'), false) => {
                        c.i += 1;
                        stack.pop();
                    }
                    _ => return false,
                }
            }
        }
    }
}

/// Whole blocks of sixteen bytes scanned with WebAssembly SIMD, where the
/// `.wasm` has it: what `find_byte`'s SWAR loop does eight bytes at a time,
/// and runs of ASCII (`log::utf8`). Each returns where its scan stopped:
/// at what it looks for, or where less than a block is left (the caller
/// goes on from there).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod blocks {
    use core::arch::wasm32::{u8x16_bitmask, u8x16_eq, u8x16_splat, v128, v128_load};

    const WIDTH: usize = 16;

    /// The block at `i`, or `None` when less than a block is left.
    #[inline(always)]
    fn block(b: &[u8], i: usize) -> Option<v128> {
        let whole = b.get(i..)?.len() >= WIDTH;
        // SAFETY: `i + WIDTH <= b.len()` (`whole`); v128_load needs no alignment.
        whole.then(|| unsafe { v128_load(b.as_ptr().add(i).cast::<v128>()) })
    }

    /// From `i` to the first block that is not all ASCII.
    pub fn skip_ascii(b: &[u8], mut i: usize) -> usize {
        while let Some(v) = block(b, i) {
            if u8x16_bitmask(v) != 0 {
                return i;
            }
            i += WIDTH;
        }
        i
    }

    /// From `i` to the first `needle` byte.
    pub fn skip_to_byte(b: &[u8], mut i: usize, needle: u8) -> usize {
        let pattern = u8x16_splat(needle);
        while let Some(v) = block(b, i) {
            let bits = u8x16_bitmask(u8x16_eq(v, pattern));
            if bits != 0 {
                return i + bits.trailing_zeros() as usize;
            }
            i += WIDTH;
        }
        i
    }
}

/// Without WebAssembly SIMD the SWAR loop does the whole scan.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod blocks {
    #[inline(always)]
    pub fn skip_ascii(_: &[u8], i: usize) -> usize {
        i
    }

    #[inline(always)]
    pub fn skip_to_byte(_: &[u8], i: usize, _: u8) -> usize {
        i
    }
}
