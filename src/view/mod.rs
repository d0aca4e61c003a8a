//! The session view: everything a person needs to understand a run, folded
//! incrementally from the events (run header, status, lives, turns,
//! transcript, processes, permissions, budgets, signals, capabilities,
//! milestones, entropy, checkpoints, memory, model calls, workflow, rounds,
//! counts, unknown kinds). Records that are an event as it happened keep
//! the event itself (`Entry`), as written (integers beyond 2^53-1 as
//! strings).

mod calls;
mod kind_counts;
pub(crate) mod raw;
mod restore;
mod totals;
mod transcript;

use std::collections::{BTreeMap, HashMap};

pub(crate) use raw::readable;

use crate::event::{AgentProcessChanged, PromptMeasured, SessionEvent, Str};
use crate::json::JsonText;
use crate::log::LogError;
use crate::shared_list::SharedList;
use crate::shared_map::SharedMap;
use crate::units::Position;
pub use kind_counts::KindCounts;
pub use restore::os_snapshot_of;
pub use totals::{RunTotals, ToolTally, MAX_MODELS, MAX_TOOLS};
pub use transcript::{ToolOutcome, TranscriptEntry};

readable! {
    /// An event at its 1-based position in the session.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Entry {
        pub position: Position,
        pub event: JsonText,
    }
}

readable! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct RunHeader {
        pub position: Position,
        pub run_id: String,
        pub goal: String,
        pub criteria: Vec<String>,
        pub agent_id: Option<String>,
        pub system_prompt: Option<String>,
        pub attachment_count: usize,
        /// The provider route the run was started with, as written
        /// (deepstrike 0.2.77 writes one; the kernel's schema has none).
        pub route: Option<JsonText>,
    }
}

readable! {
    /// Where the run stands now.
    #[derive(Debug, Clone, PartialEq)]
    pub enum Status as "state" {
        NotStarted = "not_started",
        Running = "running",
        Suspended = "suspended" {
            position: Position,
            turn: u32,
            reason: String,
            pending_calls: Vec<String>,
        },
        Terminal = "terminal" {
            position: Position,
            reason: String,
            turns_used: u32,
            total_tokens: u64,
        },
    }
}

readable! {
    /// A stretch of the log over which the runtime counts its turns up from
    /// one start: a run's start, or a wake after a crash (docs/api.md,
    /// "Lives"). Lives are numbered from 1.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Life {
        pub life: u32,
        pub first_position: Position,
        pub last_position: Position,
        /// The runtime turn the life starts from: the waking event's, else 0.
        pub first_turn: u32,
        /// The highest runtime turn of the life (`first_turn` until one comes).
        pub last_turn: u32,
    }
}

readable! {
    /// The events of one turn of one life.
    #[derive(Debug, Clone, PartialEq)]
    pub struct TurnSummary {
        pub life: u32,
        pub turn: u32,
        pub first_position: Position,
        pub last_position: Position,
        pub event_count: u64,
        pub kinds: KindCounts,
        pub tool_calls: Vec<String>,
        /// Completion and tool result token counts.
        pub tokens: u64,
        /// The prompt's measured size: each request's latest measurement.
        pub input_tokens: u64,
        /// Completion token counts.
        pub output_tokens: u64,
        pub errors: u64,
    }
}

readable! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct ProcessTransition {
        pub position: Position,
        pub turn: u32,
        pub state: String,
        pub result_termination: Option<String>,
    }
}

readable! {
    /// A sub-agent with its latest fields and every state it went through.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ProcessView {
        pub agent_id: String,
        /// `""` when the runtime names the parent by task instead (deepstrike 0.2.77).
        pub parent_session_id: String,
        /// The parent task, as deepstrike 0.2.77 writes it instead of a session.
        pub parent_task_id: Option<String>,
        pub role: String,
        pub isolation: String,
        pub context_inheritance: String,
        pub state: String,
        pub permitted_capability_ids: Vec<String>,
        pub result_termination: Option<String>,
        pub first_turn: u32,
        pub last_turn: u32,
        /// Shared between copies (`SharedList`): checkpoints clone it.
        pub history: SharedList<ProcessTransition>,
    }
}

