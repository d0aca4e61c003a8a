// Search across runs: asks GET /api/search for the events of every session
// that hold a text, and lists each match as a deep link into the viewer at
// its position, with the query carried over to the viewer's own search
// (`/sessions/ID#at=P&sel=P&q=TEXT`: the redirect keeps the hash).
import { encodeLink, emptyLink } from "./links.js";
import { fmt } from "./sessions-rows.js";

/** The viewer's address of a match: the session opened at the event, selected. */
export function matchLink(match, query) {
  const link = { ...emptyLink(), at: match.position, sel: match.position, query };
  return `/sessions/${encodeURIComponent(match.session_id)}#${encodeLink(link)}`;
}

function item(match, query) {
  const li = document.createElement("li");
  li.dataset.testid = "search-match";
  const a = document.createElement("a");
  a.href = matchLink(match, query);
  a.textContent = `${match.session_id} · event ${fmt(match.position)}`;
  const text = document.createElement("code");
  text.textContent = match.text;
  li.append(a, text);
  return li;
}

/** What the answer's counts say, and whether it was cut short. */
function summaryOf(found) {
  const n = found.matches.length;
  let text = `${fmt(n)} match${n === 1 ? "" : "es"} in ${fmt(found.sessions_searched)} sessions searched`;
  if (found.truncated) text += " (first ones only: refine the search)";
  if (found.timed_out) text += " (stopped: took too long)";
  return text;
}

/** Wires the search form (`form`, its input `input`) to list matches into `out`. */
export function startSearch(form, input, out, status) {
  let asked = 0;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const query = input.value;
    if (!query.trim()) {
      out.replaceChildren();
      status.textContent = "";
      return;
    }
    const mine = ++asked;
    status.textContent = "searching…";
    try {
      const response = await fetch(`/api/search?${new URLSearchParams({ q: query })}`);
      const found = await response.json();
      if (mine !== asked) return;
      if (!response.ok) throw new Error(found.error?.message ?? `HTTP ${response.status}`);
      out.replaceChildren(...found.matches.map((m) => item(m, query)));
      status.textContent = summaryOf(found);
    } catch (error) {
      if (mine === asked) status.textContent = `search: ${error.message}`;
    }
  });
}
