//! Comparing two runs: their views aligned turn by turn (by `(life, turn)`,
//! the runtime's own count, so a run that took a detour still lines up
//! where it came back), then tool call by tool call within a turn (by order
//! and name: call ids are minted per run, so they never match across runs).
//! Each aligned turn lists what differs: calls, messages, arguments,
//! results, errors, tokens and status; the earliest difference of the first
//! turn that has one is the first divergence. It reads what the view folded
//! (`turns`, `transcript`, `status`), not the events again.
//!
//! Every function here is `#[inline]` (but the few `#[inline(never)]`
//! ones, kept in the core on purpose), and not for speed: an inline
//! function is compiled by the crate that calls it, so the binding crate
//! (wasm/, built at `opt-level = "z"`) compiles this cold code for size,
//! where the core's own `"s"` builds for the hot fold's speed
//! (benches/RESULTS.md, "The .wasm under its budget";
//! tests/js/wasm-size.test.mjs checks each function has it). It holds only
//! because nothing else in the core calls this module: a function compiled
//! by both crates would be in the .wasm twice.

mod calls;

use std::collections::HashMap;

use crate::log::LogError;
use crate::units::Position;
use crate::view::{readable, SessionView, Status, TurnSummary};
use calls::{align_calls, CallRef, Pairing, Placed, TurnEntries};

readable! {
    /// What a difference is about.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum DifferenceAspect as names {
        /// The turn is on one side only.
        Turn = "turn",
        /// A call is on one side only, or the aligned calls name different tools.
        Call = "call",
        /// The goal, or an assistant message's text.
        Message = "message",
        Arguments = "arguments",
        /// The result's output text, or a result on one side only.
        Result = "result",
        /// Whether the call failed, how, or was denied or gated.
        Error = "error",
        Tokens = "tokens",
        /// A suspension, resumption or rollback in the turn, or how the run ended.
        Status = "status",
    }
}

readable! {
    /// One side of a difference: where it is in that log and what is there.
    #[derive(Debug, Clone, PartialEq)]
    pub struct DifferenceSide {
        /// The event that holds the value; where the side has none, the
        /// event it has at that point instead (its next call or turn, else
        /// the end of its turn or log).
        pub position: Position,
        /// `None`: the side has nothing there.
        pub value: Option<String>,
    }
}

readable! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct Difference {
        pub aspect: DifferenceAspect,
        pub life: u32,
        pub turn: u32,
        /// The call's index among the turn's aligned calls (for `call`,
        /// `arguments`, `result` and `error`).
        pub call: Option<u32>,
        pub a: DifferenceSide,
        pub b: DifferenceSide,
    }
}

readable! {
    /// A turn as one side has it.
    #[derive(Debug, Clone, PartialEq)]
    pub struct TurnSide {
        pub first_position: Position,
        pub last_position: Position,
        pub event_count: u64,
        pub tool_calls: u32,
        pub tokens: u64,
    }
}

readable! {
    /// One aligned turn: where it is on each side and what differs in it.
    #[derive(Debug, Clone, PartialEq)]
    pub struct TurnComparison {
        pub life: u32,
        pub turn: u32,
        pub a: Option<TurnSide>,
        pub b: Option<TurnSide>,
        /// Its calls' differences in order, then its messages', status
        /// marks' and tokens'.
        pub differences: Vec<Difference>,
    }
}

readable! {
    /// One run as a whole.
    #[derive(Debug, Clone, PartialEq)]
    pub struct RunSide {
        pub event_count: u64,
        pub status: Status,
        pub total_tokens: u64,
        /// The log's load errors: a log with bad lines is compared on its
        /// good ones.
        pub load_errors: Vec<LogError>,
    }
}

readable! {
    /// Two runs compared (`compare_runs`). Its JSON shape is the
    /// `RunComparison` type of the package's TypeScript declarations.
    #[derive(Debug, Clone, PartialEq)]
    pub struct RunComparison {
        /// No difference at all.
        pub matches: bool,
        /// The earliest difference (by position in `a`, then `b`) of the
        /// first turn that has one.
        pub first_divergence: Option<Difference>,
        pub difference_count: u64,
        /// Every turn of either run, paired by `(life, turn)`, in log order
        /// (run `a`'s, a turn only `b` has where `b` has it).
        pub turns: Vec<TurnComparison>,
        pub a: RunSide,
        pub b: RunSide,
    }
}

