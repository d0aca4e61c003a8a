// Types of agent-replay/viewer (browser only).
import type {
  EventCategory,
  EventKind,
  KindTable,
  LoggedEvent,
  OsSnapshot,
  SessionSummary,
  SessionView,
  TurnSeries,
} from "../index.js";

/** What <agent-session-viewer> shows. */
export interface SessionViewerData {
  /** Transcript, chart data and load errors (all, or the part to show). */
  view: Pick<SessionView, "transcript" | "load_errors"> & Partial<SessionView>;
  snapshot: OsSnapshot;
  /** The state for the header and process tree (default: `view`). */
  summary?: SessionSummary;
  /** Show the state as of this position: lists are cut there. */
  at?: number;
  /** `chartSeries(view)`, when `view` holds only part of the lists. */
  series?: ChartSeries;
  /** `chartTables(series)`, the same series bucketed elsewhere (a Worker);
   * taken over `series`. */
  charts?: ChartTables;
  /** `viewDigest(view)`, likewise. */
  digest?: ViewDigest;
  /** Transcript entries before those in `view` (shown as a count). */
  earlier?: number;
  /** Transcript entries shown at most (default 200). */
  limit?: number;
  /** Full lengths, when `snapshot`'s lists or the processes' histories hold
   * only their latest part. */
  totals?: {
    lists?: Partial<
      Record<"budget_exceeded" | "budget_usage_reported" | "cancellations" | "signals", number>
    >;
    history?: Record<string, number>;
  };
}

/** <agent-session-viewer>: header, transcript, OS snapshot, sub-agent tree,
 * charts and load errors. Registered when this module is imported. Fires
 * `select-position` ({detail: {position}}) when an entry is clicked and
 * `rendered` after each render. */
export class SessionViewer extends HTMLElement {
  /** The attributes it follows: `src`, the URL of a log to fetch and show. */
  static observedAttributes: string[];
  data: SessionViewerData | null;
  /** A whole log to fold and show (calls `init()` first). */
  set log(input: string | Uint8Array);
  setLog(input: string | Uint8Array): Promise<void>;
  /** Draws everything again (charts are canvases: after a theme change). */
  redraw(): void;
  /** The custom element's lifecycle, called by the browser. */
  connectedCallback(): void;
  disconnectedCallback(): void;
  attributeChangedCallback(name: string, old: string | null, value: string | null): void;
}
export function defineSessionViewer(name?: string): void;

/** Where each life starts on the charts' x axis (x = shift + turn). */
export interface LifeAxis {
  life: number;
  shift: number;
  start: number;
}
/** Chart points: `x` is the turn shifted per life (see `xLabel`); the
 * turns as columns, a value per turn in each, in the view's order. */
export interface ChartSeries {
  lives: LifeAxis[];
  samples: { position: number; turn: number; x: number; score: number }[];
  alerts: { position: number; turn: number; x: number; score: number; threshold: number }[];
  turns: {
    x: Float64Array;
    /** Where the turn starts. */
    position: Float64Array;
    /** Prompt tokens measured for the turn (NaN: the view has none). */
    input: Float64Array;
    output: Float64Array;
    events: Float64Array;
    errors: Float64Array;
  };
  usage: { position: number; turn: number; x: number; operation_id: string; tokens: number }[];
}
/** The chart series of a view; or of a paged index's lists (the view's
 * lives, entropy and budgets) with its `turnSeries()`. */
export function chartSeries(
  view: Pick<SessionView, "lives" | "entropy" | "budgets"> & Partial<SessionView>,
  turnSeries?: TurnSeries,
): ChartSeries;
/** The charts of a session's series, bucketed once (`chartTables`): typed
 * arrays in plain objects, so a Worker can make them and transfer them. */
export interface ChartTables {
  lives: LifeAxis[];
  /** Where each turn starts and its x, by position: time travel marks a
   * position at its turn's x. */
  turns: { position: Float64Array; x: Float64Array };
  charts: {
    title: string;
    series: { label: string; color?: string; points?: boolean; dash?: number[] }[];
    bars?: boolean;
    xs: Float64Array;
    /** Per series, its maximum in each bucket of `xs` over the whole run
     * (NaN where it has no point). */
    maxima: Float64Array[];
  }[];
}
/** The charts of `series` bucketed, at most `colors` (7) budget operations charted. */
export function chartTables(series: ChartSeries, colors?: number): ChartTables;
/** The series as the run was at position `at` (its points known by then). */
export function cutSeries(series: ChartSeries, at?: number): ChartSeries;
/** An x value's label: the turn, or "L2·t3" when there are lives. */
export function xLabel(lives: LifeAxis[], x: number): string;