readable! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct PermissionResolution {
        pub position: Position,
        pub approved: bool,
        pub responder: String,
    }
}

readable! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct PermissionRequest {
        pub position: Position,
        pub turn: u32,
        pub tool: String,
        pub arguments: String,
        pub reason: Option<String>,
        /// Filled by the next `permission_resolved`, oldest request first.
        pub resolution: Option<PermissionResolution>,
    }
}

readable! {
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct Permissions {
        pub requests: Vec<PermissionRequest>,
        pub gated: Vec<Entry>,
        pub denied: Vec<Entry>,
    }
}

readable! {
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct Budgets {
        pub usage: Vec<Entry>,
        pub exceeded: Vec<Entry>,
        /// Latest reported tokens per operation. Shared between copies
        /// (`SharedMap`): checkpoints clone it.
        pub tokens_by_operation: SharedMap<u64>,
    }
}

readable! {
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct Capabilities {
        /// The capability set now, in the order capabilities were first added.
        pub current: Vec<String>,
        pub history: Vec<Entry>,
    }
}

readable! {
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct Entropy {
        pub samples: Vec<Entry>,
        pub alerts: Vec<Entry>,
    }
}

readable! {
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct ContextView {
        pub compressions: Vec<Entry>,
        pub page_outs: Vec<Entry>,
        pub page_ins: Vec<Entry>,
        pub renewals: Vec<Entry>,
    }
}

readable! {
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct MemoryView {
        pub writes: Vec<Entry>,
        pub queries: Vec<Entry>,
        pub validation_failures: Vec<Entry>,
        pub retrievals: Vec<Entry>,
        pub write_failures: Vec<Entry>,
        pub query_failures: Vec<Entry>,
    }
}

readable! {
    /// The provider calls: attempts, prompt measurements, prepared contexts.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct ModelView {
        pub attempts: Vec<Entry>,
        pub prompts: Vec<Entry>,
        pub contexts: Vec<Entry>,
    }
}

readable! {
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct WorkflowView {
        pub batches: Vec<Entry>,
        pub submissions: Vec<Entry>,
        pub nodes: Vec<Entry>,
        pub completions: Vec<Entry>,
    }
}

readable! {
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct ErrorCounts {
        pub tool_errors: u64,
        pub fatal_tool_errors: u64,
        pub denied_tools: u64,
        pub unknown_events: u64,
        pub load_errors: u64,
    }
}

readable! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct UnknownView {
        pub position: Position,
        pub kind: String,
        pub json: String,
    }
}

readable! {
    /// The rich read view of a session. Its JSON shape is the `SessionView`
    /// type of the package's TypeScript declarations.
    #[derive(Debug, Clone, PartialEq)]
    pub struct SessionView {
        pub session_id: Option<String>,
        pub event_count: u64,
        /// The largest turn seen (0 before any).
        pub revision: u64,
        pub run: Option<RunHeader>,
        pub status: Status,
        pub turns_used: u32,
        /// `run_terminal`'s total, or until then the sum of reported token counts.
        pub total_tokens: u64,
        pub lives: Vec<Life>,
        pub turns: Vec<TurnSummary>,
        pub transcript: Vec<TranscriptEntry>,
        pub processes: Vec<ProcessView>,
        /// Every `agent_process_changed`, as written.
        pub process_changes: Vec<Entry>,
        pub permissions: Permissions,
        pub budgets: Budgets,
        /// Every `suspended` and `resumed`, as written.
        pub suspensions: Vec<Entry>,
        pub signals: Vec<Entry>,
        pub cancellations: Vec<Entry>,
        pub capabilities: Capabilities,
        pub milestones: Vec<Entry>,
        pub entropy: Entropy,
        pub checkpoints: Vec<Entry>,
        pub rollbacks: Vec<Entry>,
        pub context: ContextView,
        pub memory: MemoryView,
        pub argument_repairs: Vec<Entry>,
        pub model: ModelView,
        pub kernel_observations: Vec<Entry>,
        pub workflow: WorkflowView,
        /// Every `round_started` and `round_paced`.
        pub rounds: Vec<Entry>,
        /// Every `group_member_joined` and `group_budget_charged`.
        pub groups: Vec<Entry>,
        pub summary_upgrades: Vec<Entry>,
        /// Every `semantic_archive_pending`, `_completed` and `_failed`.
        pub semantic_archive: Vec<Entry>,
        pub counts: KindCounts,
        pub errors: ErrorCounts,
        pub totals: RunTotals,
        pub unknown: Vec<UnknownView>,
        pub load_errors: Vec<LogError>,
    }
}

