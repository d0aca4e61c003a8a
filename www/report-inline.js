// What a one-file report's page and its worker share: reading back what
// `agent-replay report` inlined, gzipped and then written as base64.
import { streamOf } from "../js/viewer/read-ahead.js";

/** The bytes a base64 text holds. */
function fromBase64(text) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A Response that streams the gunzipped bytes of `base64`, typed `type`
 * (DecompressionStream: in Chromium, Firefox and Safari, pages and workers). */
export function inflate(base64, type) {
  const gzipped = streamOf(fromBase64(base64.trim()));
  return new Response(gzipped.pipeThrough(new DecompressionStream("gzip")), {
    headers: { "content-type": type },
  });
}