/// One run's view, indexed for the comparison.
struct Run<'v> {
    view: &'v SessionView,
    /// `(life, turn)` → its index in `view.turns` (the fold's own map type:
    /// no new map code in the .wasm).
    index: HashMap<(u32, u32), usize>,
    /// Each turn's transcript entries, by its index in `view.turns`.
    entries: Vec<TurnEntries<'v>>,
}

impl<'v> Run<'v> {
    #[inline]
    fn new(view: &'v SessionView) -> Self {
        let index: HashMap<(u32, u32), usize> =
            view.turns.iter().enumerate().map(|(i, t)| ((t.life, t.turn), i)).collect();
        let entries = calls::entries_by_turn(&view.transcript, &index, view.turns.len());
        Run { view, index, entries }
    }

    #[inline]
    fn has(&self, t: &TurnSummary) -> Option<usize> {
        self.index.get(&(t.life, t.turn)).copied()
    }

    /// Where this run stands at a turn it lacks: the first event of the
    /// turn it has next, else its last event.
    #[inline]
    fn anchor(&self, next: Option<&TurnSummary>) -> Position {
        next.map_or(Position(self.view.event_count), |t| t.first_position)
    }

    /// The turn an event at `position` was folded into: of the turns whose
    /// span holds it, the one that started last.
    #[inline]
    fn turn_at(&self, position: Position) -> Option<(u32, u32)> {
        let holding = self
            .view
            .turns
            .iter()
            .filter(|t| t.first_position <= position && position <= t.last_position);
        holding.max_by_key(|t| t.first_position).map(|t| (t.life, t.turn))
    }
}

/// Two turns paired by `(life, turn)`, or a turn one run lacks set against
/// where that run stands then.
struct TurnPair {
    a: Option<usize>,
    b: Option<usize>,
    /// The position a missing turn is set against, on each side.
    anchors: (Position, Position),
}

/// Pairs the turns of both runs by `(life, turn)` in log order: run `a`'s
/// order, a turn only run `b` has coming where `b` has it. Merging the two
/// orders keeps it linear, with no sort.
#[inline]
fn align_turns(a: &Run<'_>, b: &Run<'_>) -> Vec<TurnPair> {
    let (ta, tb) = (&a.view.turns, &b.view.turns);
    let mut paired_b = vec![false; tb.len()];
    let mut pairs = Vec::with_capacity(ta.len().max(tb.len()));
    let (mut i, mut j) = (0, 0);
    loop {
        while paired_b.get(j) == Some(&true) {
            j = j.saturating_add(1);
        }
        let (x, y) = (ta.get(i), tb.get(j));
        let anchors = (a.anchor(x), b.anchor(y));
        let (in_b, in_a) = (x.and_then(|t| b.has(t)), y.and_then(|t| a.has(t)));
        let only_a = match (x, y) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(x), Some(y)) => match (in_b, in_a) {
                (None, None) => (x.life, x.turn) <= (y.life, y.turn),
                (None, Some(_)) => true,
                (Some(_), None) => false,
                (Some(_), Some(_)) => {
                    if let Some(k) = in_b.and_then(|k| paired_b.get_mut(k)) {
                        *k = true;
                    }
                    pairs.push(TurnPair { a: Some(i), b: in_b, anchors });
                    i = i.saturating_add(1);
                    continue;
                }
            },
        };
        if only_a {
            pairs.push(TurnPair { a: Some(i), b: None, anchors });
            i = i.saturating_add(1);
        } else {
            pairs.push(TurnPair { a: None, b: Some(j), anchors });
            j = j.saturating_add(1);
        }
    }
    pairs
}

/// Compares two runs by their views (folded with every list: a time-travel
/// checkpoint's view has no turns or transcript to compare).
#[inline]
pub fn compare_runs(a: &SessionView, b: &SessionView) -> RunComparison {
    let (ra, rb) = (Run::new(a), Run::new(b));
    let pairs = align_turns(&ra, &rb);
    let mut turns: Vec<TurnComparison> = pairs.iter().map(|p| compare_turn(&ra, &rb, p)).collect();
    if let Some(status) = status_difference(&ra, &rb) {
        let at = (status.life, status.turn);
        if let Some(t) = turns.iter_mut().find(|t| (t.life, t.turn) == at) {
            t.differences.push(status);
        }
    }
    let difference_count = turns.iter().map(|t| t.differences.len() as u64).sum();
    let first = turns
        .iter()
        .find_map(|t| t.differences.iter().min_by_key(|d| (d.a.position, d.b.position)));
    RunComparison {
        matches: first.is_none(),
        first_divergence: first.cloned(),
        difference_count,
        turns,
        a: run_side(a),
        b: run_side(b),
    }
}

