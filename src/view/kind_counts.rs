//! How many events of each kind a session or a turn holds. Every event is
//! counted twice (the session's counts and its turn's), so a known kind is
//! counted by its place in the kind table (which the event's variant
//! gives), with no name compared or allocated per turn; names are written
//! only when the counts are.

use std::collections::BTreeMap;

use super::raw::{At, FromView};
use crate::event::{SessionEvent, KINDS};
use crate::json::{JsonOut, WriteJson};

/// Events by kind. Written and read back as an object of counts by name,
/// sorted by name (as a `BTreeMap` writes it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KindCounts {
    /// The known kinds counted, by place in `KINDS`, in that order: a turn
    /// holds a few kinds of the 50, and there are many turns.
    known: Vec<(u8, u64)>,
    /// The kinds this version does not know, by name.
    unknown: BTreeMap<String, u64>,
}

const _: () = assert!(KINDS.len() <= u8::MAX as usize, "a place in KINDS is a u8");

impl KindCounts {
    /// Counts one more event of the event's kind. (An event read as of
    /// an unknown kind may bear a known name, strict reading reading only
    /// deepstrike-core's kinds: it is counted under that name all the same.)
    pub fn add(&mut self, event: &SessionEvent<'_>) {
        let place = event.kind_index().or_else(|| place_of(event.kind()));
        match place.and_then(|place| self.known_mut(place)) {
            Some(n) => *n = super::count_up(*n, 1),
            None => super::bump(&mut self.unknown, event.kind()),
        }
    }

    /// The count of the known kind at `place`, added at 0 if it has none.
    fn known_mut(&mut self, place: usize) -> Option<&mut u64> {
        let place = u8::try_from(place).ok()?;
        let at = self.known.partition_point(|&(p, _)| p < place);
        if self.known.get(at).is_none_or(|&(p, _)| p != place) {
            self.known.insert(at, (place, 0));
        }
        self.known.get_mut(at).map(|(_, n)| n)
    }

    /// The count of each kind seen, by name.
    pub fn to_map(&self) -> BTreeMap<String, u64> {
        let mut map = self.unknown.clone();
        for &(place, n) in &self.known {
            if let Some(kind) = KINDS.get(usize::from(place)) {
                map.insert(kind.to_string(), n);
            }
        }
        map
    }

    /// How many events of `kind` were counted.
    pub fn count(&self, kind: &str) -> u64 {
        let place = place_of(kind).and_then(|place| u8::try_from(place).ok());
        match self.known.iter().find(|&&(p, _)| Some(p) == place) {
            Some(&(_, n)) => n,
            None => self.unknown.get(kind).copied().unwrap_or(0),
        }
    }

    /// How many kinds this version does not know were counted.
    pub fn unknown_kinds(&self) -> usize {
        self.unknown.len()
    }
}

impl From<&BTreeMap<String, u64>> for KindCounts {
    fn from(map: &BTreeMap<String, u64>) -> Self {
        let mut counts = KindCounts::default();
        for (kind, &n) in map {
            match place_of(kind).and_then(|place| counts.known_mut(place)) {
                Some(known) => *known = n,
                None => {
                    counts.unknown.insert(kind.clone(), n);
                }
            }
        }
        counts
    }
}

/// A known kind's place in `KINDS` (one copy of the lookup for its
/// callers: the .wasm is kept small).
#[inline(never)]
fn place_of(kind: &str) -> Option<usize> {
    crate::event::kind_place(kind)
}

impl WriteJson for KindCounts {
    fn write_json(&self, out: &mut JsonOut) {
        self.to_map().write_json(out);
    }
}

impl FromView for KindCounts {
    fn read(raw: &str, at: &At<'_>) -> Self {
        KindCounts::from(&BTreeMap::<String, u64>::read(raw, at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::to_js_json;
    use crate::view::raw::Problem;

    fn events(texts: &[&'static str], strict: bool) -> Vec<SessionEvent<'static>> {
        let read =
            |t| if strict { SessionEvent::from_json_strict(t) } else { SessionEvent::from_json(t) };
        texts.iter().map(|t| read(t).unwrap()).collect()
    }

    /// Kinds later in `KINDS` first, so counting keeps the places in order.
    const TEXTS: [&str; 6] = [
        r#"{"kind":"round_started","round":1}"#,
        r#"{"kind":"zeta_future","x":1}"#,
        r#"{"kind":"alpha_future"}"#,
        r#"{"kind":"page_in","turn":2,"entry_count":4}"#,
        r#"{"kind":"zeta_future"}"#,
        r#"{"kind":"page_in","turn":1,"entry_count":3}"#,
    ];

    #[test]
    fn known_and_unknown_kinds_are_counted_and_named_in_name_order() {
        let mut counts = KindCounts::default();
        events(&TEXTS, false).iter().for_each(|e| counts.add(e));
        let json = r#"{"alpha_future":1,"page_in":2,"round_started":1,"zeta_future":2}"#;
        assert_eq!(to_js_json(&counts), json);
        assert_eq!((counts.count("page_in"), counts.count("zeta_future")), (2, 2));
        assert_eq!((counts.count("tool_completed"), counts.count("nope")), (0, 0));
        assert_eq!(counts.unknown_kinds(), 2);

        // Read back, the same counts.
        let problem = Problem::default();
        let back = KindCounts::read(json, &At { problem: &problem, what: "view", key: "counts" });
        assert_eq!((back, problem.get()), (counts, None));
    }

    #[test]
    fn a_known_kind_read_as_unknown_is_counted_under_its_name() {
        // Strict reading reads `round_started` (not deepstrike-core's) as unknown.
        let strict = events(&TEXTS, true);
        assert!(matches!(strict[0], SessionEvent::Unknown(_)));
        let mut counts = KindCounts::default();
        let tolerant = events(&TEXTS, false);
        counts.add(&tolerant[0]);
        counts.add(&strict[0]);
        assert_eq!(to_js_json(&counts), r#"{"round_started":2}"#);
        assert_eq!(counts.unknown_kinds(), 0);
    }
}
