// Input buffers (issue 28, "the bytes written where they will stay"), in
// Node, on one log FILE: each pair of contenders run alternately in one
// process, REPS times, and the median of the per-pair ratios printed, of
// the process's CPU time (user + system: less swayed than wall time by the
// other processes of a shared machine, not free of them; only the ratios
// mean anything).
//   snapshot: readFileSync + rebuildOsSnapshot(bytes)  vs  allocInput +
//             readSync into input.bytes + rebuildOsSnapshot(input.bytes)
//   copy:     rebuildOsSnapshot(bytes read before)  vs  of a buffer filled
//             before (the fold alone): the copy-in's share of the call
//   index:    256 KiB chunks, readSync into a Uint8Array + write(chunk)  vs
//             readSync into a fresh input buffer + write(input.bytes)
// Usage: node benches/input-buffers.mjs FILE [REPS]
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { SessionIndex, allocInput, rebuildOsSnapshot } from "agent-replay";

const [file, repsArg = "7"] = process.argv.slice(2);
if (!file) throw new Error("usage: node benches/input-buffers.mjs FILE [REPS]");
const reps = Number(repsArg);
const size = statSync(file).size;
const CHUNK = 256 << 10;

/** The CPU time `f` takes, in ms. */
function timed(f) {
  const t = process.cpuUsage();
  f();
  const { user, system } = process.cpuUsage(t);
  return (user + system) / 1000;
}

/** The whole file in an input buffer (the view, at `size` bytes). */
function readIntoInput() {
  const input = allocInput(size);
  const fd = openSync(file, "r");
  for (let at = 0; at < size; ) at += readSync(fd, input.bytes, at, size - at, at);
  closeSync(fd);
  return input;
}

/** Indexes FILE in 256 KiB chunks, each read by `write(fd, at)`. */
function indexed(write) {
  const fd = openSync(file, "r");
  const index = new SessionIndex();
  index.reserve(size);
  for (let at = 0; at < size; ) at += write(index, fd, at);
  index.end();
  closeSync(fd);
  index.free();
}

const plain = new Uint8Array(CHUNK);
const pairs = {
  snapshot: [
    () => rebuildOsSnapshot(readFileSync(file)),
    () => rebuildOsSnapshot(readIntoInput().bytes),
  ],
  copy: [(bytes) => rebuildOsSnapshot(bytes), (_, input) => rebuildOsSnapshot(input.bytes)],
  index: [
    () =>
      indexed((index, fd, at) => {
        const n = readSync(fd, plain, 0, CHUNK, at);
        index.write(plain.subarray(0, n));
        return n;
      }),
    () =>
      indexed((index, fd, at) => {
        const input = allocInput(Math.min(CHUNK, size - at));
        const n = readSync(fd, input.bytes, 0, input.capacity, at);
        index.write(input.bytes.subarray(0, n));
        return n;
      }),
  ],
};

const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
console.log(`${file}: ${size} bytes, ${reps} alternating pairs each; medians`);
console.log("| pair | before, CPU ms | buffer, CPU ms | buffer / before |\n|---|---:|---:|---:|");
for (const [name, [before, after]] of Object.entries(pairs)) {
  const times = [[], []];
  const ratios = [];
  for (let r = 0; r < reps; r++) {
    const bytes = name === "copy" ? readFileSync(file) : undefined;
    const input = name === "copy" ? readIntoInput() : undefined;
    // Alternate which runs first, so neither always follows a collection.
    const order = r % 2 ? [1, 0] : [0, 1];
    const t = [];
    for (const i of order) t[i] = timed(() => [before, after][i](bytes, input));
    times[0].push(t[0]);
    times[1].push(t[1]);
    ratios.push(t[1] / t[0]);
  }
  const [a, b] = [median(times[0]), median(times[1])];
  console.log(`| ${name} | ${a.toFixed(0)} | ${b.toFixed(0)} | ${median(ratios).toFixed(3)} |`);
}
