// A run's status in words and as a tone, the one place every page that
// shows one takes them from: the viewer's header, the runs dashboard (its
// column, filter and chart) and the compare page. The states are the
// core's (`Status` in src/view/mod.rs, `SessionStatus` in js/index.d.ts:
// a test checks `STATES` against that union). No DOM: Node tests and
// workers can use it.

/** The states of a `SessionStatus`, in the order a run goes through them. */
export const STATES = ["not_started", "running", "suspended", "terminal"];

/** The outcomes a run is sorted into: a finished run's reason tells
 * `completed` from `failed`. The order is the dashboard's (its chart
 * stacks them so, its status filter lists them so). */
export const OUTCOMES = ["completed", "failed", "running", "suspended", "not_started"];

/** Each outcome's tone: the class suffix of the badges and bars that show
 * it (palette.js gives each tone its colours). */
const TONES = {
  completed: "done",
  failed: "failed",
  running: "running",
  suspended: "suspended",
  not_started: "idle",
};

/** The tone of a state this viewer does not know (a newer runtime's). */
const UNKNOWN_TONE = "idle";

/** An identifier as words: `not_started` → `not started`. */
const words = (name) => String(name).replace(/_/g, " ");

/** A run's outcome (one of `OUTCOMES`); a state not known here is its own. */
export function outcomeOf(status) {
  if (status.state === "terminal") return status.reason === "completed" ? "completed" : "failed";
  return status.state;
}

/** The words of an outcome, as the status filter lists them. */
export function outcomeWords(outcome) {
  return words(outcome);
}

/** The tone of an outcome; a neutral one for an outcome not known here. */
export function outcomeTone(outcome) {
  return Object.hasOwn(TONES, outcome) ? TONES[outcome] : UNKNOWN_TONE;
}

/** Why a run is suspended, and the calls it waits on (an OS snapshot's
 * `last_suspend` or a suspended status: both have these fields). */
export function suspensionWords({ reason, pending_calls: pending }) {
  return `${reason}${pending?.length ? ` (pending ${pending.join(", ")})` : ""}`;
}

/** A status in words: `running`, `suspended: ask_user (pending call-5)`,
 * `finished: completed`; a state not known here, its name in words. */
export function statusWords(status) {
  switch (status.state) {
    case "suspended":
      return `suspended: ${suspensionWords(status)}`;
    case "terminal":
      return `finished: ${status.reason}`;
    default:
      return words(status.state ?? "unknown");
  }
}

/** A status's tone (see `outcomeTone`). */
export function statusTone(status) {
  return outcomeTone(outcomeOf(status));
}
