//! The memory limit held during a call (`agent_replay::memory`), natively:
//! this test's allocator does per thread what the WebAssembly one does
//! (wasm/src/alloc.rs): past a limit it refuses the core's fallible growths
//! and notes every other allocation as memory short. The reader must stop
//! at the next event, each call must answer `limit_exceeded`, and the live
//! session must say how many events it appended.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use agent_replay::error::ErrorCode;
use agent_replay::generate::generate_jsonl;
use agent_replay::index::SessionIndex;
use agent_replay::live::{ReplaySession, ReplayStore, StoreConfig};
use agent_replay::log::LogOptions;
use agent_replay::memory;
use agent_replay::units::Millis;
use agent_replay::Error;

thread_local! {
    /// Bytes allocated by this thread, its limit (none: `usize::MAX`) and peak.
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
    static LIMIT: Cell<usize> = const { Cell::new(usize::MAX) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

/// Whether this thread may take `grow` more bytes (and counts them).
fn may_take(grow: usize, freed: usize) -> bool {
    let Ok(now) = ALLOCATED.try_with(Cell::get) else { return true };
    let after = now.saturating_sub(freed) + grow;
    if after > LIMIT.with(Cell::get) {
        memory::note_short();
        if memory::in_fallible_scope() {
            return false;
        }
    }
    ALLOCATED.with(|n| n.set(after));
    PEAK.with(|p| p.set(p.get().max(after)));
    true
}

struct LimitedAllocator;

// SAFETY: every call is passed on to `System` unchanged, or refused (null).
unsafe impl GlobalAlloc for LimitedAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !may_take(layout.size(), 0) {
            return std::ptr::null_mut();
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let _ = ALLOCATED.try_with(|n| n.set(n.get().saturating_sub(layout.size())));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !may_take(new_size, layout.size()) {
            return std::ptr::null_mut();
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static LIMITED: LimitedAllocator = LimitedAllocator;

/// Sets this thread's limit `room` bytes above what it holds, as a call
/// begins; returns the limit.
fn limit_with_room(room: usize) -> usize {
    let limit = ALLOCATED.with(Cell::get) + room;
    LIMIT.with(|l| l.set(limit));
    PEAK.with(|p| p.set(0));
    memory::begin();
    limit
}

const ONE_EVENT: usize = 1 << 20;

#[test]
fn an_index_stops_at_the_limit_and_says_so() {
    let log = generate_jsonl(3, 16 << 20).into_bytes();
    let mut index = SessionIndex::new(None);
    let limit = limit_with_room(log.len() + (4 << 20));
    let stop = index.apply_bytes(&log, LogOptions::default()).unwrap_err();
    assert_eq!(Error::from(stop).code, ErrorCode::LimitExceeded);
    assert!(PEAK.with(Cell::get) <= limit + ONE_EVENT, "past the limit by more than an event");
    assert!(index.event_count() > 0, "the events before the limit are indexed");
}

#[test]
fn a_live_append_stops_at_the_limit_and_counts_what_it_appended() {
    let store = Rc::new(RefCell::new(ReplayStore::new(StoreConfig::default(), "i").unwrap()));
    let session = ReplaySession::new("s", Rc::clone(&store)).unwrap();
    let log = generate_jsonl(4, 4 << 20).into_bytes();
    let limit = limit_with_room(log.len() / 2);
    let stop = session.append(&log, Millis(0), None).unwrap_err();
    let stop = Error::from(stop);
    assert_eq!(stop.code, ErrorCode::LimitExceeded);
    assert!(PEAK.with(Cell::get) <= limit + ONE_EVENT);
    let appended: usize = stop.message.split(' ').filter_map(|w| w.parse().ok()).next().unwrap();
    assert!(appended > 0);
    LIMIT.with(|l| l.set(usize::MAX));
    assert_eq!(session.read_summary(|s| s.event_count), appended as u64);
}

#[test]
fn a_deferring_index_stops_at_the_limit_with_every_event_it_took_checked() {
    // Every `entropy_sample` invalid: each is deferred, each must be
    // refused by the check, wherever the limit stops the read.
    let log = generate_jsonl(5, 2 << 20).replace(r#""score":"#, r#""score":"x","s":"#);
    let mut stops = 0;
    for room in (0..64).map(|i| log.len() + i * 37_199) {
        let mut index = SessionIndex::new(None).deferring(true);
        limit_with_room(room);
        stops +=
            usize::from(index.apply_log(log.clone().into_bytes(), LogOptions::default()).is_err());
        LIMIT.with(|l| l.set(usize::MAX));
        while !index.check_step(1 << 20).done {}
        for e in index.events(1, u64::MAX) {
            assert!(
                agent_replay::SessionEvent::from_json(e.text).is_ok(),
                "room {room}: {}",
                e.text
            );
        }
    }
    assert!(stops > 10, "{stops} loads stopped at the limit");
}
