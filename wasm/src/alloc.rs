//! Geometric growth of the WebAssembly memory.
//!
//! std's wasm allocator (dlmalloc) grows linear memory by exactly what each
//! allocation needs, often one 64 KiB page at a time, and every
//! `memory.grow` is costly in V8 (5000 one-page grows: ~800 ms; 50 grows of
//! 100 pages: ~6 ms). Folding a 100 MB log into a view made thousands of
//! grows and turned linear work quadratic. This wrapper, when an allocation
//! has grown memory, allocates and frees a block an eighth as large as the
//! memory already is (at least 16 MiB, at most half of it): the allocator
//! grows once, and the freed block rejoins its free space for the
//! allocations that follow. Memory thus grows by 1.5× steps up to 32 MiB,
//! then by an eighth: a few dozen grows up to the 4 GiB limit, and a large
//! memory holds at most an eighth more than was allocated (a paged index of
//! a large log is held near the log's size). A caller that knows how much
//! is coming makes room for it in one grow (`reserve`).
//!
//! It also keeps the memory budget's figures (`crate::budget`): the bytes
//! allocated now, the most allocated since the current call began, the
//! limit, and whether the call grew the memory near the 4 GiB hard limit.
//! And it holds the limit as memory grows (`agent_replay::memory`): an
//! allocation that would take the allocated bytes past the limit is
//! refused (null) when the core asked for it fallibly (`try_reserve`, on
//! the big growth paths), and otherwise made, since refusing it would
//! abort the instance (a trap); either way the call is noted short of
//! memory, its log reader stops after the event it is reading and it
//! answers `limit_exceeded`. The geometric reserve never grows the memory past the
//! limit and `HEADROOM` either.

use std::alloc::{GlobalAlloc, Layout, System};
use std::arch::wasm32::memory_size;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

use agent_replay::memory;

/// Bytes currently allocated (requested sizes), for `memoryUsage()`.
static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

/// The most bytes allocated since `begin_call`: what the budget checks, so
/// a call that crossed the limit and freed again is still caught.
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// The budget on allocated bytes: 1 GiB below the 4 GiB a wasm32 memory can
/// reach, for fragmentation, the geometric reserve and what one call
/// allocates before it is checked.
pub const DEFAULT_LIMIT: usize = 3 << 30;

static LIMIT: AtomicUsize = AtomicUsize::new(DEFAULT_LIMIT);

pub fn allocated_bytes() -> usize {
    ALLOCATED.load(Relaxed)
}

pub fn limit_bytes() -> usize {
    LIMIT.load(Relaxed)
}

pub fn set_limit_bytes(bytes: usize) {
    LIMIT.store(bytes, Relaxed);
}

/// Pages of linear memory past which a call that grows the memory fails
/// the budget (3.75 GiB): allocated bytes can stay under the limit while
/// fragmentation and the reserve below take the memory close to 4 GiB, and
/// the call still needs room to finish before it is checked.
const CEILING_PAGES: usize = 61_440;

/// Whether the memory grew past the ceiling since `begin_call`.
static GREW_PAST_CEILING: AtomicBool = AtomicBool::new(false);

/// Room the geometric reserve leaves above the limit, for the allocations
/// a call cannot be refused (one event's text, parse and fold) before its
/// reader stops: the memory need not grow again for them.
const HEADROOM: usize = 16 << 20;

/// The bytes the last refused allocation would have brought the
/// allocations to (0 when none was refused since `begin_call`).
static REFUSED_AT: AtomicUsize = AtomicUsize::new(0);

/// Starts measuring a call's peak from what is allocated now.
pub fn begin_call() {
    PEAK.store(allocated_bytes(), Relaxed);
    REFUSED_AT.store(0, Relaxed);
    GREW_PAST_CEILING.store(false, Relaxed);
    memory::begin();
}

/// What a refused allocation would have brought the allocations to, if
/// one was refused since `begin_call`.
pub fn refused_at() -> Option<usize> {
    Some(REFUSED_AT.load(Relaxed)).filter(|&bytes| bytes > 0)
}

/// Whether an allocation taking the allocated bytes from `freed` less to
/// `size` more may be made: not past the limit in a fallible scope (and
/// noted), past it elsewhere (noted too).
fn may_allocate(size: usize, freed: usize) -> bool {
    let after = allocated_bytes().saturating_sub(freed).saturating_add(size);
    if after <= limit_bytes() {
        return true;
    }
    memory::note_short();
    if memory::in_fallible_scope() {
        REFUSED_AT.store(after, Relaxed);
        return false;
    }
    true
}

