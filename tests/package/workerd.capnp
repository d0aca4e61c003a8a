# workerd config for the packaging tests: the bundled Worker, the package's
# .wasm as a Wasm module, and one in-memory Durable Object per session.
# The socket address is given on the command line (--socket-addr).
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", http = (), service = "main") ],
);

const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "agent_replay_bg.wasm", wasm = embed "agent_replay_bg.wasm"),
  ],
  compatibilityDate = "2025-01-01",
  durableObjectNamespaces = [ (className = "SessionObject", uniqueKey = "agent-replay-test-sessions") ],
  durableObjectStorage = (inMemory = void),
  bindings = [
    (name = "SESSIONS", durableObjectNamespace = "SessionObject"),
    (name = "TOKENS", text = "{\"test-token\": [\"run:1\"]}"),
    (name = "MAX_EVENTS_PER_SESSION", text = "4"),
    (name = "MAX_BODY_BYTES", text = "65536"),
    (name = "MAX_EVENTS_PER_REQUEST", text = "3"),
  ],
);
