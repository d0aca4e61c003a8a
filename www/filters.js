// The timeline's filters: the kinds, the category chips (and deepstrike's
// kernel categories and primitives, when the kind table has them) and the
// search query, as `filters` holds them; a change filters the timeline
// again (timeline.js's refilter).
import { num } from "/agent-replay/js/viewer/dom.js";
import { $ } from "./page-state.js";
import { refilter } from "./timeline.js";

export const filters = {
  kinds: [],
  categories: [],
  kernel_categories: [],
  primitives: [],
  query: "",
};

/** One filter chip per category of the kind table, and "unknown". */
export function addCategoryChips(categories) {
  for (const category of [...categories, "unknown"])
    $("categories").append(chip("categories", category, `cat-${category}`));
}

/** deepstrike's kernel categories and primitives, when the kind table has
 * them: a row of chips each (events pass when they match one chip of each
 * row that has one pressed). */
export function addKernelChips({ kernel_categories, primitives }) {
  $("kernel-filters").hidden = !kernel_categories.length && !primitives.length;
  for (const c of kernel_categories) $("kernel-categories").append(chip("kernel_categories", c));
  for (const p of primitives) $("primitives").append(chip("primitives", p));
}

/** A toggle chip for the filter list `key` (`categories`, ...). */
function chip(key, value, cls = "") {
  const el = document.createElement("button");
  el.type = "button";
  el.className = `chip ${cls}`;
  el.textContent = value;
  el.setAttribute("aria-pressed", String(filters[key].includes(value)));
  el.dataset.filter = key;
  el.dataset[key === "categories" ? "category" : "value"] = value;
  el.addEventListener("click", () => {
    const on = el.getAttribute("aria-pressed") !== "true";
    el.setAttribute("aria-pressed", String(on));
    filters[key] = [
      ...document.querySelectorAll(`.chip[data-filter=${key}][aria-pressed=true]`),
    ].map((c) => c.textContent);
    refilter();
  });
  return el;
}

/** The kind filter: every kind seen, kernel observations also by kind. */
export function fillKinds(counts, observations = {}) {
  const select = $("kind");
  const options = [new Option("all kinds", "")];
  for (const [kind, n] of Object.entries(counts ?? {}).sort()) {
    options.push(new Option(`${kind} (${num(n)})`, kind));
    if (kind !== "kernel_observation") continue;
    for (const [sub, m] of Object.entries(observations).sort())
      options.push(new Option(`  ${kind} › ${sub} (${num(m)})`, `${kind}/${sub}`));
  }
  select.replaceChildren(...options);
  showKinds();
}

/** The kind filter as `filters.kinds` holds it: a link may name kinds the
 * log lacks, or several, which get an option of their own. */
export function showKinds() {
  const select = $("kind");
  const value = filters.kinds.join(",");
  if (![...select.options].some((o) => o.value === value))
    select.append(new Option(filters.kinds.join(" + "), value));
  select.value = value;
}

$("kind").addEventListener("change", (e) => {
  filters.kinds = e.target.value ? e.target.value.split(",") : [];
  refilter();
});
