// A directory of many runs for the dashboard's benchmark, tests and
// screenshot: copies of the real-runtime corpus logs under new session ids,
// each copy's provider clock moved on (so the runs spread over time), a
// workflow's sub-agent sessions named after their copy of the parent, as
// the runtime names them (`<parent>-<agent id>`).
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const corpus = new URL("../tests/corpus/deepstrike-0.2.77/", import.meta.url).pathname;
/** How far each copy's clock is moved on from the previous one's. */
const STEP_MS = 7 * 60_000;

/** The corpus as families: a log and the sub-agent logs it spawned (`name.sub.jsonl`). */
function families() {
  const names = readdirSync(corpus).filter((n) => n.endsWith(".jsonl"));
  const byParent = new Map();
  for (const name of names) {
    const [parent, child] = name.slice(0, -".jsonl".length).split(".");
    if (!byParent.has(parent)) byParent.set(parent, { parent, children: [] });
    const text = readFileSync(join(corpus, name), "utf8");
    if (child) byParent.get(parent).children.push({ suffix: child.slice(parent.length), text });
    else byParent.get(parent).text = text;
  }
  return [...byParent.values()].filter((f) => f.text);
}

/** `text` with every `_at_ms` time moved on by `shift`. */
const shifted = (text, shift) =>
  text.replace(/("(?:started|finished)_at_ms":)(\d+)/g, (_, key, ms) => key + (Number(ms) + shift));

/**
 * Writes `count` runs (sub-agent sessions not counted) into `dir`; returns
 * their session ids, parents and children, in the order written.
 */
export function writeRuns(dir, count, { skip = ["long_run"] } = {}) {
  const all = families().filter((f) => !skip.includes(f.parent));
  const ids = [];
  for (let i = 0; i < count; i += 1) {
    const family = all[i % all.length];
    const id = `${family.parent}-${String(i).padStart(5, "0")}`;
    const shift = i * STEP_MS;
    writeFileSync(join(dir, `${id}.jsonl`), shifted(family.text, shift));
    ids.push(id);
    for (const child of family.children) {
      writeFileSync(join(dir, `${id}${child.suffix}.jsonl`), shifted(child.text, shift));
      ids.push(`${id}${child.suffix}`);
    }
  }
  return ids;
}
