//! Span times. The log's only clock readings are the provider attempts'
//! start and finish (`started_at_ms`, `finished_at_ms`): those are used as
//! written. Every other moment is synthetic: a time derived from the
//! event's position, one microsecond per event after the last real time
//! before it (or before the first real time after it), never past the
//! next real time, so synthetic times are monotone by position and sit
//! between the real ones around them. Attempts may overlap (one may start
//! before the one before it finished): the clock takes each attempt's
//! times no earlier than the latest finish before it, so that order holds
//! anyway. A log with no real time at all is placed at one microsecond
//! per position after the origin the caller gives (the CLI: the file's
//! modification time), else after the Unix epoch.
//!
//! (`#[inline]` throughout: see the parent module's doc.)

use super::attempts::Attempt;

/// The synthetic step between two consecutive events, in nanoseconds.
const STEP_NS: u64 = 1_000;

/// A real clock reading: the attempt at `position` ran from `start` to `end`.
#[derive(Debug, Clone, Copy)]
struct Anchor {
    position: u64,
    start: u64,
    end: u64,
}

/// A moment of a span: nanoseconds since the Unix epoch, and whether the
/// log gave it (real) or the position did (synthetic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Moment {
    pub nanos: u64,
    pub real: bool,
}

#[derive(Debug)]
pub struct Clock {
    anchors: Vec<Anchor>,
    /// Where position 0 is placed when there is no anchor, in Unix nanoseconds.
    origin: u64,
}

impl Clock {
    /// A clock anchored on the attempts' times (`attempts` in log order),
    /// each moved no earlier than the latest finish before it; `origin`
    /// places a log without any.
    #[inline]
    pub fn new(attempts: &[Attempt], origin: u64) -> Clock {
        let mut latest = 0;
        let anchors = attempts
            .iter()
            .filter_map(|a| {
                let (start, end) = a.times?;
                let anchor =
                    Anchor { position: a.position, start: start.max(latest), end: end.max(latest) };
                latest = anchor.end;
                Some(anchor)
            })
            .collect();
        Clock { anchors, origin }
    }

    /// The synthetic time of the event at `position`.
    #[inline]
    pub fn at(&self, position: u64) -> Moment {
        let after = self.anchors.partition_point(|a| a.position <= position);
        let before = after.checked_sub(1).and_then(|i| self.anchors.get(i));
        let next = self.anchors.get(after);
        let nanos = match (before, next) {
            (Some(a), next) => {
                let steps = position.saturating_sub(a.position).saturating_mul(STEP_NS);
                let stepped = a.end.saturating_add(steps);
                // Just before the next real time at the latest, one
                // nanosecond per position, so the order still holds.
                let bound = next.map_or(u64::MAX, |b| {
                    b.start.saturating_sub(b.position.saturating_sub(position))
                });
                stepped.min(bound).max(a.end)
            }
            (None, Some(b)) => {
                let steps = b.position.saturating_sub(position).saturating_mul(STEP_NS);
                b.start.saturating_sub(steps)
            }
            (None, None) => self.origin.saturating_add(position.saturating_mul(STEP_NS)),
        };
        Moment { nanos, real: false }
    }
}

/// A real moment from an attempt's reading.
#[inline]
pub fn real(nanos: u64) -> Moment {
    Moment { nanos, real: true }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(position: u64, start: u64, end: u64) -> Attempt {
        Attempt { position, times: Some((start, end)), ..Attempt::default() }
    }

    #[test]
    fn synthetic_times_are_monotone_and_stay_between_real_ones() {
        let clock =
            Clock::new(&[timed(5, 10_000_000, 11_000_000), timed(9, 11_002_000, 11_003_000)], 0);
        let times: Vec<u64> = (0..15).map(|p| clock.at(p).nanos).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
        assert_eq!(times[4], 10_000_000 - 1_000);
        assert_eq!(times[6], 11_001_000);
        assert!(times[8] < 11_002_000);
        assert_eq!(times[10], 11_004_000);
        assert!(!clock.at(3).real);
    }

    #[test]
    fn squeezed_between_close_real_times_they_still_keep_their_order() {
        let clock = Clock::new(&[timed(1, 5_000, 5_000), timed(100, 5_050, 6_000)], 0);
        let times: Vec<u64> = (1..=100).map(|p| clock.at(p).nanos).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
        assert!(times[98] < 5_050);
    }

    #[test]
    fn overlapping_attempts_still_give_monotone_times() {
        // The second attempt starts and ends before the first finished.
        let clock =
            Clock::new(&[timed(2, 1_000_000, 9_000_000), timed(6, 2_000_000, 3_000_000)], 0);
        let times: Vec<u64> = (0..12).map(|p| clock.at(p).nanos).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    }

    #[test]
    fn without_real_times_positions_count_microseconds_from_the_origin() {
        assert_eq!(Clock::new(&[], 0).at(3).nanos, 3_000);
        assert_eq!(
            Clock::new(&[], 1_700_000_000_000_000_000).at(3).nanos,
            1_700_000_000_000_003_000
        );
    }
}
