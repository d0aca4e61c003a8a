// The viewer's reader worker: reads the logs its fold worker asks for
// (reader.js), on a thread of its own.
import { serveReads } from "./reader.js";

serveReads(self);
