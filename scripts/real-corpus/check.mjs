// Reads every log of the real-runtime corpus with the current agent-replay and prints what it
// says: load errors per code (and per kind and field), unknown kinds and their counts, and
// whether agent-replay's OS snapshot equals the SDK's own fold stored beside the log.
// Needs pkg/ (node scripts/build.mjs). Usage: node scripts/real-corpus/check.mjs [CORPUS_DIR]
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseLog, rebuildOsSnapshot, SessionState } from "../../js/node.js";

const dir = process.argv[2] ?? new URL("../../tests/corpus/deepstrike-0.2.77/", import.meta.url);
const logs = readdirSync(dir)
  .filter((name) => name.endsWith(".jsonl"))
  .sort();

const tally = (map, key, by = 1) => map.set(key, (map.get(key) ?? 0) + by);
const errorCodes = new Map();
const errorSites = new Map();
const unknownKinds = new Map();
let snapshotsEqual = 0;

/** Key order differs (agent-replay keeps the kernel's); compare the values. */
function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical(value[key])]),
    );
  }
  return value;
}

function snapshotVerdict(text, expected) {
  try {
    const ours = rebuildOsSnapshot(text);
    return JSON.stringify(canonical(ours)) === JSON.stringify(canonical(expected))
      ? "equal"
      : "DIFFERENT";
  } catch (error) {
    return `throws ${error.code} (${error.errors?.length ?? 0} errors)`;
  }
}

for (const name of logs) {
  const text = readFileSync(join(String(dir).replace(/^file:\/\//, ""), name), "utf8");
  const { events, errors } = parseLog(text);
  for (const error of errors) {
    tally(errorCodes, error.code);
    tally(errorSites, `${error.code} ${error.kind ?? "?"}.${error.field ?? "?"}: ${error.message}`);
  }
  const state = new SessionState();
  state.apply(text);
  const unknown = state.view().unknown;
  state.free();
  for (const event of unknown) tally(unknownKinds, event.kind);
  const expected = JSON.parse(
    readFileSync(
      join(String(dir).replace(/^file:\/\//, ""), name.replace(/\.jsonl$/, ".snapshot.json")),
      "utf8",
    ),
  );
  const verdict = snapshotVerdict(text, expected);
  if (verdict === "equal") snapshotsEqual += 1;
  console.log(
    `${name}: ${events.length} events, ${errors.length} errors, ${unknown.length} unknown, snapshot ${verdict}`,
  );
}

const print = (title, map) => {
  console.log(`\n${title}`);
  for (const [key, count] of [...map].sort((a, b) => b[1] - a[1]))
    console.log(`  ${count}\t${key}`);
};
print("Load errors per code", errorCodes);
print("Load errors per code, kind, field and message", errorSites);
print("Unknown kinds", unknownKinds);
console.log(`\nSnapshots equal to the SDK's fold: ${snapshotsEqual} of ${logs.length}`);
