//! The memory budget: running out of memory is `limit_exceeded`, never a
//! trap.
//!
//! A failed allocation in Rust aborts, and on wasm32 an abort is a trap
//! that leaves the instance unusable. So the bindings keep a soft limit on
//! allocated bytes (`alloc::DEFAULT_LIMIT`, or `setMemoryLimit` from JS)
//! well below the 4 GiB hard limit. The allocator holds it while a call
//! runs (`alloc`, `agent_replay::memory`: the big growths are refused, and
//! a log's reader stops at the event that went past it), and every call that can
//! allocate much runs through [`run`]: when the call's peak went past the
//! limit, the allocator refused it, or the call grew the memory itself
//! past 3.75 GiB (fragmentation can take the memory there with allocations
//! under the limit), what it returned is dropped and it throws
//! `limit_exceeded`. Live appends run through [`append`] instead: what
//! they appended is reported, not failed after the fact. An object the call
//! changed is dropped too by its binding (`SessionState` is then unusable,
//! with the same code), so its memory returns to the module for the others.
//! Results serialized to JSON go through [`json`], which stops before the
//! output would cross the limit, and inputs that cannot fit are refused in
//! JS before they are copied in (`fitsInput`).

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use agent_replay::error::{Error, ErrorCode};
use agent_replay::json::{to_js_json_within, WriteJson};
use wasm_bindgen::prelude::*;

use crate::{alloc, js_error};

/// `limit_exceeded`, saying what was in use and the limit.
fn over_budget(what: &str, bytes: u64) -> Error {
    Error::new(
        ErrorCode::LimitExceeded,
        format!(
            "{what}: past the WebAssembly memory limit of {} bytes ({bytes} bytes in use \
             or asked for; setMemoryLimit sets the limit)",
            alloc::limit_bytes()
        ),
    )
}

/// `limit_exceeded` for a call that grew the memory near wasm32's 4 GiB.
fn near_hard_limit(what: &str) -> Error {
    Error::new(
        ErrorCode::LimitExceeded,
        format!(
            "{what}: the WebAssembly memory grew to {} bytes, near wasm32's 4 GiB \
             ({} bytes allocated)",
            alloc::memory_bytes(),
            alloc::allocated_bytes()
        ),
    )
}

/// Runs one call; `Err` when its peak went past the limit, the allocator
/// refused it memory, or it grew the memory past the ceiling (its result
/// is then dropped). The caller drops what the call changed.
pub fn run<T>(what: &str, call: impl FnOnce() -> T) -> Result<T, Error> {
    alloc::begin_call();
    let out = call();
    verdict(what).map(|()| out)
}

/// Whether the call since `begin_call` kept to the budget (`run`; one copy
/// for every `T`).
#[inline(never)]
fn verdict(what: &str) -> Result<(), Error> {
    let peak = alloc::peak_bytes();
    if peak > alloc::limit_bytes() || alloc::refused_at().is_some() {
        let asked = alloc::refused_at().unwrap_or(0).max(peak);
        return Err(over_budget(what, asked as u64));
    }
    if alloc::grew_past_ceiling() {
        return Err(near_hard_limit(what));
    }
    Ok(())
}

/// [`run`] for a call that changes nothing it does not return.
pub fn guard<T>(what: &str, call: impl FnOnce() -> Result<T, JsValue>) -> Result<T, JsValue> {
    run(what, call).map_err(js_error)?
}

/// Runs an append to the live store, which reports what it appended rather
/// than failing after the fact: refused up front (nothing appended) when
/// `bytes` more would pass the limit, then run with the allocator holding
/// the limit, which the store meets by refusing the event it has no room
/// for (`limit_exceeded`) or, for a log, by stopping before it.
pub fn append<T>(what: &str, bytes: usize, call: impl FnOnce() -> T) -> Result<T, JsValue> {
    begin_append(what, bytes)?;
    Ok(call())
}

/// `append`'s start (one copy for every `T`).
#[inline(never)]
fn begin_append(what: &str, bytes: usize) -> Result<(), JsValue> {
    if !may_grow(bytes) {
        return Err(js_error(over_budget(what, REFUSED_AT.load(Relaxed) as u64)));
    }
    alloc::begin_call();
    Ok(())
}

/// Whether growing by `bytes` keeps the allocations within the limit.
/// Records the bytes it refuses, for the error's message.
fn may_grow(bytes: usize) -> bool {
    let after = alloc::allocated_bytes().saturating_add(bytes);
    REFUSED_AT.store(after, Relaxed);
    after <= alloc::limit_bytes()
}

/// The bytes a refused growth would have brought the allocations to.
static REFUSED_AT: AtomicUsize = AtomicUsize::new(0);

/// `value` as JS-safe JSON, or `limit_exceeded` before it would pass the
/// limit.
/// (Over `&dyn WriteJson`: compiled once for every type.)
#[inline(never)]
pub fn json(what: &str, value: &dyn WriteJson) -> Result<String, JsValue> {
    to_js_json_within(value, may_grow)
        .ok_or_else(|| js_error(over_budget(what, REFUSED_AT.load(Relaxed) as u64)))
}

/// Refuses up front an input of `bytes` that cannot fit: copied into the
/// module, it alone would pass the limit (JS calls this before the copy,
/// which would trap if memory ran out).
#[wasm_bindgen(js_name = fitsInput)]
pub fn fits_input(what: &str, bytes: f64) -> Result<(), JsValue> {
    let need = (alloc::allocated_bytes() as f64) + bytes;
    if need > alloc::limit_bytes() as f64 {
        return Err(js_error(over_budget(what, need as u64)));
    }
    Ok(())
}

/// Sets the budget in bytes (JS validates it; at most what usize holds).
#[wasm_bindgen(js_name = setMemoryLimit)]
pub fn set_memory_limit(bytes: f64) {
    alloc::set_limit_bytes(bytes as usize);
}

/// What an object dropped over the budget throws.
fn dropped(name: &str, why: &Error) -> JsValue {
    js_error(Error::new(why.code, format!("{name} dropped: {}", why.message)))
}

/// An object a binding holds under the budget: a call that takes memory
/// past it drops the object, so its memory is free for the rest of the
/// module, and the object then throws that `limit_exceeded` until freed.
pub struct Held<T> {
    /// The class's name, for the error of a dropped object.
    name: &'static str,
    inner: Result<T, Error>,
}

impl<T> Held<T> {
    pub fn new(name: &'static str, inner: T) -> Self {
        Held { name, inner: Ok(inner) }
    }

    pub fn get(&self) -> Result<&T, JsValue> {
        self.inner.as_ref().map_err(|why| dropped(self.name, why))
    }

    /// Runs a call that changes the object under the budget; past it, the
    /// object is dropped.
    pub fn fold<R>(
        &mut self,
        what: &str,
        call: impl FnOnce(&mut T) -> Result<R, Error>,
    ) -> Result<R, JsValue> {
        let inner = match self.inner.as_mut() {
            Ok(inner) => inner,
            Err(why) => return Err(dropped(self.name, why)),
        };
        match run(what, || call(inner)) {
            Ok(out) => out.map_err(js_error),
            Err(over) => {
                self.inner = Err(over.clone());
                Err(js_error(over))
            }
        }
    }

    /// Runs a call that only reads the object under the budget.
    pub fn read<R>(
        &self,
        what: &str,
        call: impl FnOnce(&T) -> Result<R, JsValue>,
    ) -> Result<R, JsValue> {
        let inner = self.get()?;
        guard(what, || call(inner))
    }
}