pub fn grew_past_ceiling() -> bool {
    GREW_PAST_CEILING.load(Relaxed)
}

pub fn peak_bytes() -> usize {
    PEAK.load(Relaxed)
}

fn count_added(size: usize) {
    let now = ALLOCATED.fetch_add(size, Relaxed).saturating_add(size);
    PEAK.fetch_max(now, Relaxed);
}

/// Bytes of linear memory (what the host sees).
pub fn memory_bytes() -> usize {
    memory_size(0).saturating_mul(PAGE)
}

pub struct GeometricGrowth;

const PAGE: usize = 64 * 1024;

/// Grows the memory by an eighth after it has grown (at least 16 MiB, at
/// most half of it or 256 MiB, never past the ceiling), or notes a growth
/// past the ceiling.
fn reserve_after_growth(pages_before: usize) {
    let pages = memory_size(0);
    if pages <= pages_before {
        return;
    }
    if pages > CEILING_PAGES {
        GREW_PAST_CEILING.store(true, Relaxed);
        return;
    }
    let top = CEILING_PAGES.saturating_mul(PAGE).min(limit_bytes().saturating_add(HEADROOM));
    let room = top.saturating_sub(pages.saturating_mul(PAGE));
    let memory = pages.saturating_mul(PAGE);
    make_room((memory / 8).max(16 << 20).min(memory / 2).min(256 << 20).min(room));
}

/// Allocates and frees a block of `bytes`: the allocator grows the memory
/// once, and the block rejoins its free space for the allocations that
/// follow.
fn make_room(bytes: usize) {
    if bytes == 0 {
        return;
    }
    if let Ok(layout) = Layout::from_size_align(bytes, 16) {
        // SAFETY: a fresh non-zero-size allocation, freed at once with the
        // same layout; System is the allocator that produced it.
        unsafe {
            let block = System.alloc(layout);
            if !block.is_null() {
                System.dealloc(block, layout);
            }
        }
    }
}

/// The largest block `reserve` asks for: a `Layout`'s size is at most
/// `isize::MAX`, 2 GiB on wasm32.
const LARGEST_RESERVE: usize = (isize::MAX as usize) & !(PAGE - 1);

/// Grows the memory in one step to hold `bytes` more than is allocated,
/// when the caller knows what is coming (a log of known size for a paged
/// index): growing step by step costs a grow each eighth, and each grow is
/// costly in V8. Never past the limit, the ceiling or `LARGEST_RESERVE` at
/// once; the memory not allocated now (free space, an upper bound of it)
/// counts as room already. The block is freed at once: the room is free
/// space the allocations that follow take, never counted as allocated.
pub fn reserve(bytes: usize) {
    let ceiling = CEILING_PAGES.saturating_mul(PAGE);
    let target = allocated_bytes().saturating_add(bytes).min(limit_bytes()).min(ceiling);
    make_room(target.saturating_sub(memory_bytes()).min(LARGEST_RESERVE));
}

/// Runs an allocation the limit allows, reserving after growth and
/// counting what it got.
fn counted(size: usize, allocate: impl FnOnce() -> *mut u8) -> *mut u8 {
    if !may_allocate(size, 0) {
        return std::ptr::null_mut();
    }
    let before = memory_size(0);
    let ptr = allocate();
    reserve_after_growth(before);
    if !ptr.is_null() {
        count_added(size);
    }
    ptr
}

// SAFETY: every call is delegated to System with its own arguments, or
// answered null (a refusal, which GlobalAlloc allows; realloc then leaves
// the block as it was); the reservation above allocates and frees through
// System too.
unsafe impl GlobalAlloc for GeometricGrowth {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        counted(layout.size(), || System.alloc(layout))
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        counted(layout.size(), || System.alloc_zeroed(layout))
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        ALLOCATED.fetch_sub(layout.size(), Relaxed);
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !may_allocate(new_size, layout.size()) {
            return std::ptr::null_mut();
        }
        let before = memory_size(0);
        let out = System.realloc(ptr, layout, new_size);
        reserve_after_growth(before);
        if !out.is_null() {
            ALLOCATED.fetch_sub(layout.size(), Relaxed);
            count_added(new_size);
        }
        out
    }
}
