// The viewer's reader worker: reads the logs its fold worker asks for
// (reader.js), on a thread of its own, over the port the page hands it
// (`{op: "port", port}`; the fold worker has the channel's other end). It
// says `{op: "ready"}` there once it serves: a fold worker that hears
// nothing reads on its own thread instead.
import { serveReads } from "./reader.js";

self.onmessage = ({ data }) => {
  if (data?.op !== "port") return;
  serveReads(data.port);
  data.port.postMessage({ op: "ready" });
};
