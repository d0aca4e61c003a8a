// The times and parents every trace viewer assumes: no span ends before
// it starts, and each span lies within its parent's (a waterfall draws a
// child outside its parent, or a negative bar, as broken data). The log's
// times can break both (attempts that overlap, a process recorded before
// the call that spawned it), so the spans are clamped to them here, and a
// moment moved is marked synthetic.
import { max, min, synthetic } from "./clock.js";

/** Ends no span before its start, and puts its events within it. */
export function order(draft) {
  if (draft.end.nanos < draft.start.nanos) draft.end = synthetic(draft.start.nanos);
  for (const event of draft.events)
    event.time = min(max(event.time, draft.start.nanos), draft.end.nanos);
}

/** Moves the span, and its events, within `lo..=hi`. */
function clamp(draft, lo, hi) {
  const start = min(max(draft.start.nanos, lo), hi);
  if (start !== draft.start.nanos) draft.start = synthetic(start);
  const end = min(draft.end.nanos, hi);
  if (end !== draft.end.nanos) draft.end = synthetic(end);
  order(draft);
}

/** How many spans up the root is from `i`, or undefined if its parents
 * loop or name no span of the trace. */
function depth(children, index, i) {
  let at = i;
  for (let steps = 0; steps <= children.length; steps++) {
    const parent = children[at].parent;
    if (parent === undefined) return steps;
    at = index.get(parent);
    if (at === undefined) return undefined;
  }
  return undefined;
}

/** Puts each of `children` within its parent, the root's children within
 * `root` (which is ordered and spans them). A span whose parents loop or
 * are missing goes under the root. */
export function nest(root, children) {
  const index = new Map(children.map((d, i) => [d.spanId, i]));
  const depths = children.map((_, i) => depth(children, index, i));
  const parents = children.map((d, i) =>
    depths[i] === undefined || d.parent === undefined ? undefined : index.get(d.parent),
  );
  // Parents before children: the spans bucketed by depth.
  const byDepth = [];
  for (const [i, d] of depths.entries()) {
    const bucket = byDepth[d ?? 0] ?? [];
    bucket.push(i);
    byDepth[d ?? 0] = bucket;
  }
  for (const i of byDepth.flat()) {
    const parent = parents[i] === undefined ? root : children[parents[i]];
    if (parents[i] === undefined) children[i].parent = undefined;
    clamp(children[i], parent.start.nanos, parent.end.nanos);
  }
}
