// The memory of a process tree, read from /proc (Linux): what a browser
// holds, whichever engine, is the sum over its processes (the browser's
// own, its content/renderer/web processes, its GPU and network processes).
// Each process's RSS counts in full the pages it shares with the others
// (libraries, shared memory), so their sum counts them again and again;
// PSS splits each shared page among its sharers, so the sum of PSS counts
// every page once.
import { readFileSync, readdirSync } from "node:fs";

/** Every process now: `{pid, ppid, name}` (one that ends meanwhile is left out). */
function processes() {
  const all = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // "pid (name) state ppid ...": the name may hold spaces and parentheses.
      const close = stat.lastIndexOf(")");
      const ppid = Number(stat.slice(close + 2).split(" ")[1]);
      all.push({ pid: Number(entry), ppid, name: stat.slice(stat.indexOf("(") + 1, close) });
    } catch {
      // ended between the listing and the read
    }
  }
  return all;
}

/** The processes `parent` started (its direct children): `{pid, name}`. */
export function childrenOf(parent = process.pid) {
  return processes()
    .filter((p) => p.ppid === parent)
    .map(({ pid, name }) => ({ pid, name }));
}

/** The `Rss` and `Pss` in kB of one process, 0 once it has ended. */
function memoryKb(pid) {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(rollup)?.[1] ?? 0);
    return { rss: field("Rss"), pss: field("Pss") };
  } catch {
    return { rss: 0, pss: 0 };
  }
}

/** The summed RSS and PSS in MB (`{rss, pss}`) of the processes `roots`
 * and all their descendants. */
export function treeMemoryMb(roots) {
  const all = processes();
  const tree = new Set(roots);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (!tree.has(p.pid) && tree.has(p.ppid)) {
        tree.add(p.pid);
        grew = true;
      }
    }
  }
  const sum = { rss: 0, pss: 0 };
  for (const pid of tree) {
    const kb = memoryKb(pid);
    sum.rss += kb.rss / 1024;
    sum.pss += kb.pss / 1024;
  }
  return sum;
}

/** Samples the tree's memory every `ms`; `peak()` is the highest RSS and
 * PSS seen (each at its own moment; with one more sample). */
export function memorySampler(roots, ms = 500) {
  const peak = treeMemoryMb(roots);
  const sample = () => {
    const now = treeMemoryMb(roots);
    peak.rss = Math.max(peak.rss, now.rss);
    peak.pss = Math.max(peak.pss, now.pss);
    return peak;
  };
  const timer = setInterval(sample, ms);
  return { peak: sample, stop: () => clearInterval(timer) };
}
