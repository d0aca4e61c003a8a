//! The numbers the core counts in, as types, so that a position can never
//! be passed where a revision or a clock reading is meant. Each is a `u64`
//! on the wire (`#[serde(transparent)]`) and in cursors.

use serde::{Deserialize, Serialize};

/// An event's 1-based place in its session (0: before the first event).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Position(pub u64);

/// A session's revision: the largest turn folded so far (0 before any).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Revision(pub u64);

/// A reading of the host's clock, in milliseconds since the Unix epoch.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Millis(pub u64);

impl Position {
    /// The place before the first event.
    pub const START: Position = Position(0);

    /// The place after this one.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "positions count events one at a time, held or folded in memory: \
                  they cannot reach 2^64"
    )]
    pub fn next(self) -> Position {
        Position(self.0 + 1)
    }
}

impl Millis {
    /// Milliseconds from `earlier` to this reading; 0 when the clock went
    /// backwards. Saturating is the meaning here: the host's clock is input,
    /// and a reading older than an earlier one ages nothing.
    pub fn since(self, earlier: Millis) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::fmt::Display for Revision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_plain_numbers_on_the_wire() {
        let json =
            serde_json::to_string(&(Position(7), Revision(3), Millis(9))).unwrap_or_default();
        assert_eq!(json, "[7,3,9]");
        assert_eq!(Position::START.next(), Position(1));
    }

    #[test]
    fn a_clock_going_backwards_ages_nothing() {
        assert_eq!(Millis(1_500).since(Millis(1_000)), 500);
        assert_eq!(Millis(1_000).since(Millis(1_500)), 0);
    }
}

macro_rules! write_json_as_number {
    ($($ty:ident),*) => {
        $(impl crate::json::WriteJson for $ty {
            fn write_json(&self, out: &mut crate::json::JsonOut) {
                out.unsigned(self.0);
            }
        })*
    };
}
write_json_as_number!(Position, Revision, Millis);
