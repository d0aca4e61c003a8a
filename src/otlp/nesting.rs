//! The times and parents every trace viewer assumes: no span ends before
//! it starts, and each span lies within its parent's (a waterfall draws a
//! child outside its parent, or a negative bar, as broken data). The log's
//! times can break both (attempts that overlap, a process recorded before
//! the call that spawned it), so the spans are clamped to them here, and a
//! moment moved is marked synthetic.
//!
//! (`#[inline]` throughout: see the parent module's doc.)

use std::collections::HashMap;

use super::clock::Moment;
use super::spans::Draft;

#[inline]
fn synthetic(nanos: u64) -> Moment {
    Moment { nanos, real: false }
}

/// Ends no span before its start, and puts its events within it.
/// (`max` then `min`, not `clamp`, which panics on bounds out of order.)
#[inline]
pub fn order(draft: &mut Draft) {
    if draft.end.nanos < draft.start.nanos {
        draft.end = synthetic(draft.start.nanos);
    }
    let (start, end) = (draft.start.nanos, draft.end.nanos);
    for event in &mut draft.events {
        event.time = event.time.max(start).min(end);
    }
}

/// Moves the span, and its events, within `lo..=hi`.
#[inline]
fn clamp(draft: &mut Draft, lo: u64, hi: u64) {
    let start = draft.start.nanos.max(lo).min(hi);
    if start != draft.start.nanos {
        draft.start = synthetic(start);
    }
    let end = draft.end.nanos.min(hi);
    if end != draft.end.nanos {
        draft.end = synthetic(end);
    }
    order(draft);
}

/// How many spans up the root is from `i`, or `None` if its parents loop
/// or name no span of the trace.
#[inline]
fn depth(children: &[Draft], index: &HashMap<String, usize>, i: usize) -> Option<usize> {
    let mut at = i;
    for steps in 0..=children.len() {
        match children.get(at)?.parent.as_deref() {
            None => return Some(steps),
            Some(parent) => at = *index.get(parent)?,
        }
    }
    None
}

/// Puts each of `children` within its parent, the root's children within
/// `root` (which is ordered and spans them). A span whose parents loop or
/// are missing goes under the root.
#[inline]
pub fn nest(root: &Draft, children: &mut [Draft]) {
    // (The map type the transcript's folder uses: one copy in the .wasm.)
    let index: HashMap<String, usize> =
        children.iter().enumerate().map(|(i, d)| (d.span_id.clone(), i)).collect();
    let depths: Vec<Option<usize>> =
        (0..children.len()).map(|i| depth(children, &index, i)).collect();
    // (A span whose parents loop or are missing has none: the root.)
    let parents: Vec<Option<usize>> = children
        .iter()
        .zip(&depths)
        .map(|(d, depth)| depth.and(d.parent.as_deref().and_then(|p| index.get(p).copied())))
        .collect();
    // Parents before children: the spans bucketed by depth.
    let mut by_depth: Vec<Vec<usize>> = Vec::new();
    for (i, depth) in depths.iter().enumerate() {
        let depth = depth.unwrap_or(0);
        by_depth.resize_with(by_depth.len().max(depth.saturating_add(1)), Vec::new);
        if let Some(bucket) = by_depth.get_mut(depth) {
            bucket.push(i);
        }
    }
    for i in by_depth.into_iter().flatten() {
        let parent = parents.get(i).copied().flatten();
        let bounds = parent
            .and_then(|p| children.get(p))
            .map_or((root.start.nanos, root.end.nanos), |p| (p.start.nanos, p.end.nanos));
        if let Some(d) = children.get_mut(i) {
            if parent.is_none() {
                d.parent = None;
            }
            clamp(d, bounds.0, bounds.1);
        }
    }
}
