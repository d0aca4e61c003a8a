//! The .wasm's `memcmp` (wasm/src/mem.rs, eight bytes at a time) against
//! the order of the slices themselves, on random bytes of every length up
//! to 80 at every alignment, equal or differing at one place.

#[path = "../wasm/src/mem.rs"]
#[allow(dead_code, reason = "the wasm32 `memcmp` export is not built natively")]
mod mem;

use std::cmp::Ordering;

fn sign(n: i32) -> Ordering {
    n.cmp(&0)
}

fn compare(a: &[u8], b: &[u8]) -> Ordering {
    assert_eq!(a.len(), b.len());
    // SAFETY: both slices hold `a.len()` bytes.
    sign(unsafe { mem::compare(a.as_ptr(), b.as_ptr(), a.len()) })
}

#[test]
fn memcmp_orders_as_slices_do() {
    let mut rng = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut differing = 0;
    for len in 0..=80 {
        for (shift_a, shift_b) in [(0, 0), (1, 0), (0, 3), (5, 7), (7, 1), (2, 6)] {
            for _ in 0..200 {
                let a: Vec<u8> = (0..len + shift_a).map(|_| next() as u8).collect();
                let mut b = vec![0; shift_b];
                b.extend_from_slice(&a[shift_a..]);
                if len > 0 && next() % 4 != 0 {
                    // One byte differs, by a random amount (high bit included).
                    let at = shift_b + (next() as usize % len);
                    b[at] = b[at].wrapping_add(1 + (next() % 255) as u8);
                    differing += 1;
                }
                let (a, b) = (&a[shift_a..], &b[shift_b..]);
                assert_eq!(compare(a, b), a.cmp(b), "{a:?} {b:?}");
                assert_eq!(compare(b, a), b.cmp(a), "{b:?} {a:?}");
            }
        }
    }
    assert!(differing > 40_000);
}

#[test]
fn memcmp_finds_the_first_difference_of_several() {
    // Later bytes that differ the other way must not decide.
    let a = *b"abcdefghijklmnopqrstuvwxyz";
    for first in 0..a.len() {
        let mut b = a;
        b[first] = b'~';
        b[first + 1..].fill(b'!');
        assert_eq!(compare(&a, &b), Ordering::Less, "{first}");
        assert_eq!(compare(&b, &a), Ordering::Greater, "{first}");
    }
}
