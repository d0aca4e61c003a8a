// Types of agent-replay/file-store: durable sessions in a directory (Node, Deno).
import type { SessionStorage } from "./index.js";

/** A storage in `dir`: `<session_id>.jsonl` in FileSessionLog format, fsynced
 * per append, with `<session_id>.checkpoint.json` and `incarnation` beside. */
export function fileStore(dir: string): SessionStorage;
