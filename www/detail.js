// The selected event's detail panel (its facts and JSON, as the worker
// describes them), and its button that travels to the event.
import { $, page } from "./page-state.js";
import { travel } from "./scrubber.js";

/** Shows the worker's detail of the selected event: its facts and JSON. */
export function showDetail(msg) {
  const d = $("detail");
  d.hidden = false;
  $("detail-title").textContent = msg.missing
    ? `#${msg.position}: not loaded`
    : `#${msg.position} · ${msg.kind}${msg.turn === null ? "" : ` · turn ${msg.turn}`} · ${msg.category}${msg.kernel_category ? ` · kernel ${msg.kernel_category}/${msg.primitive}` : ""}`;
  $("detail-facts").replaceChildren(
    ...(msg.facts ?? []).flatMap(([label, value]) => {
      const dt = document.createElement("dt");
      dt.textContent = label;
      const dd = document.createElement("dd");
      dd.textContent = String(value);
      return [dt, dd];
    }),
  );
  $("detail-json").textContent = msg.json ?? "";
}

$("detail-close").addEventListener("click", () => ($("detail").hidden = true));
$("travel").addEventListener("click", () => page.selected !== null && travel(page.selected));
