// Plain text of what events hold (message content, routes, context plans),
// apart from describe.js: these need no kind table, so the panels (render.js,
// digest.js) use them without importing the package's bindings, which
// describe.js's `eventKinds()` reads. The viewer's page then loads none of
// the API it never calls (its worker folds the log).

/** Plain text of message content (a string or content parts). */
export function contentText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p) => (p.type === "text" ? p.text : p.type === "tool_result" ? p.output : `[${p.type}]`))
    .join(" ");
}

/** "provider/protocol/model" of a route record (`run_started.route`,
 * `provider_attempt.route`, a context's `provider_route`). */
export function routeText(route) {
  if (!route) return "";
  return [route.provider, route.protocol, route.model].filter(Boolean).join("/");
}

/** What a `context_prepared` put into the model call: the plan's
 * selections counted by action and by source (the entry id's prefix), and
 * its token projection against the budget. */
export function contextSummary(preparation) {
  const plan = preparation?.plan ?? {};
  const selections = plan.selections ?? [];
  const included = selections.filter((s) => s.action === "include");
  const sources = {};
  for (const s of included) {
    const source = String(s.entry_id ?? "").split(":")[0] || "?";
    sources[source] = (sources[source] ?? 0) + 1;
  }
  return {
    included: included.length,
    excluded: selections.length - included.length,
    sources,
    projected_tokens: plan.projected_tokens ?? null,
    budget_tokens: plan.input_budget_tokens ?? null,
  };
}