/// Folds events into a `SessionView` one at a time.
#[derive(Debug, Clone)]
pub struct SessionViewFolder {
    view: SessionView,
    /// (life, turn) → its summary in `view.turns`.
    turn_index: HashMap<(u32, u32), usize>,
    process_index: HashMap<String, usize>,
    transcript: transcript::TranscriptFolder,
    current_turn: u32,
    reported_tokens: u64,
    /// The current life has seen a `run_started`.
    life_has_run: bool,
    /// The last prompt measurement: its turn summary, request, tokens.
    measured: Option<(usize, String, u64)>,
    totals: totals::TotalsFolder,
    /// What is kept besides the summary.
    detail: Detail,
}

/// How much of the view a folder keeps besides the summary (the state at
/// this point: status, lives, processes, counts, errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Every per-event list: the transcript, the turns, the entries.
    Full,
    /// The per-turn summaries, no per-event list: what a paged index
    /// (`crate::index`) keeps, its events being in the log it retains.
    Turns,
    /// The summary alone: a time-travel checkpoint.
    Summary,
}

crate::json::writable! {
    /// The part of the view that describes the state at one point, without
    /// the per-event lists: what a time-travel checkpoint keeps and shows.
    #[derive(Debug)]
    pub struct SessionSummary<'a> {
        pub session_id: &'a Option<String>,
        pub event_count: u64,
        pub revision: u64,
        pub run: &'a Option<RunHeader>,
        pub status: &'a Status,
        pub turns_used: u32,
        pub total_tokens: u64,
        pub lives: &'a [Life],
        pub processes: &'a [ProcessView],
        pub current_capabilities: &'a [String],
        pub tokens_by_operation: &'a SharedMap<u64>,
        pub counts: &'a KindCounts,
        pub errors: &'a ErrorCounts,
        pub totals: &'a RunTotals,
    }
}

/// Counts `key`, allocating its string only the first time.
pub(crate) fn bump(map: &mut BTreeMap<String, u64>, key: &str) {
    match map.get_mut(key) {
        Some(n) => *n = count_up(*n, 1),
        None => {
            map.insert(key.to_string(), 1);
        }
    }
}

