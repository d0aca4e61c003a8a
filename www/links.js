// Deep links: the viewer's place in a log (position, selected event,
// filters, search) written in the URL's hash, e.g.
// `#at=120&sel=118&kind=tool_completed&q=timeout`, and read back. Pure
// functions: no DOM, no location (deep-link.js reads and writes the hash).

/** The hash keys of the list filters, by the viewer's filter names. */
const LIST_KEYS = {
  kinds: "kind",
  categories: "category",
  kernel_categories: "kernel",
  primitives: "primitive",
};

/** A link's place: `at` null means the latest event (following a live
 * session), `sel` null no selection; empty lists and query filter nothing. */
export function emptyLink() {
  return {
    at: null,
    sel: null,
    kinds: [],
    categories: [],
    kernel_categories: [],
    primitives: [],
    query: "",
  };
}

/** `/` and `,` stay readable: a value is cut at `,` only in lists, where
 * an item's own commas are escaped. */
const encode = (value, list) => {
  const text = encodeURIComponent(value).replaceAll("%2F", "/");
  return list ? text : text.replaceAll("%2C", ",");
};

/** `+` is a space, as in a query string; a bad escape is kept as written. */
function decode(text) {
  const spaced = text.replaceAll("+", " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** A position: a whole number from 0, else null. */
function position(text) {
  return /^\d{1,15}$/.test(text) ? Number(text) : null;
}

/** The hash (without `#`) that holds `link`; "" when it holds nothing. */
export function encodeLink(link) {
  const parts = [];
  if (link.at !== null && link.at !== undefined) parts.push(`at=${link.at}`);
  if (link.sel !== null && link.sel !== undefined) parts.push(`sel=${link.sel}`);
  for (const [name, key] of Object.entries(LIST_KEYS)) {
    const items = link[name] ?? [];
    if (items.length) parts.push(`${key}=${items.map((v) => encode(v, true)).join(",")}`);
  }
  if (link.query) parts.push(`q=${encode(link.query, false)}`);
  return parts.join("&");
}

/** The link a hash holds (`#` optional). A list key may repeat or hold
 * comma-separated items; unknown keys and bad positions are ignored. */
export function decodeLink(hash) {
  const link = emptyLink();
  const keyNames = Object.fromEntries(Object.entries(LIST_KEYS).map(([n, k]) => [k, n]));
  for (const part of hash.replace(/^#/, "").split("&")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const key = decode(part.slice(0, eq));
    const value = part.slice(eq + 1);
    if (key === "at" || key === "sel") link[key] = position(value);
    else if (key === "q") link.query = decode(value);
    else if (keyNames[key]) {
      const list = link[keyNames[key]];
      for (const item of value.split(",").map(decode))
        if (item && !list.includes(item)) list.push(item);
    }
  }
  return link;
}
