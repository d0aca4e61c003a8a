// Who `serve` answers (docs/viewer.md, "What the server exposes and to
// whom"). Every request passes this gate before any route is looked at:
// - its Host must be one of the server's own names, so that a page of
//   another site that rebinds its DNS name to 127.0.0.1 (whose requests
//   carry that site's name) reads nothing: 421 `misdirected_request`;
// - a state-changing request that says it comes from a page (`Origin`) must
//   come from the server's own page: 403 `forbidden`;
// - with a read token, every request must carry it: 401 `unauthorized`.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { httpStatusOf } from "../js/node.js";

/** The names a browser on this machine reaches the server by. */
const LOOPBACK = ["127.0.0.1", "localhost", "[::1]"];
const STATE_CHANGING = new Set(["POST", "PUT", "DELETE", "PATCH"]);

/** An address as a URL or a Host header writes it: an IPv6 one in brackets. */
export const hostName = (address) =>
  address.includes(":") && !address.startsWith("[") ? `[${address}]` : address;

/** A read token for a server that listens beyond this machine and was given none. */
export const newReadToken = () => randomBytes(18).toString("base64url");

/** A coded JSON error, as the edge handler answers them, with its table status. */
export function sendError(res, code, message, headers = {}) {
  res.writeHead(httpStatusOf(code), {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    ...headers,
  });
  res.end(JSON.stringify({ error: { code, message } }));
}

/**
 * The gate: `admit(req, res)` answers a request it refuses and returns
 * false, or returns true (having set the read-token cookie when the
 * request's URL carried the token). `port()` is the port listened on;
 * `host` the address listened on; `allowHosts` more names, at any port
 * (a reverse proxy's); `readToken` the token every request must carry;
 * `writeToken` also admits its bearer.
 */
export function accessGate({ port, host, allowHosts = [], readToken, writeToken }) {
  const names = [...new Set([...LOOPBACK, hostName(host)])].map((n) => n.toLowerCase());
  const allowed = allowHosts.map((n) => hostName(n).toLowerCase());
  const cookie = () => `agent-replay-token-${port()}`;
  return function admit(req, res) {
    const hostHeader = req.headers.host?.toLowerCase();
    if (!isOwnHost(hostHeader, port(), names, allowed)) {
      const message = `this server answers only its own names (${names.join(", ")}), not this Host`;
      sendError(res, "misdirected_request", message);
      return false;
    }
    const origin = req.headers.origin?.toLowerCase();
    if (STATE_CHANGING.has(req.method) && origin !== undefined && !isOrigin(origin, hostHeader)) {
      sendError(res, "forbidden", "a state-changing request from another origin");
      return false;
    }
    if (!readToken) return true;
    const fromQuery = queryToken(req.url);
    if (fromQuery !== null && same(fromQuery, readToken)) {
      // The page's own requests (its workers, fetches, EventSource) carry no
      // header of ours: the browser sends them this cookie, to this origin only.
      res.setHeader("set-cookie", `${cookie()}=${readToken}; HttpOnly; SameSite=Strict; Path=/`);
      return true;
    }
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    const fromCookie = cookieValue(req.headers.cookie, cookie());
    if (
      (bearer && (same(bearer, readToken) || (writeToken && same(bearer, writeToken)))) ||
      (fromCookie && same(fromCookie, readToken))
    )
      return true;
    const message =
      "this server needs its read token: open the URL it printed (…?token=…) " +
      "or send Authorization: Bearer TOKEN";
    sendError(res, "unauthorized", message, { "www-authenticate": "Bearer" });
    return false;
  };
}

/** Whether a Host header names the server: a loopback name or the address
 * listened on, with the server's port (none for port 80, as browsers send
 * it), or an allowed name at any port. */
function isOwnHost(header, port, names, allowed) {
  if (!header) return false;
  const suffix = `:${port}`;
  const bare = header.endsWith(suffix) ? header.slice(0, -suffix.length) : port === 80 && header;
  if (bare && names.includes(bare)) return true;
  return allowed.includes(header.replace(/:\d+$/, ""));
}

/** Whether an Origin is the server's own page at this Host (behind a TLS
 * proxy, its https one). */
const isOrigin = (origin, host) => origin === `http://${host}` || origin === `https://${host}`;

/** The `token` query parameter of a request target, or null. */
function queryToken(target = "/") {
  const at = target.indexOf("?");
  return at < 0 ? null : new URLSearchParams(target.slice(at + 1)).get("token");
}

function cookieValue(header, name) {
  for (const part of header?.split(";") ?? []) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

/** Compares two tokens in time independent of where they differ. */
function same(given, token) {
  const digest = (text) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}
