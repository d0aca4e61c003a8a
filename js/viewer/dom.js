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
