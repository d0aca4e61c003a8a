// A CommonJS consumer (a Jest setup, an Electron main): require(), no
// await at load. Prints what the package computed, for the test to compare
// with the ESM entry's results.
const { init, rebuildOsSnapshot, sampleLog, SessionState } = require("agent-replay");
const { createReplayHandler } = require("agent-replay/edge");
const { toNodeListener } = require("agent-replay/node");

async function main() {
  await init(); // loaded already: code shared with browsers may call it
  const handler = createReplayHandler({ authorize: () => true });
  const session = (path, init) => handler(new Request(`http://edge.test/sessions/s${path}`, init));
  const appended = await session("/events", { method: "POST", body: sampleLog() });
  const observation = await (await session("")).json();
  console.log(
    JSON.stringify({
      snapshot: rebuildOsSnapshot(sampleLog()),
      view: new SessionState("s").apply(sampleLog()).view(),
      appended: (await appended.json()).appended,
      observed: observation.state,
      names: Object.keys(require("agent-replay")).sort(),
      listener: typeof toNodeListener(createReplayHandler({ authorize: () => true })),
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
