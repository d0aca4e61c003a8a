// The edge benchmark (issue 4), on 127.0.0.1, bounded in count and time:
// - cold start: process start (or workerd start) to the first answered
//   observation request, for Node, Deno and workerd, beside a bare server
//   on the same runtime that does not load agent-replay;
// - SSE fan-out: one session, 100 streaming clients, 2,000 events posted in
//   batches of 20; events delivered per second until every client has all.
//   node benches/edge.mjs        (after npm run build)
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { bin, bundleWorker, installProject, port } from "../tests/package/harness.mjs";

const RUNS = 5;
const CLIENTS = 100;
const EVENTS = 2000;
const BATCH = 20;
const TOKEN = "bench";
const headers = { authorization: `Bearer ${TOKEN}` };
const project = installProject();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

writeFileSync(
  join(project, "bare.mjs"),
  `
const port = Number(globalThis.Deno ? Deno.env.get("PORT") : process.env.PORT);
const handler = () => new Response("{}");
if (globalThis.Deno) Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, handler);
else (await import("node:http")).createServer((q, s) => s.end("{}")).listen(port, "127.0.0.1");
`,
);

/** Milliseconds from spawn to the first 200 on `path`. */
async function coldStart(cmd, args, path, env = {}) {
  const p = port();
  const t0 = performance.now();
  const child = spawn(cmd, args(p), {
    cwd: project,
    env: { ...process.env, ...env, PORT: String(p) },
    stdio: "ignore",
  });
  try {
    for (;;) {
      if (performance.now() - t0 > 30_000) throw new Error(`${cmd} did not answer in 30 s`);
      try {
        if ((await fetch(`http://127.0.0.1:${p}${path}`, { headers })).status === 200)
          return performance.now() - t0;
      } catch {}
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    child.kill();
    await new Promise((r) => child.once("exit", r));
  }
}

// One token for all 100 clients: the per-client stream limit is raised.
const edgeEnv = {
  TOKENS: JSON.stringify({ [TOKEN]: "*" }),
  MAX_EVENTS_PER_SESSION: "4096",
  MAX_STREAMS_PER_CLIENT: "1000",
  DENO_NO_UPDATE_CHECK: "1",
};
const deno = (script) => (_p) => [
  "run",
  "--allow-net=127.0.0.1",
  "--allow-read",
  "--allow-env",
  script,
];
const workerDir = await bundleWorker(project);
// workerd runs from the project here: its Durable Objects' disk, as named in workerd.capnp.
mkdirSync(join(project, "do"), { recursive: true });
// The bench's Worker keeps 4,096 events per session and takes 1,000 an
// append (the tests use 4 and 3).
const capnp = join(workerDir, "workerd.capnp");
writeFileSync(
  capnp,
  readFileSync(capnp, "utf8")
    .replace(
      /\(name = "TOKENS".*\n/,
      `(name = "TOKENS", text = ${JSON.stringify(JSON.stringify({ [TOKEN]: "*" }))}),\n`,
    )
    .replace(
      /\(name = "MAX_EVENTS_PER_SESSION".*\n/,
      `(name = "MAX_EVENTS_PER_SESSION", text = "4096"),\n`,
    )
    .replace(
      /\(name = "MAX_EVENTS_PER_REQUEST".*\n/,
      `(name = "MAX_EVENTS_PER_REQUEST", text = "1000"),\n(name = "MAX_STREAMS_PER_CLIENT", text = "1000"),\n`,
    ),
);
const workerd = (p) => ["serve", "--experimental", capnp, `--socket-addr=http=127.0.0.1:${p}`];

const cold = {};
for (const [name, cmd, args, path] of [
  ["Node, bare node:http", process.execPath, () => ["bare.mjs"], "/"],
  ["Node, agent-replay edge", process.execPath, () => ["checks/edge/server.mjs"], "/sessions/s"],
  ["Deno, bare Deno.serve", bin("deno"), deno("bare.mjs"), "/"],
  ["Deno, agent-replay edge", bin("deno"), deno("checks/edge/server.mjs"), "/sessions/s"],
  ["workerd, agent-replay Worker (Durable Object)", bin("workerd"), workerd, "/do/sessions/s"],
]) {
  const times = [];
  for (let i = 0; i < RUNS; i++) times.push(await coldStart(cmd, args, path, edgeEnv));
  cold[name] = median(times);
}

/** Delivered events per second to CLIENTS streaming clients of one session. */
async function fanOut(base) {
  const session = `fan-${Math.random().toString(36).slice(2)}`;
  const path = `${base}/sessions/${session}`;
  const { cursor } = await (await fetch(path, { headers })).json();
  const controllers = [];
  const counts = new Array(CLIENTS).fill(0);
  const readers = Array.from({ length: CLIENTS }, async (_, i) => {
    const ac = new AbortController();
    controllers.push(ac);
    const res = await fetch(`${path}/stream?cursor=${encodeURIComponent(cursor)}`, {
      headers,
      signal: ac.signal,
    });
    const decoder = new TextDecoder();
    let carry = "";
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        const text = carry + decoder.decode(value, { stream: true });
        counts[i] += text.split("\ndata: {").length - 1;
        carry = text.slice(-10);
        if (counts[i] >= EVENTS) return;
      }
    } catch {}
  });
  await new Promise((r) => setTimeout(r, 300));
  const t0 = performance.now();
  for (let n = 0; n < EVENTS; n += BATCH) {
    const body = Array.from(
      { length: BATCH },
      (_, k) => `{"kind":"page_out","turn":${n + k}}`,
    ).join("\n");
    const r = await fetch(`${path}/events`, { method: "POST", headers, body });
    if (r.status !== 200) throw new Error(`append: ${r.status} ${await r.text()}`);
  }
  const abortAll = () => {
    for (const c of controllers) c.abort();
  };
  const deadline = setTimeout(abortAll, 60_000);
  await Promise.all(readers);
  clearTimeout(deadline);
  const seconds = (performance.now() - t0) / 1000;
  abortAll();
  const delivered = counts.reduce((a, b) => a + b, 0);
  return { perSecond: delivered / seconds, complete: delivered === CLIENTS * EVENTS, delivered };
}

async function withServer(cmd, args, fn) {
  const p = port();
  const child = spawn(cmd, args(p), {
    cwd: project,
    env: { ...process.env, ...edgeEnv, PORT: String(p) },
    stdio: "ignore",
  });
  try {
    for (let i = 0; i < 5000; i++) {
      try {
        if ((await fetch(`http://127.0.0.1:${p}/`)).status) break;
      } catch {}
      await new Promise((r) => setTimeout(r, 5));
    }
    return await fn(`http://127.0.0.1:${p}`);
  } finally {
    child.kill();
  }
}

const fan = {
  "Node (node:http)": await withServer(process.execPath, () => ["checks/edge/server.mjs"], fanOut),
  "Deno (Deno.serve)": await withServer(bin("deno"), deno("checks/edge/server.mjs"), fanOut),
  "workerd (Durable Object)": await withServer(bin("workerd"), workerd, (base) =>
    fanOut(`${base}/do`),
  ),
};
rmSync(project, { recursive: true, force: true });

const wasm = readFileSync(new URL("../pkg/agent_replay_bg.wasm", import.meta.url));
const f = (x) => Math.round(x).toLocaleString("en-US");
console.log(`.wasm: ${f(wasm.length)} bytes raw, ${f(gzipSync(wasm, { level: 9 }).length)} gzipped.

| cold start: spawn → first answered request (median of ${RUNS}) | ms |
|---|---|
${Object.entries(cold)
  .map(([k, v]) => `| ${k} | ${f(v)} |`)
  .join("\n")}

| SSE fan-out: 1 session, ${CLIENTS} clients, ${f(EVENTS)} events in batches of ${BATCH} | events delivered/s | all delivered |
|---|---|---|
${Object.entries(fan)
  .map(
    ([k, v]) => `| ${k} | ${f(v.perSecond)} | ${v.complete ? "yes" : `no (${f(v.delivered)})`} |`,
  )
  .join("\n")}`);