#[inline]
fn run_side(v: &SessionView) -> RunSide {
    RunSide {
        event_count: v.event_count,
        status: v.status.clone(),
        total_tokens: v.total_tokens,
        load_errors: v.load_errors.clone(),
    }
}

#[inline]
fn turn_side(t: &TurnSummary, calls: usize) -> TurnSide {
    TurnSide {
        first_position: t.first_position,
        last_position: t.last_position,
        event_count: t.event_count,
        tool_calls: u32::try_from(calls).unwrap_or(u32::MAX),
        tokens: t.tokens,
    }
}

/// What differs in one pair of turns: its calls (in order), messages,
/// status marks and tokens; a turn on one side only.
#[inline]
fn compare_turn(a: &Run<'_>, b: &Run<'_>, pair: &TurnPair) -> TurnComparison {
    let at_a = pair.a.and_then(|i| Some((a.view.turns.get(i)?, a.entries.get(i)?)));
    let at_b = pair.b.and_then(|i| Some((b.view.turns.get(i)?, b.entries.get(i)?)));
    let Some((t, _)) = at_a.or(at_b) else {
        return TurnComparison { life: 0, turn: 0, a: None, b: None, differences: Vec::new() };
    };
    let key = (t.life, t.turn);
    let mut out = TurnComparison {
        life: key.0,
        turn: key.1,
        a: at_a.map(|(t, e)| turn_side(t, e.calls.len())),
        b: at_b.map(|(t, e)| turn_side(t, e.calls.len())),
        differences: Vec::new(),
    };
    let at = Where { key, call: None };
    let (anchor_a, anchor_b) = pair.anchors;
    match (at_a, at_b) {
        (Some((ta, ea)), Some((tb, eb))) => {
            let ends = (ta.last_position, tb.last_position);
            compare_calls(&mut out.differences, key, (&ea.calls, &eb.calls), ends);
            let texts = [
                (DifferenceAspect::Message, &ea.messages, &eb.messages),
                (DifferenceAspect::Status, &ea.marks, &eb.marks),
            ];
            for (aspect, x, y) in texts {
                compare_texts(&mut out.differences, at, aspect, (x, y), ends);
            }
            if let Some(d) = compare_tokens(at, (ta, ea), (tb, eb)) {
                out.differences.push(d);
            }
        }
        (Some((t, _)), None) => out.differences.push(at.differ(
            DifferenceAspect::Turn,
            side(t.first_position, Some(turn_value(t))),
            side(anchor_b, None),
        )),
        (None, Some((t, _))) => out.differences.push(at.differ(
            DifferenceAspect::Turn,
            side(anchor_a, None),
            side(t.first_position, Some(turn_value(t))),
        )),
        (None, None) => {}
    }
    out
}

#[inline]
fn turn_value(t: &TurnSummary) -> String {
    format!("{} events", t.event_count)
}

#[inline]
fn side(position: Position, value: Option<String>) -> DifferenceSide {
    DifferenceSide { position, value }
}

/// The turn (and call) a difference is in.
#[derive(Clone, Copy)]
struct Where {
    key: (u32, u32),
    call: Option<u32>,
}

impl Where {
    #[inline]
    fn differ(self, aspect: DifferenceAspect, a: DifferenceSide, b: DifferenceSide) -> Difference {
        Difference { aspect, life: self.key.0, turn: self.key.1, call: self.call, a, b }
    }
}

