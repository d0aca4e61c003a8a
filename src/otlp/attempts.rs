//! The provider attempts (`provider_attempt`, deepstrike 0.2.77) read
//! back from the view's entries: the only events with real clock times,
//! and the route, status and token usage of each model call. Read with
//! the view's own JSON walker (`view::raw`), which costs the .wasm far
//! less than a derived `Deserialize`.
//!
//! (`#[inline]` throughout: see the parent module's doc.)

use crate::view::raw::{At, Obj, Problem};
use crate::view::Entry;

/// One provider attempt, as far as the export needs it.
#[derive(Debug, Default)]
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
    #[inline]
    pub fn succeeded(&self) -> bool {
        self.status.as_deref() == Some("success")
    }
}

/// Milliseconds to nanoseconds, `None` past what a u64 holds.
#[inline]
fn nanos(ms: u64) -> Option<u64> {
    ms.checked_mul(1_000_000)
}

/// Two unsigned fields of an object, if it is one and has both.
#[inline]
fn pair(text: &str, what: &'static str, keys: [&'static str; 2]) -> Option<(u64, u64)> {
    let problem = Problem::default();
    let obj = Obj::parse(text, what, &At { problem: &problem, what, key: "" });
    let (a, b): (Option<u64>, Option<u64>) = (obj.field(keys[0]), obj.field(keys[1]));
    problem.get().is_none().then_some(())?;
    Some((a?, b?))
}

/// A string field of an object; anything else reads as `None`.
#[inline]
fn text_field(obj: &Obj<'_>, key: &'static str) -> Option<String> {
    crate::view::raw::string(obj.raw(key))
}

/// The attempt an entry records. A field of an unexpected type leaves
/// what it would have given unknown rather than failing the export.
#[inline]
pub fn read(entry: &Entry) -> Attempt {
    let text = entry.event.get();
    let problem = Problem::default();
    let at = At { problem: &problem, what: "provider_attempt", key: "" };
    let obj = Obj::parse(text, "provider_attempt", &at);
    let times = pair(text, "provider_attempt", ["started_at_ms", "finished_at_ms"])
        .and_then(|(start, end)| Some((nanos(start)?, nanos(end)?)))
        .filter(|(start, end)| start <= end);
    let usage = pair(obj.raw("usage"), "usage", ["input_tokens", "output_tokens"]);
    let (provider, model) = route_names(obj.raw("route"));
    Attempt {
        position: entry.position.0,
        seq: crate::view::raw::unsigned(obj.raw("attempt_seq")),
        status: text_field(&obj, "status"),
        error_class: text_field(&obj, "last_error_class"),
        times,
        usage,
        provider,
        model,
    }
}

/// The provider and model a route record names (a `provider_attempt`'s
/// or `run_started`'s `route`).
#[inline]
pub fn route_names(route: &str) -> (Option<String>, Option<String>) {
    let problem = Problem::default();
    let obj = Obj::parse(route, "route", &At { problem: &problem, what: "route", key: "" });
    (text_field(&obj, "provider"), text_field(&obj, "model"))
}
