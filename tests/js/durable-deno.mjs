// Run by tests/js/durable.test.mjs with Deno: the file store appends, a
// second DurableSessions over the same directory (a restart) restores the
// session at the same cursor. Prints what it found as JSON.
import { DurableSessions } from "agent-replay";
import { fileStore } from "agent-replay/file-store";

const dir = Deno.args[0];
const before = new DurableSessions({ storage: fileStore(dir), checkpointEvery: 2 });
const session = await before.open("run:1");
await session.append('{"kind":"page_out","turn":1}\n{"kind":"page_out","turn":2}');
await session.append('{"kind":"page_out","turn":3}');
const after = new DurableSessions({ storage: fileStore(dir), checkpointEvery: 2 });
const observed = await after.read("run:1", (s) => s.observe());
console.log(
  JSON.stringify({
    same: observed.cursor === session.observe().cursor,
    events: observed.state.event_count,
    log: Deno.readTextFileSync(`${dir}/run%3A1.jsonl`),
  }),
);
