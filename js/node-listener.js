// agent-replay/node: the edge handler (agent-replay/edge), or any fetch
// handler, served by node:http. Kept out of agent-replay/edge, which must
// import nothing Node-only to bundle for browsers and edge runtimes.
import { Readable } from "node:stream";
import { errorResponse } from "./error-response.js";

/**
 * Adapts a fetch handler to Node's `http.createServer` listener.
 * `new http.Server(toNodeListener(handler)).listen(8787, "127.0.0.1")`
 */
export function toNodeListener(handler) {
  return async (req, res) => {
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    try {
      const request = fetchRequest(req, controller.signal);
      const response = request
        ? await handler(request)
        : errorResponse(400, "invalid_request", "no URL can be made of the request");
      await sendResponse(response, res, controller.signal);
    } catch (e) {
      if (res.headersSent) return res.destroy(e);
      await sendResponse(errorResponse(500, "internal", "internal error"), res, controller.signal);
    }
  };
}

/** A Node request as a fetch Request, or undefined when its target and
 * Host header make no URL. */
function fetchRequest(req, signal) {
  let url;
  try {
    url = new URL(`http://${req.headers.host ?? "localhost"}${req.url}`);
  } catch {
    return undefined;
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(url, {
    method: req.method,
    headers: Object.entries(req.headers).flatMap(([k, v]) =>
      Array.isArray(v) ? v.map((x) => [k, x]) : v === undefined ? [] : [[k, v]],
    ),
    body: hasBody ? Readable.toWeb(req) : undefined,
    duplex: hasBody ? "half" : undefined,
    signal,
  });
}

/** Writes a fetch Response to a Node response, waiting on a slow client. */
async function sendResponse(response, res, signal) {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return res.end();
  const reader = response.body.getReader();
  signal.addEventListener("abort", () => reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    // Backpressure: a slow client is waited for, not buffered for.
    if (!res.write(value))
      await new Promise((resolve) => {
        res.once("drain", resolve);
        res.once("close", resolve);
      });
  }
  res.end();
}
