// Prints the result of work() as JSON (Node and Deno run this file).
import { work } from "./work.mjs";
console.log(JSON.stringify(work()));
