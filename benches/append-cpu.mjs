// The cost of one durable append, apart from the disk: `agent-replay serve
// --data DIR --max-events 20000` from each checkout given, one after
// another, takes APPENDS POSTs of one event (the durable bench's request)
// and prints the rate and the server process's CPU time per append, read
// from /proc/PID/stat (Linux). The rate of appends of one event swings
// with the shared disk's fsync; the CPU per append compares builds side by
// side. On 127.0.0.1, bounded by APPENDS.
//   node benches/append-cpu.mjs BASE_CHECKOUT . BASE_CHECKOUT .
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const APPENDS = Number(process.env.APPENDS ?? 1500);
const WARM = 50;
const ev = (turn) => JSON.stringify({ kind: "page_out", turn, message_count: turn });

/** The process's user and system CPU time, in milliseconds (10 ms ticks). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function measure(checkout) {
  const dir = mkdtempSync(join(tmpdir(), "append-cpu-"));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const args = ["serve", "--data", join(dir, "data"), "--port", String(port)];
  const server = spawn(
    process.execPath,
    [join(checkout, "bin/agent-replay.js"), ...args, "--write-token", "T", "--max-events", "20000"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  try {
    await new Promise((ok) => server.stdout.once("data", ok));
    const url = `http://127.0.0.1:${port}/api/sessions/s/events`;
    const headers = { authorization: "Bearer T", "content-type": "application/x-ndjson" };
    const post = async (turn) => {
      const r = await fetch(url, { method: "POST", headers, body: ev(turn) });
      if (r.status !== 200) throw new Error(`append answered ${r.status}: ${await r.text()}`);
      await r.arrayBuffer();
    };
    for (let turn = 1; turn <= WARM; turn++) await post(turn);
    const cpu = cpuMs(server.pid);
    const t0 = performance.now();
    for (let turn = WARM + 1; turn <= APPENDS; turn++) await post(turn);
    const seconds = (performance.now() - t0) / 1000;
    const n = APPENDS - WARM;
    return { rate: n / seconds, cpuPerAppend: (cpuMs(server.pid) - cpu) / n };
  } finally {
    server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

const checkouts = process.argv.slice(2);
if (!checkouts.length) throw new Error("usage: node benches/append-cpu.mjs CHECKOUT...");
console.log("| checkout | appends/s | server CPU per append (ms) |\n|---|---|---|");
for (const checkout of checkouts) {
  const { rate, cpuPerAppend } = await measure(resolve(checkout));
  console.log(`| ${checkout} | ${Math.round(rate)} | ${cpuPerAppend.toFixed(3)} |`);
}