fn owned(v: &[Str<'_>]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn opt(v: &Option<Str<'_>>) -> Option<String> {
    v.as_ref().map(|s| s.to_string())
}

impl SessionViewFolder {
    pub fn new(session_id: Option<String>) -> Self {
        SessionViewFolder {
            view: SessionView {
                session_id,
                event_count: 0,
                revision: 0,
                run: None,
                status: Status::NotStarted,
                turns_used: 0,
                total_tokens: 0,
                lives: Vec::new(),
                turns: Vec::new(),
                transcript: Vec::new(),
                processes: Vec::new(),
                process_changes: Vec::new(),
                permissions: Permissions::default(),
                budgets: Budgets::default(),
                suspensions: Vec::new(),
                signals: Vec::new(),
                cancellations: Vec::new(),
                capabilities: Capabilities::default(),
                milestones: Vec::new(),
                entropy: Entropy::default(),
                checkpoints: Vec::new(),
                rollbacks: Vec::new(),
                context: ContextView::default(),
                memory: MemoryView::default(),
                argument_repairs: Vec::new(),
                model: ModelView::default(),
                kernel_observations: Vec::new(),
                workflow: WorkflowView::default(),
                rounds: Vec::new(),
                groups: Vec::new(),
                summary_upgrades: Vec::new(),
                semantic_archive: Vec::new(),
                counts: KindCounts::default(),
                errors: ErrorCounts::default(),
                totals: RunTotals::default(),
                unknown: Vec::new(),
                load_errors: Vec::new(),
            },
            turn_index: HashMap::new(),
            process_index: HashMap::new(),
            transcript: transcript::TranscriptFolder::default(),
            current_turn: 0,
            reported_tokens: 0,
            life_has_run: false,
            measured: None,
            totals: totals::TotalsFolder::default(),
            detail: Detail::Full,
        }
    }

    /// A folder that keeps `detail` besides the summary.
    pub fn with_detail(session_id: Option<String>, detail: Detail) -> Self {
        SessionViewFolder { detail, ..SessionViewFolder::new(session_id) }
    }

    pub fn view(&self) -> &SessionView {
        &self.view
    }

    /// The view, the folder done with.
    pub fn into_view(self) -> SessionView {
        self.view
    }

    pub fn summary(&self) -> SessionSummary<'_> {
        let v = &self.view;
        SessionSummary {
            session_id: &v.session_id,
            event_count: v.event_count,
            revision: v.revision,
            run: &v.run,
            status: &v.status,
            turns_used: v.turns_used,
            total_tokens: v.total_tokens,
            lives: &v.lives,
            processes: &v.processes,
            current_capabilities: &v.capabilities.current,
            tokens_by_operation: &v.budgets.tokens_by_operation,
            counts: &v.counts,
            errors: &v.errors,
            totals: &v.totals,
        }
    }

    /// A copy that keeps folding the summary but no per-event lists: cheap
    /// to hold many of (time-travel checkpoints).
    pub fn light(&self) -> SessionViewFolder {
        let v = &self.view;
        let mut light = SessionViewFolder::new(v.session_id.clone());
        let l = &mut light.view;
        l.event_count = v.event_count;
        l.revision = v.revision;
        l.run.clone_from(&v.run);
        l.status.clone_from(&v.status);
        l.turns_used = v.turns_used;
        l.total_tokens = v.total_tokens;
        l.lives.clone_from(&v.lives);
        l.processes.clone_from(&v.processes);
        l.capabilities.current.clone_from(&v.capabilities.current);
        l.budgets.tokens_by_operation.clone_from(&v.budgets.tokens_by_operation);
        l.counts.clone_from(&v.counts);
        l.errors = v.errors.clone();
        l.totals.clone_from(&v.totals);
        light.totals.clone_from(&self.totals);
        light.process_index.clone_from(&self.process_index);
        light.current_turn = self.current_turn;
        light.reported_tokens = self.reported_tokens;
        light.life_has_run = self.life_has_run;
        light.detail = Detail::Summary;
        light
    }

    /// Cuts each process's history to its last `n` transitions; returns
    /// each agent and how many it had.
    pub fn keep_last_history(&mut self, n: usize) -> Vec<(String, usize)> {
        let processes = self.view.processes.iter_mut();
        processes
            .map(|p| {
                let had = p.history.len();
                p.history.keep_last(n);
                (p.agent_id.clone(), had)
            })
            .collect()
    }

    /// Records load errors beside the events (tolerant loading).
    pub fn add_load_errors(&mut self, errors: &[LogError]) {
        self.view.errors.load_errors = count_up(self.view.errors.load_errors, errors.len() as u64);
        if self.detail == Detail::Full {
            self.view.load_errors.extend_from_slice(errors);
        }
    }

    /// Folds one event; `text` is its JSON as written (kept by the entries).
    pub fn apply(&mut self, event: &SessionEvent<'_>, text: &str) {
        let position = self.advance(event);
        let v = &mut self.view;
        fold_run(v, event, text, position);
        let tally = fold_tool_results(&mut v.errors, event);
        let full = self.detail == Detail::Full;
        fold_permissions(v, event, position, full);
        fold_capabilities(&mut v.capabilities.current, event);
        if let E::BudgetUsageReported(e) = event {
            v.budgets.tokens_by_operation.insert(&e.operation_id, e.tokens);
        }
        if let E::AgentProcessChanged(e) = event {
            fold_process(&mut v.processes, &mut self.process_index, e, position);
        }
        if let E::Unknown(_) = event {
            v.errors.unknown_events = count_up(v.errors.unknown_events, 1);
        }
        self.fold_totals(tally.tokens);
        let (life, turn) = (self.life(), self.current_turn);
        self.totals.apply(&mut self.view.totals, event, text, (life, turn));
        if full {
            self.keep(event, text, position);
            self.transcript.apply(&mut self.view.transcript, event, position, life);
        }
        if self.detail != Detail::Summary {
            self.track_turn((life, turn), position, event, tally);
        }
    }

    /// Counts the event and moves the life, the turn and the status on;
    /// its position.
    fn advance(&mut self, event: &SessionEvent<'_>) -> Position {
        let position = Position(self.view.event_count).next();
        self.fold_life(event, position);
        let v = &mut self.view;
        v.event_count = position.0;
        v.counts.add(event);
        if let Some(turn) = event.turn() {
            self.current_turn = turn;
            v.revision = v.revision.max(u64::from(turn));
        }
        if matches!(v.status, Status::NotStarted) {
            v.status = Status::Running;
        }
        position
    }

    /// The current life's number (0 before any event).
    fn life(&self) -> u32 {
        self.view.lives.last().map_or(0, |l| l.life)
    }

    /// Starts a new life where the runtime's turn count starts again (at a
    /// run's start, or at a runtime turn below the life's: a wake), and
    /// extends the current one.
    fn fold_life(&mut self, event: &SessionEvent<'_>, position: Position) {
        let turn = runtime_turn(event);
        let lives = &mut self.view.lives;
        let restart = match (event, lives.last()) {
            (_, None) => true,
            (E::RunStarted(_) | E::RoundStarted(_), Some(_)) => self.life_has_run,
            (_, Some(life)) => turn.is_some_and(|t| t < life.last_turn),
        };
        if restart {
            let first_turn = turn.unwrap_or(0);
            #[allow(
                clippy::arithmetic_side_effects,
                reason = "a life starts at an event: there are fewer than 2^32 of them in memory"
            )]
            let number = lives.len() as u32 + 1;
            lives.push(Life {
                life: number,
                first_position: position,
                last_position: position,
                first_turn,
                last_turn: first_turn,
            });
            self.current_turn = first_turn;
            self.life_has_run = false;
        }
        if let Some(life) = lives.last_mut() {
            life.last_position = position;
            life.last_turn = turn.map_or(life.last_turn, |t| t.max(life.last_turn));
        }
        self.life_has_run |= matches!(event, E::RunStarted(_));
    }

    /// The token total: reported counts until `run_terminal` gives its own.
    fn fold_totals(&mut self, tokens: u64) {
        // Token counts are input: a sum past u64::MAX saturates.
        self.reported_tokens = self.reported_tokens.saturating_add(tokens);
        self.view.total_tokens = match &self.view.status {
            Status::Terminal { total_tokens, .. } => *total_tokens,
            _ => self.reported_tokens,
        };
    }

    /// Records the event in the per-event list of its kind, if it has one.
    fn keep(&mut self, event: &SessionEvent<'_>, text: &str, position: Position) {
        let v = &mut self.view;
        if let E::Unknown(u) = event {
            let json = u.json.to_string();
            v.unknown.push(UnknownView { position, kind: u.kind.to_string(), json });
        }
        if let Some(list) = list_of(v, event) {
            list.push(Entry { position, event: JsonText::from_raw_str(text) });
        }
    }

    fn track_turn(
        &mut self,
        (life, turn): (u32, u32),
        position: Position,
        event: &SessionEvent<'_>,
        tally: Tally,
    ) {
        let turns = &mut self.view.turns;
        // Most events belong to the latest turn: found without hashing.
        let latest = turns.last().filter(|t| (t.life, t.turn) == (life, turn));
        let index = match latest {
            Some(_) => turns.len().saturating_sub(1),
            None => *self.turn_index.entry((life, turn)).or_insert_with(|| {
                let index = turns.len();
                turns.push(TurnSummary {
                    life,
                    turn,
                    first_position: position,
                    last_position: position,
                    event_count: 0,
                    kinds: KindCounts::default(),
                    tool_calls: Vec::new(),
                    tokens: 0,
                    input_tokens: 0,
                    output_tokens: 0,
                    errors: 0,
                });
                index
            }),
        };
        let Some(t) = turns.get_mut(index) else { return };
        t.last_position = position;
        t.event_count = count_up(t.event_count, 1);
        t.kinds.add(event);
        if let E::ToolRequested(e) = event {
            t.tool_calls.extend(e.calls.iter().map(|c| c.name.as_str().to_owned()));
        }
        // Token counts are input: a sum past u64::MAX saturates.
        t.tokens = t.tokens.saturating_add(tally.tokens);
        t.output_tokens = t.output_tokens.saturating_add(tally.output_tokens);
        t.errors = count_up(t.errors, tally.errors);
        if let E::PromptMeasured(e) = event {
            self.measure(index, e);
        }
    }

    /// Adds a prompt measurement to its turn's input tokens: one of the
    /// same request as the last measurement, in the same turn, replaces it
    /// (the provider's count replaces the estimate made before the call).
    fn measure(&mut self, index: usize, e: &PromptMeasured<'_>) {
        let m = &e.measurement;
        let replaced = match &self.measured {
            Some((i, request, tokens))
                if *i == index && request == m.request_fingerprint.as_str() =>
            {
                *tokens
            }
            _ => 0,
        };
        if let Some(t) = self.view.turns.get_mut(index) {
            #[allow(
                clippy::arithmetic_side_effects,
                reason = "`replaced` was added to this turn's input tokens by the last measurement"
            )]
            let without = t.input_tokens - replaced;
            // Token counts are input: a sum past u64::MAX saturates.
            t.input_tokens = without.saturating_add(m.input_tokens);
        }
        // The request is copied into the last one's buffer: no allocation
        // per measurement.
        let request = m.request_fingerprint.as_str();
        match &mut self.measured {
            Some((i, kept, tokens)) => {
                *i = index;
                kept.clear();
                kept.push_str(request);
                *tokens = m.input_tokens;
            }
            None => self.measured = Some((index, request.to_owned(), m.input_tokens)),
        }
    }
}

