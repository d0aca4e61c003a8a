// `agent-replay serve` sending one file: time to its first byte and to the
// whole body, three rounds. Run: `node benches/serve.mjs FILE`.
import { request } from "node:http";
import { basename } from "node:path";
import { serve } from "../bin/serve.js";

const file = process.argv[2];
if (!file) throw new Error("usage: node benches/serve.mjs FILE");

function get(url) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let first;
    let bytes = 0;
    request(url, (res) => {
      res.on("data", (chunk) => {
        first ??= performance.now() - started;
        bytes += chunk.length;
      });
      res.on("end", () => resolve({ first, whole: performance.now() - started, bytes }));
    })
      .on("error", reject)
      .end();
  });
}

const server = await serve({ port: 0, files: [file], demo: false });
for (let round = 0; round < 3; round++) {
  const r = await get(`${server.url}/files/${encodeURIComponent(basename(file))}`);
  console.log(
    `first byte ${r.first.toFixed(0)} ms · whole body ${r.whole.toFixed(0)} ms · ${r.bytes} bytes`,
  );
}
await server.close();
