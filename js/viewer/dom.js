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

const numbers = new Intl.NumberFormat("en-US");

/** Formats counts and token totals (U64 strings stay exact). Whole numbers
 * are grouped by hand: Intl's format is slow enough to show when a panel
 * of counts is drawn at every time-travel step. */
export function num(n) {
  if (typeof n === "string") return n;
  if (Number.isSafeInteger(n)) {
    const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ",");
    return n < 0 ? `-${digits}` : digits;
  }
  return typeof n === "number" ? numbers.format(n) : "–";
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

/** The keyed children of `old` that `fresh` has too, by key (the others
 * are removed first, so the kept ones after them need not move); null when
 * neither has a keyed child. */
function keptByKey(old, fresh) {
  let wanted = null;
  for (let f = fresh.firstChild; f; f = f.nextSibling) {
    const key = keyOf(f);
    if (key === null) continue;
    wanted = wanted ?? new Set();
    wanted.add(key);
  }
  let kept = null;
  for (let c = old.firstChild; c; ) {
    const next = c.nextSibling;
    const key = keyOf(c);
    if (key !== null && wanted?.has(key)) {
      kept = kept ?? new Map();
      kept.set(key, c);
    } else if (key !== null) c.remove();
    c = next;
  }
  return kept ?? (wanted ? new Map() : null);
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
  const keyed = keptByKey(old, fresh);
  let cur = old.firstChild;
  for (let f = fresh.firstChild; f; ) {
    const next = f.nextSibling;
    const key = keyed && keyOf(f);
    let match = null;
    if (key) match = keyed.get(key) ?? null;
    else if (cur && !(keyed && keyOf(cur)) && cur.nodeName === f.nodeName) match = cur;
    if (match) {
      if (key) keyed.delete(key);
      if (match === cur) cur = cur.nextSibling;
      else old.insertBefore(match, cur);
      if (!keep.has(match)) morphNode(match, f, keep);
    } else old.insertBefore(f, cur);
    f = next;
  }
  while (cur) {
    const next = cur.nextSibling;
    cur.remove();
    cur = next;
  }
}

function morphNode(old, fresh, keep) {
  if (old.nodeType !== 1) {
    if (old.nodeValue !== fresh.nodeValue) old.nodeValue = fresh.nodeValue;
    return;
  }
  syncAttributes(old, fresh);
  morphChildren(old, fresh, keep);
}
