//! agent-replay: replay LLM-agent session event logs.
//!
//! A pure Rust core: the event schema ([`event`]), log loading ([`log`]),
//! the kernel's OS snapshot ([`snapshot`]), the rich session view
//! ([`view`]) and their incremental combination ([`state`]). The
//! WebAssembly bindings live in the `wasm/` crate and only delegate here.

// Nothing reachable from input may panic: a panic in WebAssembly is a trap,
// and a trapped instance is dead for every later call. Arithmetic that
// input can overflow saturates (and says so); arithmetic an invariant keeps
// in range is plain, under a scoped `allow` that states the invariant.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented,
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects
    )
)]

pub mod event;
pub mod log;
pub mod snapshot;

pub use error::{Error, ErrorCode};
pub use event::SessionEvent;
pub mod error;
pub mod generate;
pub mod index;
pub mod json;
pub mod live;
pub mod memory;
pub mod shared_list;
pub mod shared_map;
pub mod state;
pub mod units;
pub mod view;
