// The edge handler's error responses, shared with the Node adapter
// (node-listener.js), which answers a request it cannot turn into a fetch
// Request, or a handler that throws, in the same shape.

export const JSON_HEADERS = {
  "content-type": "application/json; charset=utf-8",
  "cache-control": "no-store",
};

/** The codes of a transient refusal: the client is told when to retry. */
const RETRY_LATER = new Set(["store_full", "storage_unavailable"]);

/** A JSON error response. Input never reaches it unescaped. */
export function errorResponse(status, code, message, errors) {
  return new Response(JSON.stringify({ error: { code, message, ...(errors ? { errors } : {}) } }), {
    status,
    headers: RETRY_LATER.has(code) ? { ...JSON_HEADERS, "retry-after": "1" } : JSON_HEADERS,
  });
}
