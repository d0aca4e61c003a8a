// Types of agent-replay/file-store: durable sessions in a directory (Node, Deno).
import type { SessionStorage } from "./index.js";

/** A storage in `dir`: `<name>.jsonl` in FileSessionLog format (the name
 * encodes the session id), fsynced per append, with
 * `<name>.checkpoint.json` and `incarnation` beside. */
export function fileStore(dir: string): SessionStorage & {
  /** Takes the directory (the first use of any method does): refused when
   * another process writes it or it holds files this store did not write. */
  open(): Promise<void>;
  /** Leaves the directory (its lock) for another process. */
  close(): Promise<void>;
};
