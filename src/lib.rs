//! agent-replay: replay LLM-agent session event logs.
//!
//! A pure Rust core: the event schema ([`event`]), log loading ([`log`]),
//! the kernel's OS snapshot ([`snapshot`]), the rich session view
//! ([`view`]) and their incremental combination ([`state`]). The
//! WebAssembly bindings live in the `wasm/` crate and only delegate here.

pub mod event;
pub mod log;
pub mod snapshot;

pub use event::SessionEvent;
pub mod view;
pub mod json;
pub mod state;
pub mod generate;
pub mod live;
