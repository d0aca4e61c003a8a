// `agent-replay serve DIR` on a FileSessionLog directory: a writer appends
// real deepstrike logs line by line (as the runtime does) and the server's
// list, resume and streams must see exactly what was written; a truncated
// or replaced file must come back as a gap, never merged.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchChromium } from "./browsers.mjs";
import { startServe } from "./serve.mjs";
import { SessionState, memoryUsage, parseLog, setMemoryLimit } from "agent-replay";
import { serve } from "../../bin/serve.js";
import { DirectoryFollower } from "../../bin/follow-dir.js";

const root = new URL("../..", import.meta.url).pathname;
const shots = join(root, "target/screenshots");
mkdirSync(shots, { recursive: true });
const corpus = new URL("../corpus/deepstrike-0.2.77/", import.meta.url).pathname;
const linesOf = (name) => readFileSync(join(corpus, name), "utf8").trimEnd().split("\n");
const tools = linesOf("tools.jsonl");
/** The event's own text in a stored entry `{"seq":N,"event":{…}}`. */
const eventText = (line) => line.slice(line.indexOf(',"event":') + 9, -1);

let dir;
let server;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), "serve-dir-"));
  writeFileSync(join(dir, "notes.txt"), "not a session log\n");
  server = await serve({ port: 0, dir, pollMs: 100 });
});
after(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const api = async (path) => {
  const response = await fetch(`${server.url}/api${path}`);
  return { status: response.status, body: await response.json() };
};
const list = async () => (await api("/sessions")).body.sessions;
const rowOf = async (id) => (await list()).find((s) => s.session_id === id);
/** Waits until the viewer's position label holds `text`. */
const waitPosition = (page, text) =>
  page.waitForFunction(
    (t) => document.querySelector("[data-testid=position]")?.textContent.includes(t),
    text,
    { timeout: 20_000 },
  );

/** Where the list's link of a session leads: the viewer's `log`, `live` and `cursor`. */
async function viewerOf(id) {
  const response = await fetch(`${server.url}/sessions/${id}`, { redirect: "manual" });
  assert.equal(response.status, 302);
  const location = new URL(response.headers.get("location"), server.url);
  assert.equal(location.pathname, "/");
  return Object.fromEntries(location.searchParams);
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the session's list row satisfies `check`; returns the row. */
async function until(id, check, what) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const row = await rowOf(id);
    if (row && check(row)) return row;
    if (Date.now() > deadline) assert.fail(`${what}: ${JSON.stringify(row)}`);
    await sleep(10);
  }
}

test("a log appended line by line is followed exactly, a partial line waits for its newline", async () => {
  const path = join(dir, "tools.jsonl");
  writeFileSync(path, "");
  await until("tools", (r) => r.events === 0, "the new empty log is listed");
  const start = (await api("/sessions/tools")).body.cursor;
  for (const [i, line] of tools.entries()) {
    if (i === 20) {
      // Half a line: nothing new until its newline comes.
      appendFileSync(path, line.slice(0, 40));
      await sleep(300);
      assert.equal((await rowOf("tools")).events, 20);
      appendFileSync(path, `${line.slice(40)}\n`);
    } else appendFileSync(path, `${line}\n`);
    await until("tools", (r) => r.events === i + 1, `event ${i + 1} is seen`);
  }
  const resumed = (await api(`/sessions/tools/events?cursor=${encodeURIComponent(start)}`)).body;
  assert.equal(resumed.type, "replayed");
  assert.deepEqual(
    resumed.events.map((e) => JSON.stringify(e.event)),
    tools.map((l) => JSON.stringify(JSON.parse(l).event)),
  );
  // The row: the whole log's summary, as the package folds it.
  const summary = new SessionState().apply(readFileSync(path, "utf8")).summary();
  const row = await rowOf("tools");
  assert.deepEqual(
    [row.status, row.turns, row.tokens, row.errors, row.events],
    [summary.status, summary.turns_used, summary.total_tokens, summary.errors, tools.length],
  );
  assert.equal(row.status.state, "terminal");
  assert.deepEqual([row.generation, row.reset, row.errors.load_errors], [1, null, 0]);
  assert.equal(row.bytes, readFileSync(path).length);
});

test("the list is most recently written first and a new file appears in it", async () => {
  writeFileSync(join(dir, "later.jsonl"), `${tools.slice(0, 3).join("\n")}\n`);
  const row = await until("later", (r) => r.events === 3, "the new file is listed");
  const sessions = await list();
  assert.equal(sessions[0].session_id, "later");
  assert.ok(!sessions.some((s) => s.session_id === "notes"), "only *.jsonl files are sessions");
  for (const key of ["session_id", "status", "turns", "tokens", "errors", "events", "modified_ms"])
    assert.ok(key in row, key);
  assert.deepEqual(
    sessions.map((s) => s.modified_ms),
    sessions.map((s) => s.modified_ms).sort((a, b) => b - a),
  );
});