/// The turn of an event the runtime stamps with its own turn count
/// (`runtime.turn()`). Kernel observations carry the kernel's turn, which
/// can lag the runtime's by several (corpus `milestones`), so they do not
/// decide where a life starts.
fn runtime_turn(event: &SessionEvent<'_>) -> Option<u32> {
    match event {
        E::LlmCompleted(_)
        | E::PromptMeasured(_)
        | E::ContextPrepared(_)
        | E::ToolRequested(_)
        | E::ToolCompleted(_)
        | E::ToolArgumentRepaired(_)
        | E::ToolDenied(_)
        | E::PermissionRequested(_)
        | E::PermissionResolved(_)
        | E::WorkflowNodesSubmitted(_)
        | E::WorkflowNodeCompleted(_) => event.turn(),
        _ => None,
    }
}

use SessionEvent as E;

/// What an event adds to its turn's tokens and errors.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    tokens: u64,
    output_tokens: u64,
    errors: u64,
}

/// A count of things seen in events, `by` more.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "what is counted (events, results, denials) is folded one at a time, a few per \
              event: no count can reach 2^64"
)]
fn count_up(n: u64, by: u64) -> u64 {
    n + by
}

/// The run header and the status: started, suspended, resumed, ended.
fn fold_run(v: &mut SessionView, event: &SessionEvent<'_>, text: &str, position: Position) {
    match event {
        E::RunStarted(e) => {
            v.run = Some(RunHeader {
                position,
                run_id: e.run_id.to_string(),
                goal: e.goal.to_string(),
                criteria: owned(&e.criteria),
                agent_id: opt(&e.agent_id),
                system_prompt: opt(&e.system_prompt),
                attachment_count: e.attachments.len(),
                route: route_of(text),
            });
        }
        E::RunTerminal(e) => {
            v.turns_used = e.turns_used;
            v.status = Status::Terminal {
                position,
                reason: e.reason.to_string(),
                turns_used: e.turns_used,
                total_tokens: e.total_tokens,
            };
        }
        E::Suspended(e) => {
            v.status = Status::Suspended {
                position,
                turn: e.turn,
                reason: e.reason.to_string(),
                pending_calls: owned(&e.pending_calls),
            };
        }
        E::Resumed(_) if matches!(v.status, Status::Suspended { .. }) => v.status = Status::Running,
        _ => {}
    }
}

