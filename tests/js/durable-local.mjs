// In-process durable sessions for the tests: a temporary directory and the
// edge handler over a file store in it, called without a server.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReplayHandler } from "agent-replay/edge";
import { fileStore } from "../../js/file-store.js";

/** A temporary directory, removed after the test. */
export function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "agent-replay-durable-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A handler over the file store in `dir` (or `options.storage`), as a
 * process would start it; `request(path, init)` calls it in-process. */
export function server(dir, options = {}) {
  const handler = createReplayHandler({
    authorize: () => true,
    storage: options.storage ?? fileStore(dir),
    ...options,
  });
  return (path, init) => handler(new Request(`http://edge.test/sessions/${path}`, init));
}