/** An SSE response's messages until the stream ends: `[{event, id, data}]`. */
async function readStream(response, stopWhen = () => false) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const messages = [];
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { messages, ended: true };
    text += value;
    let end = text.indexOf("\n\n");
    while (end >= 0) {
      const message = { event: "message", data: "" };
      for (const line of text.slice(0, end).split("\n")) {
        const [field, ...rest] = line.split(": ");
        if (field === "event" || field === "id") message[field] = rest.join(": ");
        if (field === "data") message.data += rest.join(": ");
      }
      if (message.data) messages.push(message);
      text = text.slice(end + 2);
      end = text.indexOf("\n\n");
    }
    if (stopWhen(messages)) {
      await reader.cancel();
      return { messages, ended: false };
    }
  }
}

test("a truncated file is a new generation: its open streams end, an old cursor gets a gap", async () => {
  const path = join(dir, "cut.jsonl");
  writeFileSync(path, `${tools.slice(0, 30).join("\n")}\n`);
  await until("cut", (r) => r.events === 30, "the log is read");
  const stream = await fetch(`${server.url}/api/sessions/cut/stream`);
  const read = readStream(stream);
  const old = (await api("/sessions/cut")).body.cursor;
  // Cut in one step to its first 5 events (writing the file anew would
  // truncate it to nothing first, and the follower may see it empty).
  truncateSync(path, Buffer.byteLength(`${tools.slice(0, 5).join("\n")}\n`));
  const row = await until("cut", (r) => r.generation === 2, "the truncation is seen");
  assert.deepEqual([row.reset, row.events], ["truncated", 5]);
  const { ended } = await read;
  assert.ok(ended, "the old generation's stream ends (the client reconnects with its cursor)");

  const resumed = (await api(`/sessions/cut/events?cursor=${encodeURIComponent(old)}`)).body;
  assert.equal(resumed.type, "gap");
  assert.equal(resumed.gap.reason, "unavailable");
  assert.equal(resumed.observation.state.event_count, 5);
  // Over SSE: the reconnect with Last-Event-ID gets the gap, then the observation.
  const again = await fetch(`${server.url}/api/sessions/cut/stream`, {
    headers: { "last-event-id": old },
  });
  const { messages } = await readStream(again, (m) => m.length >= 2);
  assert.deepEqual(
    messages.map((m) => m.event),
    ["gap", "observation"],
  );
  assert.equal(JSON.parse(messages[1].data).state.event_count, 5);
  // The new generation is followed on.
  appendFileSync(path, `${tools.slice(5, 8).join("\n")}\n`);
  await until("cut", (r) => r.events === 8, "appends after the truncation");
  const after = (await api(`/sessions/cut/events?cursor=${encodeURIComponent(messages[1].id)}`))
    .body;
  assert.deepEqual(
    after.events.map((e) => JSON.stringify(e.event)),
    tools.slice(5, 8).map((l) => JSON.stringify(JSON.parse(l).event)),
  );
});

test("a replaced file (a new inode) and a file rewritten longer are new generations", async () => {
  const path = join(dir, "swap.jsonl");
  writeFileSync(path, `${tools.slice(0, 10).join("\n")}\n`);
  await until("swap", (r) => r.events === 10, "the log is read");
  const old = (await api("/sessions/swap")).body.cursor;
  writeFileSync(join(dir, "swap.tmp"), `${tools.slice(0, 12).join("\n")}\n`);
  renameSync(join(dir, "swap.tmp"), path);
  // A new generation is listed as soon as it starts, before its lines are read.
  const row = await until(
    "swap",
    (r) => r.generation === 2 && r.events === 12,
    "the replacement is seen",
  );
  assert.deepEqual([row.reset, row.events], ["replaced", 12]);
  const resumed = (await api(`/sessions/swap/events?cursor=${encodeURIComponent(old)}`)).body;
  assert.equal(resumed.type, "gap");

  // Same inode, rewritten past the old size before the follower looked (in
  // place, "r+": truncating first could let the follower see it empty).
  const longer = linesOf("loop.jsonl").slice(0, 20);
  writeFileSync(path, `${longer.join("\n")}\n`, { flag: "r+" });
  const rewritten = await until(
    "swap",
    (r) => r.generation === 3 && r.events === 20,
    "the rewrite is seen",
  );
  assert.deepEqual([rewritten.reset, rewritten.events], ["rewritten", 20]);
});