/// Tokens and errors of an assistant message or of tool results; the
/// session's tool error counts.
fn fold_tool_results(errors: &mut ErrorCounts, event: &SessionEvent<'_>) -> Tally {
    let mut tally = Tally::default();
    match event {
        E::LlmCompleted(e) => {
            tally.tokens = u64::from(e.message.token_count.unwrap_or(0));
            tally.output_tokens = tally.tokens;
        }
        E::ToolCompleted(e) => {
            for r in &e.results {
                // Token counts are input: a sum past u64::MAX saturates.
                tally.tokens = tally.tokens.saturating_add(u64::from(r.token_count.unwrap_or(0)));
                if r.is_error {
                    tally.errors = count_up(tally.errors, 1);
                    errors.tool_errors = count_up(errors.tool_errors, 1);
                }
                if r.is_fatal {
                    errors.fatal_tool_errors = count_up(errors.fatal_tool_errors, 1);
                }
            }
        }
        E::ToolDenied(_) => errors.denied_tools = count_up(errors.denied_tools, 1),
        _ => {}
    }
    tally
}

/// Permission requests, each paired with the next resolution.
fn fold_permissions(
    v: &mut SessionView,
    event: &SessionEvent<'_>,
    position: Position,
    lists: bool,
) {
    match event {
        E::PermissionRequested(e) if lists => v.permissions.requests.push(PermissionRequest {
            position,
            turn: e.turn,
            tool: e.tool.to_string(),
            arguments: e.arguments.to_string(),
            reason: opt(&e.reason),
            resolution: None,
        }),
        E::PermissionResolved(e) => {
            if let Some(req) = v.permissions.requests.iter_mut().find(|r| r.resolution.is_none()) {
                req.resolution = Some(PermissionResolution {
                    position,
                    approved: e.approved,
                    responder: e.responder.as_str().to_string(),
                });
            }
        }
        _ => {}
    }
}

