# workerd config for the packaging tests: the bundled Worker, the package's
# .wasm as a Wasm module, and one Durable Object per session, SQLite-backed
# (examples/edge/worker.mjs keeps its session there) with its storage in
# the bundle's do/ directory (localDisk: workerd runs with --experimental).
# The socket address is given on the command line (--socket-addr).
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "disk", disk = (path = "do", writable = true)),
  ],
  sockets = [ (name = "http", http = (), service = "main") ],
);

const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "agent_replay_bg.wasm", wasm = embed "agent_replay_bg.wasm"),
  ],
  compatibilityDate = "2025-01-01",
  durableObjectNamespaces = [
    (className = "SessionObject", uniqueKey = "agent-replay-test-sessions", enableSql = true),
  ],
  durableObjectStorage = (localDisk = "disk"),
  bindings = [
    (name = "SESSIONS", durableObjectNamespace = "SessionObject"),
    (name = "TOKENS", text = "{\"test-token\": [\"run:1\"]}"),
    (name = "MAX_EVENTS_PER_SESSION", text = "4"),
    (name = "MAX_BODY_BYTES", text = "65536"),
    (name = "MAX_EVENTS_PER_REQUEST", text = "3"),
  ],
);