/** A model call: its events grouped by `effect_id`. */
export interface ModelCall {
  effect_id: string;
  /** Its first and last event. */
  position: number;
  last_position: number;
  /** The assistant message it produced (`null`: failed, or going on). */
  answer: number | null;
  route: { provider: string; protocol: string; model: string } | null;
  life: number;
  context: {
    position: number;
    included: number;
    excluded: number;
    /** Included entries by source (the entry id's prefix: history, state, …). */
    sources: Record<string, number>;
    projected_tokens: number | null;
    budget_tokens: number | null;
  } | null;
  prompts: {
    position: number;
    input_tokens: number;
    source: string | null;
    confidence: string | null;
  }[];
  attempts: {
    position: number;
    attempt_seq: number;
    status: string;
    error: string | null;
    ms: number;
    input_tokens: number | null;
    output_tokens: number | null;
  }[];
}
/** A row of the runtime panel (`position` and the columns it shows). */
export type ActivityRow = { position: number } & Record<string, unknown>;
/** What the runtime panels show of a view, each row with its position. */
export interface ViewDigest {
  calls: ModelCall[];
  workflow: {
    batches: { position: number; node_count: number; node_ids: string[] }[];
    submissions: { position: number; count: number; submitter: string | null }[];
    nodes: {
      node_id: string;
      spawned_at: number | null;
      batch: number | null;
      ends: { position: number; status: string; termination: string; output: string | null }[];
    }[];
    completions: { position: number; total_nodes: number; outcomes: number }[];
  };
  activity: Record<
    | "rounds"
    | "groups"
    | "stopped_tools"
    | "memory_failures"
    | "summary_upgrades"
    | "semantic_archive",
    ActivityRow[]
  >;
  /** Positions of the kernel observations, by `observation_kind`. */
  observations: Record<string, number[]>;
}
/** `runRoute`: `run_started.route`, for calls whose events name none. */
export function viewDigest(view: SessionView): ViewDigest;
export function modelCalls(view: SessionView): ModelCall[];
/** A call as of a position: what was written by then. */
export function callAt(call: ModelCall, at: number): ModelCall;

/** A count as the panels show it ("1,234,567"; a U64 string as it is),
 * without Intl for whole numbers (its first use costs a frame). */
export function num(n: number | string): string;

export function renderHeader(state: SessionSummary | SessionView): HTMLElement;
export function renderTranscript(
  view: Pick<SessionView, "transcript">,
  options?: {
    at?: number;
    limit?: number;
    earlier?: number;
    /** `viewDigest(view).calls`: shown beside their answers, or alone. */
    calls?: ModelCall[];
    onSelect?: (position: number) => void;
  },
): HTMLElement;
/** The workflow's batches and nodes as of `at` (`null`: no workflow). */
export function renderWorkflow(
  workflow: ViewDigest["workflow"],
  processes?: SessionView["processes"],
  at?: number,
): HTMLElement | null;
/** Rounds, groups, stopped tools, memory failures, summary upgrades,
 * semantic archiving and kernel observations by kind, as of `at`. */
export function renderActivity(
  activity: ViewDigest["activity"],
  observations: ViewDigest["observations"],
  at?: number,
): HTMLElement;
export function renderSnapshot(
  snapshot: OsSnapshot,
  lengths?: Partial<
    Record<"budget_exceeded" | "budget_usage_reported" | "cancellations" | "signals", number>
  >,
): HTMLElement;
export function renderProcesses(
  processes: SessionView["processes"],
  rootId?: string,
  historyLengths?: Record<string, number>,
): HTMLElement;
export function renderLoadErrors(
  errors: SessionView["load_errors"],
  total?: number,
): HTMLElement | null;
/** Draws the charts of the whole run into `host` (uPlot) with position
 * `at` marked (a line, the part after it dimmed; `Infinity`: none), the
 * first at once and the others one per task after it; `whenDrawn` calls
 * back once all are made, `update` moves the mark and, given new series,
 * gives them new data (drawn when they are within a quarter viewport of
 * the screen, else when they come near), `flush` draws what waits. */
export function renderCharts(
  host: HTMLElement,
  series: ChartSeries | ChartTables,
  at?: number,
): {
  update(series: ChartSeries | ChartTables, at?: number): void;
  whenDrawn(callback: () => void): void;
  flush(): void;
  destroy(): void;
};

/** Event categories in display order, with the kinds each holds (from
 * `eventKinds()`: the WebAssembly must be loaded). */
export function categories(): Record<EventCategory, EventKind[]>;
export function categoryOf(kind: string): EventCategory | "unknown";
export function describeEvent(event: LoggedEvent): string;
export function isAlarming(event: LoggedEvent): boolean;
export function contentText(content: unknown): string;
/** A details pane's facts of an event: `[label, value]` pairs. */
export function eventFacts(event: LoggedEvent): [string, string | number][];
/** deepstrike's kernel category and primitive of a kind, from the kind
 * table (`null` when the table has no such column or kind). */
export function kernelFacetsOf(kind: string): {
  kernel_category: string | null;
  primitive: string | null;
};
/** The kernel categories and primitives the kind table names. */
export function kernelFacets(table?: KindTable): {
  kernel_categories: string[];
  primitives: string[];
};
/** "provider/protocol/model" of a route record. */
export function routeText(
  route: { provider?: string; protocol?: string; model?: string } | null,
): string;
