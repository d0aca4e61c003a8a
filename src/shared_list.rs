//! `SharedList`: an append-only list whose clone shares what it holds. Full
//! chunks sit behind `Rc`, so a clone copies one pointer per chunk and at
//! most one chunk of items (small chunks: a checkpoint clones many lists). Time-travel checkpoints clone the OS snapshot,
//! whose lists (signals, budget usage, …) grow with the log: as `Vec`s,
//! every checkpoint would copy them whole.

use std::rc::Rc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Items per shared chunk.
const CHUNK: usize = 16;

#[derive(Debug)]
pub struct SharedList<T> {
    chunks: Vec<Rc<[T]>>,
    tail: Vec<T>,
}

impl<T> Default for SharedList<T> {
    fn default() -> Self {
        SharedList { chunks: Vec::new(), tail: Vec::new() }
    }
}

impl<T: Clone> Clone for SharedList<T> {
    fn clone(&self) -> Self {
        SharedList { chunks: self.chunks.clone(), tail: self.tail.clone() }
    }
}

impl<T> SharedList<T> {
    pub fn push(&mut self, item: T) {
        self.tail.push(item);
        if self.tail.len() >= CHUNK {
            let full = std::mem::replace(&mut self.tail, Vec::with_capacity(CHUNK));
            self.chunks.push(Rc::from(full));
        }
    }

    #[allow(
        clippy::arithmetic_side_effects,
        reason = "the items are in memory: their count is below usize::MAX"
    )]
    pub fn len(&self) -> usize {
        self.chunks.len() * CHUNK + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty() && self.tail.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flat_map(|c| c.iter()).chain(&self.tail)
    }

    pub fn get(&self, index: usize) -> Option<&T> {
        match self.chunks.get(index / CHUNK) {
            Some(chunk) => chunk.get(index % CHUNK),
            None => self.tail.get(index.checked_sub(self.chunks.len().checked_mul(CHUNK)?)?),
        }
    }
}

impl<T: Clone> SharedList<T> {
    /// Keeps the last `n` items only.
    pub fn keep_last(&mut self, n: usize) {
        let len = self.len();
        let kept = (len.saturating_sub(n)..len).filter_map(|i| self.get(i).cloned()).collect();
        *self = kept;
    }
}

impl<T> FromIterator<T> for SharedList<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut list = SharedList::default();
        for item in items {
            list.push(item);
        }
        list
    }
}

impl<T: PartialEq> PartialEq for SharedList<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<T: Eq> Eq for SharedList<T> {}

/// As a JSON array, like a `Vec`.
impl<T: Serialize> Serialize for SharedList<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<T: crate::json::WriteJson> crate::json::WriteJson for SharedList<T> {
    fn write_json(&self, out: &mut crate::json::JsonOut) {
        out.list(self.iter());
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for SharedList<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Vec::<T>::deserialize(d)?.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_shares_full_chunks_and_both_grow_apart() {
        let mut a: SharedList<u32> = (0..150).collect();
        assert_eq!(a.tail.len(), 150 % CHUNK);
        let b = a.clone();
        assert!(Rc::ptr_eq(&a.chunks[1], &b.chunks[1]), "full chunks are shared");
        a.push(150);
        assert_eq!((a.len(), b.len()), (151, 150));
        assert!(a.iter().copied().eq(0..151));
        assert_eq!(
            (a.get(15), a.get(16), a.get(63), a.get(64), a.get(150), a.get(151)),
            (Some(&15), Some(&16), Some(&63), Some(&64), Some(&150), None)
        );
        assert_eq!(
            serde_json::to_string(&b).unwrap(),
            serde_json::to_string(&(0..150).collect::<Vec<_>>()).unwrap()
        );
        let back: SharedList<u32> = serde_json::from_str("[1,2,3]").unwrap();
        assert_eq!(back, [1, 2, 3].into_iter().collect());
        assert!(SharedList::<u32>::default().is_empty());
    }
}