test("a rewrite in place with the same line lengths is a new generation, not spliced on", async () => {
  const path = join(dir, "same.jsonl");
  writeFileSync(path, `${tools.slice(0, 10).join("\n")}\n`);
  await until("same", (r) => r.events === 10, "the log is read");
  const old = (await api("/sessions/same")).body.cursor;
  const { log } = await viewerOf("same");
  assert.equal((await fetch(`${server.url}${log}`)).status, 200);
  // The last line read changed, its length and the last byte read ("\n") kept;
  // then more lines, as a runtime writing the file anew would.
  const changed = tools[9].replace("/notes.txt", "/nodes.txt");
  assert.equal(changed.length, tools[9].length);
  const again = [...tools.slice(0, 9), changed, ...tools.slice(10, 12)];
  writeFileSync(path, `${again.join("\n")}\n`, { flag: "r+" });
  const row = await until("same", (r) => r.generation === 2, "the rewrite is seen");
  assert.deepEqual([row.reset, row.events], ["rewritten", 12]);
  const resumed = (await api(`/sessions/same/events?cursor=${encodeURIComponent(old)}`)).body;
  assert.equal(resumed.type, "gap");
  assert.equal(resumed.observation.state.event_count, 12);
  assert.equal((await fetch(`${server.url}${log}`)).status, 404, "the old generation's lines");
});

test("lines the reader rejects are left out and counted, the rest is followed", async () => {
  const permissions = linesOf("permissions.jsonl");
  // A permission_resolved without the approved flag: not a valid event.
  const invalid = '{"seq":11,"event":{"kind":"permission_resolved","turn":1,"responder":"host"}}';
  const lines = [permissions[0], "{not json", ...permissions.slice(1, 11), invalid];
  writeFileSync(join(dir, "odd.jsonl"), `${[...lines, ...permissions.slice(12, 20)].join("\n")}\n`);
  const row = await until("odd", (r) => r.errors.load_errors === 2, "the bad lines are counted");
  assert.equal(row.events, 19); // 20 entries, one of them an event the reader rejects
  // The viewer reads the lines the session folded, and lists each bad one.
  const { log } = await viewerOf("odd");
  const { errors } = parseLog(await (await fetch(`${server.url}${log}`)).text());
  assert.deepEqual(
    errors.map((e) => [e.line, e.code]),
    [
      [2, "invalid_json"],
      [13, "invalid_event"],
    ],
  );
});

test("an event holding U+2028 or U+2029 (written raw, as ensure_ascii=False does) is followed", async () => {
  const entry = tools[0].replace('"goal":"', '"goal":"line\u2028separator\u2029paragraph ');
  assert.notEqual(entry, tools[0]);
  writeFileSync(join(dir, "separators.jsonl"), `${entry}\n${tools[1]}\n`);
  const row = await until("separators", (r) => r.events + r.errors.load_errors === 2, "both read");
  assert.deepEqual([row.events, row.errors.load_errors], [2, 0]);
  const { body } = await api("/sessions/separators");
  assert.match(body.state.run.goal, /^line\u2028separator\u2029paragraph /);
});

test("followed sessions are read-only, /api/sessions lists only with a directory", async () => {
  const post = await fetch(`${server.url}/api/sessions/tools/events`, {
    method: "POST",
    body: tools[0],
  });
  assert.equal(post.status, 403);
  const page = await fetch(`${server.url}/`, { redirect: "manual" });
  assert.equal(page.status, 302);
  assert.equal(page.headers.get("location"), "/sessions");
  assert.match(await (await fetch(`${server.url}/sessions`)).text(), /sessions\.js/);
  const plain = await serve({ port: 0, demo: false });
  try {
    const response = await fetch(`${plain.url}/api/sessions`);
    assert.equal(response.status, 404);
    assert.equal((await response.json()).error.code, "not_found");
  } finally {
    await plain.close();
  }
});

