// The transcript panel of a session as of a position: the view's entries
// with the model calls beside the answers they produced, each entry's body
// built now or left for later (the element builds those near the viewport).
import { routeText } from "./event-text.js";
import { callAt, upperBound } from "./digest.js";
import { h, num, standIn } from "./dom.js";
import { suspensionWords } from "./status.js";

function pre(text, cls) {
  return h("pre", { class: cls ?? "asv-pre" }, text);
}

function argsText(args) {
  return typeof args === "string" ? args : JSON.stringify(args, null, 2);
}

/** One model call: its route, attempts, prompt measures and context. */
function callBlock(c) {
  const failed = c.attempts.filter((a) => a.status !== "success");
  return h(
    "div",
    { class: "asv-call", "data-effect": c.effect_id },
    h(
      "div",
      { class: "asv-call-head" },
      h("span", { class: "asv-dim" }, "model call "),
      h("code", { class: "asv-route" }, routeText(c.route) || "(route unknown)"),
      failed.length
        ? h("span", { class: "asv-badge asv-failed" }, `${failed.length} failed`)
        : null,
    ),
    h(
      "ul",
      { class: "asv-attempts" },
      c.attempts.map((a) =>
        h(
          "li",
          {
            class: a.status === "success" ? "" : "asv-attempt-failed",
            "data-position": a.position,
          },
          `attempt ${a.attempt_seq}: ${a.status}${a.error ? ` (${a.error})` : ""} · ${num(a.ms)} ms${a.input_tokens != null ? ` · ${num(a.input_tokens)} in, ${num(a.output_tokens)} out (provider's count)` : ""}`,
        ),
      ),
      c.prompts.length
        ? h(
            "li",
            { class: "asv-dim" },
            `prompt ${c.prompts.map((p) => `${num(p.input_tokens)} tokens (${p.source}, ${p.confidence})`).join(" → ")}`,
          )
        : null,
      c.context
        ? h(
            "li",
            { class: "asv-dim asv-context" },
            `context ${c.context.included} in${
              Object.keys(c.context.sources).length
                ? ` (${Object.entries(c.context.sources)
                    .map(([k, n]) => `${n} ${k}`)
                    .join(", ")})`
                : ""
            }${c.context.excluded ? `, ${c.context.excluded} left out` : ""}${c.context.projected_tokens != null ? ` · ~${num(c.context.projected_tokens)} of ${num(c.context.budget_tokens)} tokens` : ""}`,
          )
        : null,
    ),
  );
}

/** The calls of `calls` (sorted by position) that belong next to
 * transcript entries from position `from` on, as of `at`: by the position
 * of the answer they produced, and those without one (failed, or going on). */
function callsShown(calls, from, at) {
  const byAnswer = new Map();
  const orphans = [];
  let i = upperBound(calls, from - 1, (c) => c.answer ?? c.position);
  for (; i < calls.length && calls[i].position <= at; i += 1) {
    const c = callAt(calls[i], at);
    if (c.answer !== null) byAnswer.set(c.answer, c);
    else if (c.position >= from)
      orphans.push({ type: "model_call", position: c.position, call: c });
  }
  return { byAnswer, orphans };
}

/** Transcript entries and unanswered calls, in position order. */
function merged(entries, orphans) {
  if (!orphans.length) return entries;
  const out = [];
  let j = 0;
  for (const t of entries) {
    while (j < orphans.length && orphans[j].position < t.position) out.push(orphans[j++]);
    out.push(t);
  }
  return out.concat(orphans.slice(j));
}

/** The divider put before the first entry of a life after the first: a
 * life begins with a new run (its goal) or, after a wake, mid-run. */
function lifeDivider(life, first) {
  return h(
    "li",
    { class: "asv-life", "data-life": life },
    `life ${life} (${first.type === "goal" ? "new run" : "after wake"}): turns start again`,
  );
}

/** The classes of a transcript entry as of `at` (its box: drawn whether or
 * not its body is built yet). */
function entryClasses(t, at) {
  const cls = ["asv-t", `asv-t-${t.type}`];
  if (t.rolled_back_at != null && t.rolled_back_at <= at) cls.push("asv-undone");
  if (t.type === "model_call") {
    const done = t.call.attempts.at(-1)?.status;
    if (done !== undefined && done !== "success") cls.push("asv-error");
  } else if (t.type === "tool_call") {
    const r = t.result && t.result.position <= at ? t.result : null;
    if (r?.is_fatal) cls.push("asv-fatal");
    else if (r?.is_error || t.denied) cls.push("asv-error");
  }
  return cls.join(" ");
}

/** The body of a transcript entry as of `at`; `byAnswer`: the model calls
 * by the position of their answer. */
function entryBody(t, at, byAnswer) {
  const undone = t.rolled_back_at != null && t.rolled_back_at <= at;
  switch (t.type) {
    case "goal":
      return [
        h("div", { class: "asv-t-head" }, "Goal"),
        h("p", {}, t.text),
        t.criteria.length
          ? h(
              "ul",
              { class: "asv-criteria" },
              t.criteria.map((c) => h("li", {}, c)),
            )
          : null,
      ];
    case "assistant":
      return [
        h(
          "div",
          { class: "asv-t-head" },
          `Assistant · turn ${t.turn}`,
          t.token_count != null
            ? h("span", { class: "asv-dim" }, ` · ${num(t.token_count)} tokens`)
            : null,
        ),
        h(
          "p",
          { class: "asv-text" },
          t.text || h("span", { class: "asv-dim" }, "(tool calls only)"),
        ),
        byAnswer.has(t.position) ? callBlock(byAnswer.get(t.position)) : null,
      ];
    case "model_call": {
      const done = t.call.attempts.at(-1)?.status;
      const failed = done !== undefined && done !== "success";
      return [
        h(
          "div",
          { class: "asv-t-head" },
          failed ? "Model call failed" : "Model call · no answer yet",
        ),
        callBlock(t.call),
      ];
    }
    case "tool_call": {
      const r = t.result && t.result.position <= at ? t.result : null;
      return [
        h(
          "div",
          { class: "asv-t-head" },
          h("code", {}, t.name ?? "(unknown tool)"),
          h("span", { class: "asv-dim" }, ` · ${t.call_id} · turn ${t.turn}`),
          t.denied ? h("span", { class: "asv-badge asv-failed" }, "denied") : null,
          t.gated ? h("span", { class: "asv-badge asv-suspended" }, "gated") : null,
          r?.is_fatal
            ? h("span", { class: "asv-badge asv-failed" }, "fatal")
            : r?.is_error
              ? h("span", { class: "asv-badge asv-failed" }, r.error_kind ?? "error")
              : null,
          undone ? h("span", { class: "asv-badge asv-idle" }, "rolled back") : null,
        ),
        t.arguments !== null
          ? h("details", {}, h("summary", {}, "arguments"), pre(argsText(t.arguments)))
          : null,
        t.denied ? h("p", { class: "asv-note" }, `Denied: ${t.denied}`) : null,
        t.gated ? h("p", { class: "asv-note" }, `Gated: ${t.gated}`) : null,
        r
          ? pre(r.output, "asv-pre asv-output")
          : t.denied
            ? null
            : h("p", { class: "asv-dim" }, "no result yet"),
      ];
    }
    case "suspended":
      return [
        h("div", { class: "asv-t-head" }, `Suspended · turn ${t.turn}`),
        h("p", {}, suspensionWords(t)),
      ];
    case "resumed":
      return [
        h("div", { class: "asv-t-head" }, `Resumed · turn ${t.turn}`),
        h(
          "p",
          {},
          [
            t.approved.length ? `approved ${t.approved.join(", ")}` : "",
            t.denied.length ? ` denied ${t.denied.join(", ")}` : "",
          ]
            .join(" ")
            .trim() || "resumed",
        ),
      ];
    case "rollback":
      return [
        h("div", { class: "asv-t-head" }, `Rollback · turn ${t.turn}`),
        h(
          "p",
          {},
          `back to history length ${t.checkpoint_history_len}${t.reason ? ` — ${t.reason.kind}${t.reason.tool_name ? ` (${t.reason.tool_name})` : ""}${t.reason.reason || t.reason.error ? `: ${t.reason.reason ?? t.reason.error}` : ""}` : ""}`,
        ),
      ];
    default:
      return [pre(JSON.stringify(t, null, 2))];
  }
}

/**
 * The transcript as of `at`: the goal, assistant messages with the model
 * calls that produced them, tool calls with their results (when they came
 * by `at`), errors and fatal results marked, denials and gates,
 * suspensions, rollbacks with what they undid, model calls that got no
 * answer, and a divider where a new life (after a wake) begins.
 */
export function renderTranscript(view, options = {}) {
  return transcriptPanel(view, options).panel;
}

/**
 * `renderTranscript`, with the entries `near(i)` refuses (`i`: the
 * entry's place among the list's entries) left unbuilt: each is its box
 * alone (classes, position, click; `asv-later`), a stand-in
 * (`standIn`) for the entry already in the tree, and `later[i]` builds the
 * whole entry when it is wanted. Returns `{panel, later}`.
 */
export function transcriptPanel(
  view,
  { at = Infinity, limit = 200, earlier = 0, calls = [], onSelect, near = () => true } = {},
) {
  const entries = view.transcript.filter((t) => t.position <= at);
  const shown = entries.slice(Math.max(0, entries.length - limit));
  const { byAnswer, orphans } = callsShown(calls, shown[0]?.position ?? 0, at);
  for (const o of orphans) o.life = o.call.life;
  const list = h("ol", { class: "asv-transcript", "data-testid": "transcript" });
  const later = [];
  // Entries carry their life (none before the core knew lives: all in 1).
  let life = 1;
  for (const t of merged(shown, orphans)) {
    if ((t.life ?? 1) !== life) {
      life = t.life ?? 1;
      list.append(lifeDivider(life, t));
    }
    const box = (cls, body) =>
      h(
        "li",
        {
          class: cls,
          "data-position": t.position,
          onclick: onSelect && (() => onSelect(t.position)),
        },
        body,
      );
    const cls = entryClasses(t, at);
    const build = () =>
      box(cls, [
        h("span", { class: "asv-pos" }, `#${t.position}`),
        h("div", { class: "asv-t-body" }, entryBody(t, at, byAnswer)),
      ]);
    if (near(later.length)) {
      later.push(null);
      list.append(build());
    } else {
      later.push(build);
      list.append(standIn(box(`${cls} asv-later`, null)));
    }
  }
  const hidden = entries.length - shown.length + earlier;
  const panel = h(
    "section",
    { class: "asv-panel", "data-testid": "transcript-panel" },
    h("h2", {}, "Transcript"),
    hidden > 0
      ? h(
          "p",
          { class: "asv-dim" },
          `${num(hidden)} earlier entries (move back in time to see them)`,
        )
      : null,
    entries.length ? list : h("p", { class: "asv-dim" }, "Nothing yet."),
  );
  return { panel, later };
}
