// The viewer's reader worker's entry (reader.js does the reading, on a
// thread of its own). It imports nothing, so it runs as soon as it
// arrives: a URL its fold worker names ahead of the read (`{op: "fetch",
// url}`: the page's `?log=`, passed on by worker-start.js before worker.js
// has loaded) is requested here at once, not once reader.js has loaded and
// worker.js's modules have loaded to ask for it. The read of that URL
// takes this response. What comes before reader.js listens waits in `held`
// (a `fetch` that comes later is left to its read, which then requests it).
const early = new Map(); // URL → its response (a promise), for the read that will ask
const held = [];
self.onmessage = (event) => {
  const { op, url } = event.data;
  if (op !== "fetch") return held.push(event);
  const response = fetch(url);
  // A failure is the read's to report.
  response.catch(() => {});
  early.set(url, response);
};
const { serveReads } = await import("./reader.js");
serveReads(self, { early });
for (const event of held) self.onmessage(event);