test("logs that together exceed the memory budget: listed, each opens, nothing traps", async () => {
  const own = mkdtempSync(join(tmpdir(), "serve-dir-budget-"));
  const log = readFileSync(join(corpus, "long_run.jsonl"));
  const events = new SessionState().apply(log).summary().event_count;
  const copies = 8;
  for (let i = 0; i < copies; i += 1) writeFileSync(join(own, `run-${i}.jsonl`), log);
  // Room for a few of them folded at once, not for all: each held session
  // (its state and live buffer) takes more than the log's own size.
  setMemoryLimit(memoryUsage().allocated_bytes + 3 * log.length + (16 << 20));
  let follower;
  try {
    follower = await new DirectoryFollower(own, { watch: false, maxOpen: 2 }).start();
    const rows = follower.list();
    assert.equal(rows.length, copies);
    assert.ok(rows.every((r) => r.events === events && r.read_error === null));
    assert.equal(follower.openCount, 0, "listing holds no session");
    for (let round = 0; round < 2; round += 1)
      for (let i = 0; i < copies; i += 1) {
        const session = await follower.session(`run-${i}`);
        assert.equal(session.observe().state.event_count, events);
        assert.ok(follower.openCount <= 2);
      }
    assert.ok(follower.list().every((r) => r.read_error === null));
  } finally {
    follower?.close();
    setMemoryLimit(3 * 2 ** 30); // the default
    rmSync(own, { recursive: true, force: true });
  }
  // The instance still works.
  assert.equal(new SessionState().apply(tools.join("\n")).eventCount, tools.length);
});

test("past maxOpen the least recently used session leaves memory; its cursors still resume", async () => {
  const own = mkdtempSync(join(tmpdir(), "serve-dir-lru-"));
  for (const id of ["a", "b"])
    writeFileSync(join(own, `${id}.jsonl`), `${tools.slice(0, 5).join("\n")}\n`);
  const follower = await new DirectoryFollower(own, { watch: false, maxOpen: 1 }).start();
  const isOpen = () => Object.fromEntries(follower.list().map((r) => [r.session_id, r.open]));
  try {
    assert.deepEqual(isOpen(), { a: false, b: false });
    const cursor = (await follower.session("a")).observe().cursor;
    assert.deepEqual(isOpen(), { a: true, b: false });
    await follower.session("b");
    assert.deepEqual(isOpen(), { a: false, b: true });
    appendFileSync(join(own, "a.jsonl"), `${tools.slice(5, 8).join("\n")}\n`);
    // Folded again from its file, under the same incarnation: the cursor resumes.
    const resumed = (await follower.session("a")).resume(cursor);
    assert.equal(resumed.type, "replayed");
    assert.deepEqual(
      resumed.events.map((e) => e.json),
      tools.slice(5, 8).map(eventText),
    );
    assert.deepEqual(isOpen(), { a: true, b: false });
  } finally {
    follower.close();
    rmSync(own, { recursive: true, force: true });
  }
});

test("without fs.watch the poll follows, reading in small chunks", async () => {
  const own = mkdtempSync(join(tmpdir(), "serve-dir-poll-"));
  const follower = await new DirectoryFollower(own, {
    pollMs: 50,
    watch: false,
    chunkBytes: 7,
  }).start();
  try {
    const path = join(own, "tools.jsonl");
    writeFileSync(path, "");
    const deadline = Date.now() + 5000;
    while (!follower.has("tools") && Date.now() < deadline) await sleep(20);
    const start = (await follower.session("tools")).observe().cursor;
    appendFileSync(path, `${tools.slice(0, 10).join("\n")}\n`);
    while (follower.list()[0]?.events !== 10 && Date.now() < deadline) await sleep(20);
    appendFileSync(path, `${tools.slice(10).join("\n")}\n`);
    while (follower.list()[0]?.events !== tools.length && Date.now() < deadline) await sleep(20);
    // Byte for byte: each event's text as the runtime wrote it.
    const { events } = (await follower.session("tools")).resume(start);
    assert.deepEqual(
      events.map((e) => e.json),
      tools.map(eventText),
    );
  } finally {
    follower.close();
    rmSync(own, { recursive: true, force: true });
  }
});