/// The calls aligned (`calls::align_calls`), and what differs in each pair.
/// A call on one side only is set against the call the other side has
/// next in the turn (else the turn's end).
#[inline]
fn compare_calls(
    out: &mut Vec<Difference>,
    key: (u32, u32),
    (a, b): (&[CallRef<'_>], &[CallRef<'_>]),
    (end_a, end_b): (Position, Position),
) {
    let at_or = |list: &[CallRef<'_>], i: usize, end| list.get(i).map_or(end, |c| c.position);
    for (index, step) in align_calls(a, b).into_iter().enumerate() {
        let at = Where { key, call: Some(u32::try_from(index).unwrap_or(u32::MAX)) };
        let (x, y) = (a.get(step.a), b.get(step.b));
        match (step.pairing, x, y) {
            (Pairing::Both, Some(x), Some(y)) => compare_call(out, at, x, y),
            (Pairing::OnlyA, Some(x), _) => out.push(at.differ(
                DifferenceAspect::Call,
                side(x.position, Some(x.label().to_string())),
                side(at_or(b, step.b, end_b), None),
            )),
            (Pairing::OnlyB, _, Some(y)) => out.push(at.differ(
                DifferenceAspect::Call,
                side(at_or(a, step.a, end_a), None),
                side(y.position, Some(y.label().to_string())),
            )),
            _ => {}
        }
    }
}

/// What differs between two aligned calls: the tool, else its arguments,
/// result and error.
#[inline]
fn compare_call(out: &mut Vec<Difference>, at: Where, x: &CallRef<'_>, y: &CallRef<'_>) {
    if x.name != y.name {
        out.push(at.differ(
            DifferenceAspect::Call,
            side(x.position, Some(x.label().to_string())),
            side(y.position, Some(y.label().to_string())),
        ));
        return;
    }
    if x.arguments != y.arguments {
        out.push(at.differ(
            DifferenceAspect::Arguments,
            side(x.position, Some(x.arguments.to_string())),
            side(y.position, Some(y.arguments.to_string())),
        ));
    }
    let (ox, oy) = (x.output(), y.output());
    if ox != oy {
        out.push(at.differ(
            DifferenceAspect::Result,
            side(x.result_position(), ox.map(str::to_string)),
            side(y.result_position(), oy.map(str::to_string)),
        ));
    }
    let (ex, ey) = (x.error(), y.error());
    if ex != ey {
        out.push(at.differ(
            DifferenceAspect::Error,
            side(x.result_position(), ex),
            side(y.result_position(), ey),
        ));
    }
}

/// Texts of a turn (its messages, or its suspensions, resumptions and
/// rollbacks), pair by pair in order.
#[inline]
fn compare_texts(
    out: &mut Vec<Difference>,
    at: Where,
    aspect: DifferenceAspect,
    (a, b): (&[Placed], &[Placed]),
    (end_a, end_b): (Position, Position),
) {
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(i), b.get(i));
        if x.map(|m| &m.1) == y.map(|m| &m.1) {
            continue;
        }
        let of = |m: Option<&Placed>, end| match m {
            Some((p, text)) => side(*p, Some(text.clone())),
            None => side(end, None),
        };
        out.push(at.differ(aspect, of(x, end_a), of(y, end_b)));
    }
}

/// The turn's token counts, at its first assistant message (else its first
/// event).
#[inline]
fn compare_tokens(
    at: Where,
    (ta, ea): (&TurnSummary, &TurnEntries<'_>),
    (tb, eb): (&TurnSummary, &TurnEntries<'_>),
) -> Option<Difference> {
    let counts = |t: &TurnSummary| (t.tokens, t.input_tokens, t.output_tokens);
    if counts(ta) == counts(tb) {
        return None;
    }
    let value = |t: &TurnSummary| {
        format!("{} tokens ({} in, {} out)", t.tokens, t.input_tokens, t.output_tokens)
    };
    let position = |t: &TurnSummary, e: &TurnEntries<'_>| e.assistant.unwrap_or(t.first_position);
    Some(at.differ(
        DifferenceAspect::Tokens,
        side(position(ta, ea), Some(value(ta))),
        side(position(tb, eb), Some(value(tb))),
    ))
}

/// How each run ended (or stands), if that differs: in the turn that holds
/// run `a`'s status event (else `b`'s).
#[inline]
fn status_difference(a: &Run<'_>, b: &Run<'_>) -> Option<Difference> {
    let (sa, sb) = (status_of(a.view), status_of(b.view));
    if sa.1 == sb.1 {
        return None;
    }
    let key = a.turn_at(sa.0).or_else(|| b.turn_at(sb.0))?;
    let at = Where { key, call: None };
    Some(at.differ(DifferenceAspect::Status, side(sa.0, Some(sa.1)), side(sb.0, Some(sb.1))))
}

/// A run's status as text, and the event that set it (its last event while
/// it runs).
#[inline]
fn status_of(v: &SessionView) -> (Position, String) {
    let last = Position(v.event_count);
    match &v.status {
        Status::NotStarted => (last, "not started".to_string()),
        Status::Running => (last, "running".to_string()),
        Status::Suspended { position, reason, .. } => (*position, format!("suspended: {reason}")),
        Status::Terminal { position, reason, turns_used, .. } => {
            (*position, format!("terminal: {reason} after {turns_used} turns"))
        }
    }
}
