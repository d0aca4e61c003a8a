//! Whether a log, or one of its lines, is UTF-8. std's check reads ASCII two words at a
//! time: four bytes each on wasm32, eight natively. With WebAssembly SIMD,
//! runs of ASCII are read sixteen bytes at a time, and what lies between
//! them is checked by std.

use crate::event::syntax::skip_ascii;

/// `b` as a string, if it is UTF-8.
pub fn as_str(b: &[u8]) -> Option<&str> {
    if cfg!(all(target_arch = "wasm32", target_feature = "simd128")) {
        // SAFETY: `b` is ASCII, or `by_segments` checked that it is UTF-8.
        (is_ascii(b, skip_ascii) || by_segments(b, skip_ascii))
            .then(|| unsafe { std::str::from_utf8_unchecked(b) })
    } else {
        std::str::from_utf8(b).ok()
    }
}

/// Whether `b` is ASCII, when `skip_ascii` passes over all of it but less
/// than a block: those last bytes are checked as the last sixteen of `b`
/// (all of it, if shorter) in one step, not through std. The lines of a
/// log are checked one by one, so their ends are many.
fn is_ascii(b: &[u8], skip_ascii: impl Fn(&[u8], usize) -> usize) -> bool {
    let blocks_pass = b.get(skip_ascii(b, 0)..).is_some_and(|rest| rest.len() < 16);
    blocks_pass
        && match b.last_chunk::<16>() {
            Some(tail) => u128::from_ne_bytes(*tail) & (u128::MAX / 0xFF * 0x80) == 0,
            None => b.is_ascii(),
        }
}

/// `v` as a string, if it is UTF-8; else `v` given back.
pub fn into_string(v: Vec<u8>) -> Result<String, Vec<u8>> {
    match as_str(&v) {
        // SAFETY: `as_str` checked that `v` is UTF-8.
        Some(_) => Ok(unsafe { String::from_utf8_unchecked(v) }),
        None => Err(v),
    }
}

/// How many bytes past a run of ASCII std checks at once (then on to the
/// next byte that is not inside a character).
const SEGMENT: usize = 64;

/// Whether `b` is UTF-8: `skip_ascii(b, i)` passes over ASCII from `i`
/// (some or all of it), std checks what follows up to a byte that starts a
/// character or is ASCII. A string cut just before such a byte is UTF-8
/// exactly when both parts are.
fn by_segments(b: &[u8], skip_ascii: impl Fn(&[u8], usize) -> usize) -> bool {
    let mut i = 0;
    while i < b.len() {
        let start = skip_ascii(b, i);
        let mut end = start.saturating_add(SEGMENT).min(b.len());
        while let Some(next) = b.get(end).filter(|&&c| c & 0xC0 == 0x80).and(end.checked_add(1)) {
            end = next;
        }
        match b.get(start..end) {
            Some(segment) if std::str::from_utf8(segment).is_ok() => i = end,
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::{by_segments, is_ascii};

    /// Sixteen-byte blocks of ASCII, as the SIMD scan passes them.
    fn ascii_blocks(b: &[u8], mut i: usize) -> usize {
        while b.get(i..i + 16).is_some_and(|block| block.is_ascii()) {
            i += 16;
        }
        i
    }

    #[test]
    fn segments_agree_with_std_on_text_cut_anywhere() {
        let mut rng = 7_u64;
        let pieces: [&[u8]; 9] = [
            b"{\"kind\":\"x\"}\n",
            "é".as_bytes(),
            "日本語".as_bytes(),
            "🦀".as_bytes(),
            &[0xF0, 0x9F],
            &[0x80],
            &[0xC3],
            &[0xED, 0xA0, 0x80],
            b"0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz",
        ];
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut long_ascii = 0;
        for _ in 0..20_000 {
            let mut text = Vec::new();
            for _ in 0..next() % 24 {
                // Mostly valid pieces, a broken one now and then.
                let piece = match next() % 40 {
                    0 => 4,
                    1 => 5,
                    2 => 6,
                    3 => 7,
                    n => [0, 1, 2, 3, 8][(n % 5) as usize],
                };
                text.extend_from_slice(pieces[piece]);
            }
            let std_says = std::str::from_utf8(&text).is_ok();
            assert_eq!(by_segments(&text, ascii_blocks), std_says, "{text:?}");
            assert_eq!(by_segments(&text, |_, i| i), std_says, "{text:?}");
            assert_eq!(is_ascii(&text, ascii_blocks), text.is_ascii(), "{text:?}");
            long_ascii += usize::from(text.len() > 16 && text.is_ascii());
        }
        assert!(long_ascii > 100, "{long_ascii}");
    }
}
