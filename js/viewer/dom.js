// A tiny element builder: h("div", {class: "x", onclick}, child, "text").

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

/** Intl's formatters by options, made when first used: making one costs
 * enough to show in the page's start if done when the module loads. */
const formatters = new Map();
function formatter(options) {
  const key = JSON.stringify(options);
  if (!formatters.has(key)) formatters.set(key, new Intl.NumberFormat("en-US", options));
  return formatters.get(key);
}

/** Formats counts and token totals (U64 strings stay exact). Whole numbers
 * are grouped by hand: Intl's format is slow enough to show when a panel
 * of counts is drawn at every time-travel step. */
export function num(n) {
  if (typeof n === "string") return n;
  if (Number.isSafeInteger(n)) {
    const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ",");
    return n < 0 ? `-${digits}` : digits;
  }
  return typeof n === "number" ? formatter({}).format(n) : "–";
}

/** A number in at most four characters or so ("950", "1.2K", "3.4M"): an
 * axis's tick labels, which must fit its fixed width. */
export function compact(n) {
  return formatter({ notation: "compact", maximumFractionDigits: 1 }).format(n);
}

/** An axis's tick labels for ticks `increment` apart: below a thousand
 * with the increment's own decimals (ticks 0.05 apart read 0.25 and 0.30,
 * not 0.3 twice), from a thousand on `compact`. */
export function tickLabels(ticks, increment) {
  const decimals = Math.min(6, decimalsOf(increment));
  const fixed = formatter({ minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  return ticks.map((v) => (Math.abs(v) >= 1000 ? compact(v) : fixed.format(v)));
}

/** The decimals a number is written with (0.25 → 2, 5 → 0). */
function decimalsOf(n) {
  if (!Number.isFinite(n)) return 0;
  const text = String(Number(Math.abs(n).toPrecision(6)));
  const [digits, exponent] = text.split("e");
  const fraction = (digits.split(".")[1] ?? "").length;
  return Math.max(0, fraction - Number(exponent ?? 0));
}

/** Fresh nodes that stand in for the node they match (`standIn`). */
const standIns = new WeakSet();

/** Marks `el`, a fresh node, as a stand-in: where `morphChildren` matches
 * it to a node already shown, that node takes its attributes and keeps its
 * children; where nothing matches, `el` itself is put in. Returns `el`. */
export function standIn(el) {
  standIns.add(el);
  return el;
}

/** Which of its siblings a node is, across renders: a transcript entry by
 * its position, a panel by its test id; other nodes match by place. */
function keyOf(node) {
  if (node.nodeType !== 1) return null;
  const position = node.getAttribute("data-position");
  if (position !== null) return `p${position}`;
  const id = node.getAttribute("data-testid");
  return id === null ? null : `t${id}`;
}

function syncAttributes(old, fresh) {
  const attributes = fresh.attributes;
  for (let i = 0; i < attributes.length; i++) {
    const { name, value } = attributes[i];
    if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  }
  // Now `old` has every attribute of `fresh`: any more are to go.
  const own = old.attributes;
  for (let i = own.length - 1; own.length > attributes.length && i >= 0; i--)
    if (!fresh.hasAttribute(own[i].name)) old.removeAttribute(own[i].name);
}

/** The keys of `parent`'s keyed children, by node, or null when it has
 * none. A key repeated among siblings (the tool calls of one event share
 * its position) is told apart by its count. */
function childKeys(parent) {
  let keys = null;
  let seen = null;
  for (let c = parent.firstChild; c; c = c.nextSibling) {
    const key = keyOf(c);
    if (key === null) continue;
    keys = keys ?? new Map();
    seen = seen ?? new Map();
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    keys.set(c, n ? `${key}#${n}` : key);
  }
  return keys;
}

/**
 * Makes `old`'s children what `fresh`'s are, changing only what differs:
 * nodes that stay are kept (the browser then restyles and lays out only
 * what changed, not the whole tree), new ones are moved over from `fresh`.
 * Kept nodes keep their listeners, so a node with a listener must have a
 * key that fixes what the listener does (transcript entries: their
 * position). Nodes in `keep` (old ones) are left as they are when matched.
 */
export function morphChildren(old, fresh, keep = new Set()) {
  const freshKeys = childKeys(fresh);
  const oldKeys = childKeys(old);
  const keyed = new Map();
  if (oldKeys) {
    const wanted = new Set(freshKeys?.values());
    // Gone ones first, so the kept ones after them need not move.
    for (const [node, key] of oldKeys) {
      if (wanted.has(key)) keyed.set(key, node);
      else node.remove();
    }
  }
  let cur = old.firstChild;
  for (let f = fresh.firstChild; f; ) {
    const next = f.nextSibling;
    const key = freshKeys?.get(f);
    let match = null;
    if (key) match = keyed.get(key) ?? null;
    else if (cur && !oldKeys?.has(cur) && cur.nodeName === f.nodeName) match = cur;
    if (match) {
      if (key) keyed.delete(key);
      if (match === cur) cur = cur.nextSibling;
      else old.insertBefore(match, cur);
      if (standIns.has(f)) syncAttributes(match, f);
      else if (!keep.has(match)) morphNode(match, f, keep);
    } else old.insertBefore(f, cur);
    f = next;
  }
  while (cur) {
    const next = cur.nextSibling;
    cur.remove();
    cur = next;
  }
}

/** Makes `old` what `fresh` is, as `morphChildren` does for children. */
export function morphNode(old, fresh, keep = new Set()) {
  if (old.nodeType !== 1) {
    if (old.nodeValue !== fresh.nodeValue) old.nodeValue = fresh.nodeValue;
    return;
  }
  syncAttributes(old, fresh);
  morphChildren(old, fresh, keep);
}
