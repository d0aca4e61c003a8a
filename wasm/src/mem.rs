//! `memcmp` for the .wasm, eight bytes at a time.
//!
//! Every comparison of strings or byte slices (`==` on kind names, the keys
//! of the view's `BTreeMap` counts) is a call to `memcmp`. On wasm32 the one
//! linked otherwise is compiler-builtins', which compares a byte at a time;
//! it is defined weak, so this strong definition takes its place in the
//! whole module. `compare` is plain Rust so that a native test can check it
//! against the slices' own order (tests/memcmp.rs).

// Offsets here stay below `n`, the length both pointers are valid for.
#![allow(clippy::arithmetic_side_effects)]

const WORD: usize = 8;

/// The word at `p + i`, read unaligned, little-endian.
///
/// # Safety
/// `p + i .. p + i + 8` is readable.
#[inline(always)]
unsafe fn word(p: *const u8, i: usize) -> u64 {
    u64::from_le(p.add(i).cast::<u64>().read_unaligned())
}

/// The order of two unequal little-endian words as byte strings: the first
/// (lowest) byte that differs decides.
#[inline(always)]
fn order(x: u64, y: u64) -> i32 {
    let shift = (x ^ y).trailing_zeros() & !7;
    i32::from((x >> shift) as u8) - i32::from((y >> shift) as u8)
}

/// C's `memcmp`: negative, zero or positive as the first `n` bytes at `a`
/// are less than, equal to or greater than those at `b`, by the first byte
/// that differs (unsigned).
///
/// # Safety
/// `a` and `b` are readable for `n` bytes.
pub unsafe fn compare(a: *const u8, b: *const u8, n: usize) -> i32 {
    if n < WORD {
        let mut i = 0;
        while i < n {
            let (x, y) = (*a.add(i), *b.add(i));
            if x != y {
                return i32::from(x) - i32::from(y);
            }
            i += 1;
        }
        return 0;
    }
    let mut i = 0;
    while i < n - WORD {
        let (x, y) = (word(a, i), word(b, i));
        if x != y {
            return order(x, y);
        }
        i += WORD;
    }
    // The last word, overlapping the ones before: its bytes before `i`
    // are equal, so the first difference in it is the first of all.
    let (x, y) = (word(a, n - WORD), word(b, n - WORD));
    if x != y {
        order(x, y)
    } else {
        0
    }
}

/// # Safety
/// As C's `memcmp`: `a` and `b` are readable for `n` bytes.
#[cfg(target_arch = "wasm32")]
#[no_mangle]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    compare(a, b, n)
}
