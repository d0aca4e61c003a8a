// The numbers the charts draw, taken from a view once and cut at any
// position (time travel) without the view. No DOM: a Worker can use it.

/** Compact chart series of a view: entropy samples and alerts, per-turn
 * totals, budget usage; each with the position it is known from. */
export function chartSeries(view) {
  return {
    samples: view.entropy.samples.map(({ position, event: e }) => ({
      position,
      turn: e.turn,
      score: e.score,
    })),
    alerts: view.entropy.alerts.map(({ position, event: e }) => ({
      position,
      turn: e.turn,
      score: e.score,
      threshold: e.threshold,
    })),
    turns: view.turns
      .map((t) => ({
        position: t.first_position,
        turn: t.turn,
        tokens: Number(t.tokens),
        event_count: t.event_count,
        errors: t.errors,
      }))
      .sort((a, b) => a.turn - b.turn),
    usage: view.budgets.usage.map(({ position, event: e }) => ({
      position,
      turn: e.turn,
      operation_id: e.operation_id,
      tokens: Number(e.tokens),
    })),
  };
}

/** The series as of position `at`. (A turn still going on at `at` counts
 * its events and tokens up to its end: the view keeps per-turn totals.) */
export function cutSeries(series, at = Infinity) {
  if (at === Infinity) return series;
  const cut = (list) => list.filter((x) => x.position <= at);
  return {
    samples: cut(series.samples),
    alerts: cut(series.alerts),
    turns: cut(series.turns),
    usage: cut(series.usage),
  };
}
