//! Deterministic trace and span ids: the same log gives the same trace,
//! so an export can be repeated, diffed and re-sent without duplicating
//! spans. The trace id is a hash of the session id and the run id; a span
//! id a hash of the trace's key, the span's role and the position of the
//! event it starts from (and, for a tool call, the call id).
//!
//! (`#[inline]` throughout: see the parent module's doc.)

use super::model::push_hex;

/// FNV-1a over `parts` (each followed by a separator byte), then the
/// SplitMix64 finalizer so that nearby inputs spread over all 64 bits.
#[allow(clippy::arithmetic_side_effects, reason = "wrapping arithmetic only")]
#[inline]
fn hash64(seed: u64, parts: &[&[u8]]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325_u64 ^ seed;
    for part in parts {
        for &b in part.iter().chain(&[0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// An all-zero id is invalid in OTLP: it never comes out.
#[inline]
fn nonzero(h: u64) -> u64 {
    h.max(1)
}

/// Where the ids of one trace come from.
#[derive(Debug)]
pub struct Ids {
    key: String,
    trace_id: String,
}

impl Ids {
    /// Ids keyed by the session id and the run id (either may be empty).
    #[inline]
    pub fn new(session_id: &str, run_id: &str) -> Ids {
        let key = [session_id, "\u{0}", run_id].concat();
        let mut trace_id = String::with_capacity(32);
        push_hex(&mut trace_id, hash64(1, &[key.as_bytes()]));
        push_hex(&mut trace_id, nonzero(hash64(2, &[key.as_bytes()])));
        Ids { trace_id, key }
    }

    /// 32 lowercase hex digits.
    #[inline]
    pub fn trace_id(&self) -> &str {
        &self.trace_id
    }

    /// 16 lowercase hex digits for the span of `role` starting at
    /// `position`, told apart by `extra` where one position starts several.
    #[inline]
    pub fn span_id(&self, role: &str, position: u64, extra: &str) -> String {
        let position = position.to_le_bytes();
        let h = hash64(3, &[self.key.as_bytes(), role.as_bytes(), &position, extra.as_bytes()]);
        let mut id = String::with_capacity(16);
        push_hex(&mut id, nonzero(h));
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_hex_of_the_right_length_and_repeatable() {
        let ids = Ids::new("s", "r");
        assert_eq!(ids.trace_id().len(), 32);
        assert!(ids.trace_id().bytes().all(|b| b.is_ascii_hexdigit()));
        let span = ids.span_id("chat", 7, "");
        assert_eq!(span.len(), 16);
        assert_eq!(span, Ids::new("s", "r").span_id("chat", 7, ""));
        assert_ne!(span, ids.span_id("chat", 8, ""));
        assert_ne!(ids.trace_id(), Ids::new("s", "r2").trace_id());
    }
}