/// The current capability set: changes, and what milestones unlock.
fn fold_capabilities(current: &mut Vec<String>, event: &SessionEvent<'_>) {
    let add = |current: &mut Vec<String>, cap: &Str<'_>| {
        if !current.iter().any(|c| c == cap.as_str()) {
            current.push(cap.to_string());
        }
    };
    match event {
        E::CapabilityChanged(e) => {
            current.retain(|c| !e.removed.iter().any(|r| r.as_str() == c));
            e.added.iter().for_each(|cap| add(current, cap));
        }
        E::MilestoneAdvanced(e) => e.capabilities_unlocked.iter().for_each(|cap| add(current, cap)),
        _ => {}
    }
}

/// A sub-agent's latest fields, and the state it went to in its history.
fn fold_process(
    processes: &mut Vec<ProcessView>,
    index: &mut HashMap<String, usize>,
    e: &AgentProcessChanged<'_>,
    position: Position,
) {
    let transition = ProcessTransition {
        position,
        turn: e.turn,
        state: e.state.to_string(),
        result_termination: opt(&e.result_termination),
    };
    let latest = ProcessView {
        agent_id: e.agent_id.to_string(),
        parent_session_id: e.parent_session_id.as_deref().unwrap_or("").to_string(),
        parent_task_id: opt(&e.parent_task_id),
        role: e.role.to_string(),
        isolation: e.isolation.to_string(),
        context_inheritance: e.context_inheritance.to_string(),
        state: e.state.to_string(),
        permitted_capability_ids: owned(&e.permitted_capability_ids),
        result_termination: opt(&e.result_termination),
        first_turn: e.turn,
        last_turn: e.turn,
        history: SharedList::default(),
    };
    let slot = match index.get(e.agent_id.as_str()) {
        Some(&i) => processes.get_mut(i),
        None => {
            index.insert(latest.agent_id.clone(), processes.len());
            processes.push(latest.clone());
            processes.last_mut()
        }
    };
    if let Some(p) = slot {
        let (first_turn, mut history) = (p.first_turn, std::mem::take(&mut p.history));
        history.push(transition);
        *p = ProcessView { first_turn, history, ..latest };
    }
}

