//! The provider attempts (`provider_attempt`, deepstrike 0.2.77) read
//! back from the view's entries: the only events with real clock times,
//! and the route, status and token usage of each model call.

use serde::Deserialize;

use crate::view::Entry;

/// One provider attempt, as far as the export needs it.
#[derive(Debug)]
pub struct Attempt {
    pub position: u64,
    pub seq: Option<u64>,
    pub status: Option<String>,
    pub error_class: Option<String>,
    /// Start and finish in Unix nanoseconds, when the log has both in order.
    pub times: Option<(u64, u64)>,
    /// Input and output tokens, when the usage has both.
    pub usage: Option<(u64, u64)>,
    pub provider: Option<String>,
    pub model: Option<String>,
}

impl Attempt {
    pub fn succeeded(&self) -> bool {
        self.status.as_deref() == Some("success")
    }
}

#[derive(Deserialize)]
struct AttemptWire {
    attempt_seq: Option<u64>,
    status: Option<String>,
    last_error_class: Option<String>,
    started_at_ms: Option<u64>,
    finished_at_ms: Option<u64>,
    usage: Option<UsageWire>,
    route: Option<RouteWire>,
}

#[derive(Deserialize)]
struct UsageWire {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct RouteWire {
    provider: Option<String>,
    model: Option<String>,
}

/// Milliseconds to nanoseconds, `None` past what a u64 holds.
fn nanos(ms: u64) -> Option<u64> {
    ms.checked_mul(1_000_000)
}

/// The attempt an entry records. A field of an unexpected type leaves
/// what it would have given unknown rather than failing the export.
pub fn read(entry: &Entry) -> Attempt {
    let wire: Option<AttemptWire> = serde_json::from_str(entry.event.get()).ok();
    let position = entry.position.0;
    let Some(w) = wire else {
        let (seq, status, error_class, times, usage, provider, model) = Default::default();
        return Attempt { position, seq, status, error_class, times, usage, provider, model };
    };
    let times = match (w.started_at_ms.and_then(nanos), w.finished_at_ms.and_then(nanos)) {
        (Some(start), Some(end)) if start <= end => Some((start, end)),
        _ => None,
    };
    let usage = w.usage.and_then(|u| Some((u.input_tokens?, u.output_tokens?)));
    let (provider, model) = w.route.map_or((None, None), |r| (r.provider, r.model));
    Attempt {
        position,
        seq: w.attempt_seq,
        status: w.status,
        error_class: w.last_error_class,
        times,
        usage,
        provider,
        model,
    }
}