test("in Chromium: the list follows a running agent's log, the viewer shows all its history and follows it", async () => {
  const own = mkdtempSync(join(tmpdir(), "serve-dir-e2e-"));
  const path = join(own, "long_run.jsonl");
  const log = linesOf("long_run.jsonl").slice(0, 400);
  writeFileSync(path, `${log.slice(0, 50).join("\n")}\n`);
  writeFileSync(join(own, "tools.jsonl"), `${tools.join("\n")}\n`);
  // A live buffer smaller than the running log when it is opened (120 events):
  // what is older comes from the file. It holds what is written while the
  // viewer is disconnected (100).
  const cli = await startServe(["--poll-ms", "200", "--max-events", "110", own], {
    ready: /following /,
  });
  const browser = await launchChromium();
  let written = 50;
  /** The writer: the runtime appending its log, one line at a time. */
  const write = async (upTo) => {
    for (; written < upTo; written += 1) {
      appendFileSync(path, `${log[written]}\n`);
      await sleep(5);
    }
  };
  const observe = async () => (await fetch(`${cli.url}/api/sessions/long_run`)).json();
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 500 } });
    const problems = [];
    page.on("pageerror", (e) => problems.push(e.message));
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    await page.goto(`${cli.url}/`);
    assert.equal(
      new URL(page.url()).pathname,
      "/sessions",
      "the directory's list is the start page",
    );
    const eventsShown = (id) =>
      page.$eval(`tr[data-session="${id}"] td[data-col=events]`, (td) => td.textContent);
    await page.waitForSelector('tr[data-session="tools"]');
    assert.equal(await eventsShown("long_run"), "50");
    await write(120);
    await page.waitForFunction(
      () =>
        document.querySelector('tr[data-session="long_run"] td[data-col=events]')?.textContent ===
        "120",
    );
    // The session written last is first.
    assert.equal(
      await page.$eval("tbody tr[data-session]", (tr) => tr.dataset.session),
      "long_run",
    );
    await page.screenshot({ path: join(shots, "sessions.png") });

    // A finished session: every event in the timeline, time travel to the
    // first, search in any of them.
    await page.click('tr[data-session="tools"] a');
    await waitPosition(page, `event ${tools.length} of ${tools.length}`);
    assert.equal(await page.locator("[data-testid=gaps] li").count(), 0, "no gap: all of it");
    await page.$eval("[data-testid=scrubber]", (el) => {
      el.value = "1";
      el.dispatchEvent(new Event("input"));
    });
    await waitPosition(page, `event 1 of ${tools.length}`);
    const query = "wipe the disk";
    const matching = tools.filter((l) => eventText(l).toLowerCase().includes(query)).length;
    assert.ok(matching > 0);
    await page.fill("[data-testid=search]", query);
    await page.waitForFunction(
      (t) => document.querySelector("[data-testid=match-count]")?.textContent.startsWith(t),
      `${matching} of ${tools.length}`,
    );
    // Opened paged (as a log too large for a view is), it is loaded, not followed.
    await page.goto(`${page.url().replace(/#.*/, "")}&paged=1`);
    await waitPosition(page, `event ${tools.length} of ${tools.length}`);
    await page.waitForFunction(() =>
      document.querySelector("[data-testid=error]")?.textContent.includes("not follow live"),
    );
    await page.goto(`${cli.url}/sessions`);
    await page.waitForSelector('tr[data-session="long_run"]');

    await page.click('tr[data-session="long_run"] a');
    const status = () => page.locator("[data-testid=live-status]").textContent();
    await page.waitForFunction(
      () => document.querySelector("[data-testid=live-status]")?.textContent === "open",
    );
    /** Once the server has read all that was written, the viewer shows exactly its state. */
    const matches = async () => {
      let server = await observe();
      while (server.state.event_count < written) {
        await sleep(20);
        server = await observe();
      }
      const n = server.state.event_count;
      await page.waitForFunction(
        (t) => document.querySelector("[data-testid=position]")?.textContent.includes(t),
        `event ${n} of ${n}`,
        { timeout: 20_000 },
      );
      const mine = await page.evaluate(() => window.agentReplayViewer.exportState());
      // A state folded from the file names no session (the file does not).
      assert.deepEqual({ ...mine.view, session_id: server.state.session_id }, server.state);
    };
    await matches(); // all of it, though the live buffer holds the last 110
    assert.equal(await page.locator("[data-testid=gaps] li").count(), 0, "no gap: all of it");
    await write(200); // followed live as the runtime appends
    await matches();
    await page.click("[data-testid=connect]");
    await page.waitForFunction(
      () => document.querySelector("[data-testid=live-status]").textContent === "disconnected",
    );
    await write(300); // while disconnected
    await page.click("[data-testid=connect]"); // resumes from its cursor
    await page.waitForFunction(
      () => document.querySelector("[data-testid=live-status]").textContent === "open",
    );
    await write(400);
    await matches();
    assert.equal(await status(), "open");
    assert.equal(
      await page.locator("[data-testid=gaps] li").count(),
      0,
      "nothing missed across the disconnect",
    );
    // The log is truncated and written anew: the viewer drops the old
    // history and says so, then follows the new one.
    writeFileSync(path, `${log.slice(0, 30).join("\n")}\n`);
    written = 30;
    await write(60);
    await matches();
    const notes = await page.locator("[data-testid=gaps] li").allTextContents();
    assert.equal(notes.length, 1, "the old history's notes go with it");
    assert.match(notes[0], /truncated or replaced: its history restarts/);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await cli.stop();
    rmSync(own, { recursive: true, force: true });
  }
});