/// The per-event list that keeps events of this kind as written.
fn list_of<'v>(v: &'v mut SessionView, event: &SessionEvent<'_>) -> Option<&'v mut Vec<Entry>> {
    Some(match event {
        E::ToolArgumentRepaired(_) => &mut v.argument_repairs,
        E::ToolDenied(_) => &mut v.permissions.denied,
        E::ToolGated(_) => &mut v.permissions.gated,
        E::Suspended(_) | E::Resumed(_) => &mut v.suspensions,
        E::AgentProcessChanged(_) => &mut v.process_changes,
        E::CapabilityChanged(_) => &mut v.capabilities.history,
        E::MilestoneAdvanced(_) | E::MilestoneBlocked(_) => &mut v.milestones,
        E::ContextRenewed(_) => &mut v.context.renewals,
        E::Compressed(_) => &mut v.context.compressions,
        E::PageOut(_) => &mut v.context.page_outs,
        E::PageIn(_) => &mut v.context.page_ins,
        E::SignalDeliveryDisposed(_) => &mut v.signals,
        E::BudgetExceeded(_) => &mut v.budgets.exceeded,
        E::BudgetUsageReported(_) => &mut v.budgets.usage,
        E::OperationCancelled(_) => &mut v.cancellations,
        E::CheckpointTaken(_) => &mut v.checkpoints,
        E::EntropySample(_) => &mut v.entropy.samples,
        E::EntropyAlert(_) => &mut v.entropy.alerts,
        E::Rollbacked(_) => &mut v.rollbacks,
        E::MemoryWritten(_) => &mut v.memory.writes,
        E::MemoryQueried(_) => &mut v.memory.queries,
        E::MemoryValidationFailed(_) => &mut v.memory.validation_failures,
        E::MemoryRetrievalResult(_) => &mut v.memory.retrievals,
        E::MemoryWriteFailed(_) => &mut v.memory.write_failures,
        E::MemoryQueryFailed(_) => &mut v.memory.query_failures,
        E::ProviderAttempt(_) => &mut v.model.attempts,
        E::PromptMeasured(_) => &mut v.model.prompts,
        E::ContextPrepared(_) => &mut v.model.contexts,
        E::KernelObservation(_) => &mut v.kernel_observations,
        E::WorkflowBatchSpawned(_) => &mut v.workflow.batches,
        E::WorkflowNodesSubmitted(_) => &mut v.workflow.submissions,
        E::WorkflowNodeCompleted(_) => &mut v.workflow.nodes,
        E::WorkflowCompleted(_) => &mut v.workflow.completions,
        E::RoundStarted(_) | E::RoundPaced(_) => &mut v.rounds,
        E::GroupMemberJoined(_) | E::GroupBudgetCharged(_) => &mut v.groups,
        E::SummaryUpgraded(_) => &mut v.summary_upgrades,
        E::SemanticArchivePending(_)
        | E::SemanticArchiveCompleted(_)
        | E::SemanticArchiveFailed(_) => &mut v.semantic_archive,
        _ => return None,
    })
}

/// An event's `route` member as written, if it has one that is not null.
fn route_of(text: &str) -> Option<JsonText> {
    let members = raw::items(text, b'{')?;
    let route = members.iter().rev().find(|m| m.key == "\"route\"")?.value;
    (route != "null").then(|| JsonText::from_raw_str(route))
}

/// Every per-event list of the view (`list_of` says which kinds go where).
fn entry_lists(v: &SessionView) -> [&Vec<Entry>; 37] {
    [
        &v.argument_repairs,
        &v.permissions.denied,
        &v.permissions.gated,
        &v.suspensions,
        &v.process_changes,
        &v.capabilities.history,
        &v.milestones,
        &v.context.renewals,
        &v.context.compressions,
        &v.context.page_outs,
        &v.context.page_ins,
        &v.signals,
        &v.budgets.exceeded,
        &v.budgets.usage,
        &v.cancellations,
        &v.checkpoints,
        &v.entropy.samples,
        &v.entropy.alerts,
        &v.rollbacks,
        &v.memory.writes,
        &v.memory.queries,
        &v.memory.validation_failures,
        &v.memory.retrievals,
        &v.memory.write_failures,
        &v.memory.query_failures,
        &v.model.attempts,
        &v.model.prompts,
        &v.model.contexts,
        &v.kernel_observations,
        &v.workflow.batches,
        &v.workflow.submissions,
        &v.workflow.nodes,
        &v.workflow.completions,
        &v.rounds,
        &v.groups,
        &v.summary_upgrades,
        &v.semantic_archive,
    ]
}
