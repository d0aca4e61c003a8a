//! `SharedMap`: a map by name whose clone shares most of what it holds: a
//! base behind `Rc`, shared with the clones, and the names set since it was
//! made, each clone's own. The recent names join the base (a copy of it,
//! when a clone still shares it) once they are a fair part of it, so a
//! clone copies at most that many names. Time-travel checkpoints clone the
//! view's tokens by operation, which grows with the log's operations: as
//! one `BTreeMap`, every checkpoint would copy every name.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde::{Serialize, Serializer};

#[derive(Debug, Clone, Default)]
pub struct SharedMap<V> {
    base: Rc<BTreeMap<String, V>>,
    /// Set since the base was made; wins over it.
    recent: BTreeMap<String, V>,
}

impl<V: Clone> SharedMap<V> {
    /// Sets `name`'s value.
    pub fn insert(&mut self, name: &str, value: V) {
        self.recent.insert(name.to_string(), value);
        // Joins at 64 recent names plus one for each 64 of the base: a clone
        // copies few names, and the base is copied once per that many.
        if self.recent.len() > 64usize.saturating_add(self.base.len() / 64) {
            let base = Rc::make_mut(&mut self.base);
            for (name, value) in &self.recent {
                base.insert(name.clone(), value.clone());
            }
            self.recent.clear();
        }
    }

    /// The whole map: the base, with the recent names when there are some.
    pub fn merged(&self) -> Cow<'_, BTreeMap<String, V>> {
        if self.recent.is_empty() {
            return Cow::Borrowed(&self.base);
        }
        let mut all = (*self.base).clone();
        for (name, value) in &self.recent {
            all.insert(name.clone(), value.clone());
        }
        Cow::Owned(all)
    }
}

impl<V> From<BTreeMap<String, V>> for SharedMap<V> {
    fn from(map: BTreeMap<String, V>) -> Self {
        SharedMap { base: Rc::new(map), recent: BTreeMap::new() }
    }
}

impl<V: Clone + PartialEq> PartialEq for SharedMap<V> {
    fn eq(&self, other: &Self) -> bool {
        self.merged() == other.merged()
    }
}

/// As a JSON object, like a `BTreeMap`.
impl<V: Clone + PartialEq + Serialize> Serialize for SharedMap<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.merged().serialize(s)
    }
}

impl<V: Clone + crate::json::WriteJson> crate::json::WriteJson for SharedMap<V> {
    fn write_json(&self, out: &mut crate::json::JsonOut) {
        self.merged().write_json(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_reads_as_a_btree_map_and_clones_share_its_base() {
        let mut map = SharedMap::default();
        let mut model = BTreeMap::new();
        let mut seed = 7u64;
        for round in 0..2_000u64 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let name = format!("op-{}", (seed >> 33) % 700);
            map.insert(&name, round);
            model.insert(name, round);
            assert!(map.recent.len() <= 64 + map.base.len() / 64, "recent names stay few");
        }
        assert_eq!(*map.merged(), model);
        assert!(map.base.len() > 600, "names joined the base");

        let copy = map.clone();
        assert!(Rc::ptr_eq(&map.base, &copy.base), "a clone shares the base");
        map.insert("op-5", 1);
        map.insert("a-new-first", 2);
        assert_ne!(copy, map);
        assert_eq!(*copy.merged(), model, "the clone keeps its values");
        model.insert("op-5".into(), 1);
        model.insert("a-new-first".into(), 2);
        assert_eq!(*map.merged(), model);
        assert_eq!(serde_json::to_string(&map).unwrap(), serde_json::to_string(&model).unwrap());
        let same = SharedMap::from(model);
        assert_eq!(same, map, "equal whatever joined the base");
    }
}
