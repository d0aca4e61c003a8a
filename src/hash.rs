//! The hasher of every hash map in the crate: FNV-1a, a few instructions
//! per byte, in place of std's SipHash. The maps are keyed by short ids
//! (call, agent and session ids, turn numbers). In WebAssembly std's
//! hasher has no random keys anyway (wasm32-unknown-unknown has no source
//! of randomness: its keys come from a memory address, the same on every
//! run), so SipHash bought no flooding resistance there, only code: its
//! rounds were inlined at every map operation of every key type.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// FNV-1a over the bytes written.
#[derive(Debug, Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` hashed with [`Fnv`].
pub type Map<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;
