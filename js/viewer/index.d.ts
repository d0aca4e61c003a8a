// Types of agent-replay/viewer (browser only).
import type {
  EventCategory,
  EventKind,
  LoggedEvent,
  OsSnapshot,
  SessionSummary,
  SessionView,
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
  data: SessionViewerData | null;
  /** A whole log to fold and show (calls `init()` first). */
  set log(input: string | Uint8Array);
  setLog(input: string | Uint8Array): Promise<void>;
  /** Draws everything again (charts are canvases: after a theme change). */
  redraw(): void;
}
export function defineSessionViewer(name?: string): void;

export interface ChartSeries {
  samples: { position: number; turn: number; score: number }[];
  alerts: { position: number; turn: number; score: number; threshold: number }[];
  turns: { position: number; turn: number; tokens: number; event_count: number; errors: number }[];
  usage: { position: number; turn: number; operation_id: string; tokens: number }[];
}
export function chartSeries(view: SessionView): ChartSeries;
export function cutSeries(series: ChartSeries, at?: number): ChartSeries;

export function renderHeader(state: SessionSummary | SessionView): HTMLElement;
export function renderTranscript(
  view: Pick<SessionView, "transcript">,
  options?: {
    at?: number;
    limit?: number;
    earlier?: number;
    onSelect?: (position: number) => void;
  },
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
/** Draws the charts into `host` (uPlot); `update` gives them new data. */
export function renderCharts(
  host: HTMLElement,
  series: ChartSeries,
  at?: number,
): { update(series: ChartSeries, at?: number): void; destroy(): void };

/** Event categories in display order, with the kinds each holds (from
 * `eventKinds()`: the WebAssembly must be loaded). */
export function categories(): Record<EventCategory, EventKind[]>;
export function categoryOf(kind: string): EventCategory | "unknown";
export function describeEvent(event: LoggedEvent): string;
export function isAlarming(event: LoggedEvent): boolean;
export function contentText(content: unknown): string;
