//! What a host that bounds memory (the WebAssembly bindings'
//! `setMemoryLimit`) and the core tell each other while a call runs.
//!
//! A Rust allocation that fails aborts, and in WebAssembly an abort is a
//! trap that kills the instance. So a host allocator may refuse an
//! allocation only where the core asked for it fallibly: the big growth
//! paths (a log's pending bytes, retained texts, an index's slots, the
//! live store's buffers) grow through [`try_reserve`], which marks the
//! allocation as one that may be refused ([`in_fallible_scope`]) and turns
//! a refusal into [`ShortOfMemory`]. Every other allocation is small (one
//! event's parse and fold) and cannot be refused; the host lets it pass the
//! limit and says so ([`note_short`]). Either way the log reader stops
//! after the event that ran short ([`is_short`]), so a call goes past the
//! limit by at most what one event allocates, and the host answers
//! `limit_exceeded`.
//!
//! Natively nothing refuses and nothing is short: these are inert. The
//! flags are per thread (WebAssembly has one), so native tests stay apart.

use std::cell::Cell;

thread_local! {
    static FALLIBLE: Cell<bool> = const { Cell::new(false) };
    static SHORT: Cell<bool> = const { Cell::new(false) };
}

/// A growth the host refused: past its memory limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShortOfMemory;

/// Whether the allocation being made may be refused (the host allocator
/// asks): only inside [`try_reserve`].
pub fn in_fallible_scope() -> bool {
    FALLIBLE.with(Cell::get)
}

/// The host notes that memory ran short: it refused a fallible allocation
/// or let an infallible one pass its limit.
pub fn note_short() {
    SHORT.with(|s| s.set(true));
}

/// Whether memory ran short since [`begin`]: the reader stops after the
/// event it is reading.
pub fn is_short() -> bool {
    SHORT.with(Cell::get)
}

/// Starts a call with memory not short.
pub fn begin() {
    SHORT.with(|s| s.set(false));
}

/// Room for `additional` more items in `v`, which the host may refuse.
pub fn try_reserve<T>(v: &mut Vec<T>, additional: usize) -> Result<(), ShortOfMemory> {
    fallibly(&mut || v.try_reserve(additional).is_ok())
}

/// `bytes` appended to `v`, or nothing when the host refuses the room.
pub fn try_extend(v: &mut Vec<u8>, bytes: &[u8]) -> Result<(), ShortOfMemory> {
    try_reserve(v, bytes.len())?;
    v.extend_from_slice(bytes);
    Ok(())
}

/// Runs a fallible growth (whether it got its room) with refusals
/// allowed; a refusal notes the shortage. (Over `dyn`: one copy.)
pub fn fallibly(grow: &mut dyn FnMut() -> bool) -> Result<(), ShortOfMemory> {
    let outer = FALLIBLE.with(|f| f.replace(true));
    let grown = grow();
    FALLIBLE.with(|f| f.set(outer));
    if grown {
        return Ok(());
    }
    note_short();
    Err(ShortOfMemory)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fallible_growth_is_marked_and_a_refusal_makes_memory_short() {
        begin();
        assert!(!in_fallible_scope());
        let mut seen = false;
        assert_eq!(
            fallibly(&mut || {
                seen = in_fallible_scope();
                true
            }),
            Ok(())
        );
        assert!(seen && !in_fallible_scope() && !is_short());
        assert_eq!(fallibly(&mut || false), Err(ShortOfMemory));
        assert!(is_short());
        begin();
        assert!(!is_short());
    }
}
