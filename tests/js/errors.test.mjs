// The one error vocabulary: every code of the core's table (src/error.rs)
// reaches JS with its HTTP status, is in the TypeScript union, and is
// documented; and the edge answers each code it uses with the table's status.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { AgentReplayError, errorCodes, httpStatusOf, ReplayStore } from "agent-replay";
import { createReplayHandler } from "agent-replay/edge";
import { assertSimd } from "../../js/common.js";

const root = new URL("../../", import.meta.url);
/** Where the error codes are documented: the table under "## Error codes". */
const DOCS = "docs/api.md";

/** `{code: status}` of the rows of the docs' error-code table. */
function documentedCodes(markdown) {
  const section = markdown.split("## Error codes")[1]?.split("\n## ")[0];
  assert.ok(section, `${DOCS} has an Error codes section`);
  const rows = [...section.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)];
  return Object.fromEntries(rows.map(([, code, status]) => [code, Number(status)]));
}
const read = (path) => readFileSync(new URL(path, root), "utf8");

/** The string members of a `type Name = | "a" | "b";` union in a .d.ts. */
function unionMembers(dts, name) {
  const body = dts.match(new RegExp(`export type ${name} =([^;]*);`))?.[1];
  assert.ok(body, `${name} is declared`);
  return body
    .split("|")
    .map((member) => member.trim())
    .filter(Boolean)
    .map((member) => {
      assert.match(member, /^"[a-z_]+"$/, `${name} lists only string literals`);
      return JSON.parse(member);
    });
}

test("the table has every code once, each with a status and a description", () => {
  const table = errorCodes();
  const codes = table.map((row) => row.code);
  assert.equal(new Set(codes).size, codes.length);
  for (const code of [
    "invalid_input",
    "invalid_log",
    "invalid_event",
    "invalid_observation",
    "malformed_cursor",
    "wrong_session",
    "invalid_session_id",
    "invalid_request",
    "limit_exceeded",
    "store_full",
    "closed",
    "forbidden",
    "not_found",
    "method_not_allowed",
    "too_many_streams",
    "unsupported_host",
    "misdirected_request",
    "unauthorized",
    "storage_full",
    "storage_unavailable",
    "internal",
  ])
    assert.ok(codes.includes(code), code);
  for (const { code, status, description } of table) {
    assert.match(code, /^[a-z_]+$/);
    assert.ok(Number.isInteger(status) && status >= 400 && status < 600, code);
    assert.ok(description.length > 10, code);
  }
  errorCodes()[0].status = 200;
  assert.notEqual(errorCodes()[0].status, 200, "callers get a copy");
});

test("every code maps to its HTTP status, the .d.ts union and the docs", () => {
  const union = unionMembers(read("js/index.d.ts"), "ErrorCode");
  const docs = read(DOCS);
  const table = errorCodes();
  assert.deepEqual([...union].sort(), table.map((row) => row.code).sort(), "union = table");
  for (const { code, status } of table) {
    assert.equal(httpStatusOf(code), status, code);
    assert.equal(new AgentReplayError(code, "m").code, code);
  }
  const documented = documentedCodes(docs);
  assert.deepEqual(
    documented,
    Object.fromEntries(table.map(({ code, status }) => [code, status])),
    `${DOCS}'s table lists every code once, with its status`,
  );
  assert.equal(httpStatusOf("no_such_code"), 500);
  assert.equal(httpStatusOf("store_full"), 503);
  assert.match(read("js/edge.d.ts"), /export type \{ ErrorCode \} from "\.\/index\.js"/);
});

test("the edge answers every code it uses with the table's status", async () => {
  const store = new ReplayStore({ incarnation: "i", maxSessions: 1 });
  const handle = createReplayHandler({
    store,
    authorize: (request) => request.headers.get("authorization") !== "no",
    maxStreamsPerSession: 0,
  });
  const at = (path, init) => handle(new Request(`http://x${path}`, init));
  const held = store.subscribe("arc1:i:0:0:held").subscription;
  store.append("held", { kind: "page_in", turn: 1, entry_count: 1 });
  const cases = [
    ["not_found", at("/nope")],
    ["method_not_allowed", at("/sessions/s", { method: "DELETE" })],
    ["forbidden", at("/sessions/s", { headers: { authorization: "no" } })],
    ["malformed_cursor", at("/sessions/held/events?cursor=bad")],
    ["wrong_session", at("/sessions/held/events?cursor=arc1:i:0:0:other")],
    ["invalid_session_id", at("/sessions/%0A")],
    ["invalid_log", at("/sessions/held/events", { method: "POST", body: "{" })],
    ["too_many_streams", at("/sessions/held/stream")],
    [
      "store_full",
      at("/sessions/new/events", {
        method: "POST",
        body: '{"kind":"page_in","turn":1,"entry_count":1}',
      }),
    ],
  ];
  for (const [code, pending] of cases) {
    const response = await pending;
    const body = await response.json();
    assert.equal(body.error.code, code);
    assert.equal(response.status, httpStatusOf(code), code);
    assert.equal(response.headers.has("retry-after"), code === "store_full", code);
  }
  held.close();
});

test("a host without WebAssembly SIMD gets unsupported_host before the .wasm compiles", () => {
  assert.doesNotThrow(() => assertSimd(), "this host has SIMD");
  assert.throws(
    () => assertSimd(() => false),
    (e) =>
      e instanceof AgentReplayError && e.code === "unsupported_host" && /simd128/.test(e.message),
  );
});
