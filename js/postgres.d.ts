// Types of agent-replay/postgres: durable sessions in PostgreSQL, shared by replicas.
import type { Retention, SharedSessionStorage } from "./index.js";

/** What the storage uses of a pg (node-postgres) Pool. */
export interface PgPool {
  connect(): Promise<unknown>;
  query(text: string, values?: unknown[]): Promise<unknown>;
  end(): Promise<void>;
}

export interface PostgresStoreOptions {
  /** A PostgreSQL URL: the storage makes a pool of its own (`pg` must be installed). */
  connectionString?: string;
  /** A pg Pool the host owns (and ends, after `close()`); it must handle the pool's "error" event. */
  pool?: PgPool;
  /** How often every live session is read again, in case a doorbell was missed (default 5000 ms). */
  pollMs?: number;
  /** The delay before the LISTEN connection is made again once lost (default 500 ms). */
  retryMs?: number;
  /** How long a query of the pool the storage makes may go unanswered (a
   * half-open connection) before it fails as `storage_unavailable`; the
   * server's statement and idle-in-transaction timeouts too (default 10000 ms). */
  queryTimeoutMs?: number;
  /** What the table keeps of each session: the newest `events`, the newest
   * `bytes` (UTF-8), those stored within `ageMs` by the database's clock;
   * cut at checkpoint marks (default: everything). */
  retention?: Retention;
}

export interface PostgresStorage extends SharedSessionStorage {
  heads(sessionIds: string[]): Promise<Map<string, number>>;
  subscribe(onDoorbell: (sessionId: string | undefined) => void): () => void;
  /** Cuts the next sessions (up to 100) to `retention`, those nobody
   * appends to included, and forgets whole those nobody appended to within
   * `retention.ageMs`; call it now and then. How many lost events. */
  cleanup(): Promise<number>;
  /** Stops listening and ends the pool the storage made (not one given). */
  close(): Promise<void>;
}

/** A storage in PostgreSQL: give it to `createReplayHandler({storage})` or
 * `DurableSessions` on every replica; the tables are made on first use. */
export function postgresStore(options: PostgresStoreOptions): PostgresStorage;
