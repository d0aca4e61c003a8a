//! Message content as the GenAI conventions' opt-in attributes hold it:
//! `gen_ai.input.messages` and `gen_ai.output.messages` are JSON arrays of
//! messages (`{role, parts}`; an output message also `finish_reason`, which
//! the conventions' schema requires and backends such as Phoenix drop a
//! message without), `gen_ai.system_instructions` an array of parts.
//!
//! (`#[inline]` throughout: see the parent module's doc.)

use crate::json::{JsonOut, JsonText};
use crate::view::TranscriptEntry;

/// Appends a text part to `parts` (JSON objects, comma-separated).
#[inline]
pub fn text_part(parts: &mut JsonOut, content: &str) {
    if !parts.is_empty() {
        parts.raw(",");
    }
    parts.raw("{\"type\":\"text\",\"content\":");
    parts.string(content);
    parts.raw("}");
}

/// Appends one message of `role` with `parts` to `list` (messages,
/// comma-separated), with its `finish_reason` when it is an output.
#[inline]
fn push_message(list: &mut JsonOut, role: &str, parts: &JsonOut, finish_reason: Option<&str>) {
    list.raw(if list.is_empty() { "{\"role\":" } else { ",{\"role\":" });
    list.string(role);
    list.raw(",\"parts\":[");
    list.append(parts);
    list.raw("]");
    if let Some(reason) = finish_reason {
        list.raw(",\"finish_reason\":");
        list.string(reason);
    }
    list.raw("}");
}

/// `list` (comma-separated items) as a JSON array's text.
#[inline]
fn array(list: &JsonOut) -> String {
    let mut out = JsonOut::default();
    out.raw("[");
    out.append(list);
    out.raw("]");
    out.finish().unwrap_or_default()
}

/// The goal as the input messages of the run: one user message.
#[inline]
pub fn goal(text: &str) -> String {
    let mut parts = JsonOut::default();
    text_part(&mut parts, text);
    let mut list = JsonOut::default();
    push_message(&mut list, "user", &parts, None);
    array(&list)
}

/// The system prompt as `gen_ai.system_instructions`: one text part.
#[inline]
pub fn system_instructions(text: &str) -> String {
    let mut parts = JsonOut::default();
    text_part(&mut parts, text);
    array(&parts)
}

/// Why a reply ended, in the conventions' terms: it asked for tools
/// (`tool_call`), its call failed (`error`), else `stop`. (The log does
/// not record the provider's own reason.)
#[inline]
pub fn finish_reason(asked_for_tools: bool, failed: bool) -> &'static str {
    match (asked_for_tools, failed) {
        (true, _) => "tool_call",
        (false, true) => "error",
        (false, false) => "stop",
    }
}

/// A tool call the model asked for, as an output part needs it.
pub struct Requested<'a> {
    pub id: &'a str,
    pub name: Option<&'a str>,
    pub arguments: &'a JsonText,
}

/// A reply as `gen_ai.output.messages`: one assistant message with its
/// text and its tool calls.
#[inline]
pub fn output(text: &str, requested: &[Requested<'_>], finish_reason: &str) -> String {
    let mut parts = JsonOut::default();
    if !text.is_empty() {
        text_part(&mut parts, text);
    }
    for call in requested {
        if !parts.is_empty() {
            parts.raw(",");
        }
        parts.raw("{\"type\":\"tool_call\",\"id\":");
        parts.string(call.id);
        parts.raw(",\"name\":");
        parts.string(call.name.unwrap_or(""));
        parts.raw(",\"arguments\":");
        parts.raw(call.arguments.get());
        parts.raw("}");
    }
    let mut list = JsonOut::default();
    push_message(&mut list, "assistant", &parts, Some(finish_reason));
    array(&list)
}

/// A tool's result (or its denial) as the tool message the model read.
#[inline]
fn tool_message(list: &mut JsonOut, call_id: &str, response: &str) {
    let mut parts = JsonOut::default();
    parts.raw("{\"type\":\"tool_call_response\",\"id\":");
    parts.string(call_id);
    parts.raw(",\"response\":");
    parts.string(response);
    parts.raw("}");
    push_message(list, "tool", &parts, None);
}

/// The input messages of each model call: what reached the model since
/// the call before (the goal as a user message, the tools' results as
/// tool messages), not the whole context it was sent, which the log does
/// not record. One entry per `Assistant` entry of the transcript, in
/// order, then one for a call that no completion followed; `""` where
/// there is none.
#[inline]
pub fn call_inputs(transcript: &[TranscriptEntry]) -> Vec<String> {
    let mut inputs = Vec::new();
    let mut pending = JsonOut::default();
    for entry in transcript {
        match entry {
            TranscriptEntry::Goal { text, .. } => {
                let mut parts = JsonOut::default();
                text_part(&mut parts, text);
                push_message(&mut pending, "user", &parts, None);
            }
            TranscriptEntry::ToolCall { call_id, result: Some(outcome), .. } => {
                tool_message(&mut pending, call_id, &outcome.output);
            }
            TranscriptEntry::ToolCall { call_id, denied: Some(reason), .. } => {
                tool_message(&mut pending, call_id, &["denied: ", reason].concat());
            }
            TranscriptEntry::Assistant { .. } => {
                let list = std::mem::take(&mut pending);
                inputs.push(if list.is_empty() { String::new() } else { array(&list) });
            }
            _ => {}
        }
    }
    inputs.push(if pending.is_empty() { String::new() } else { array(&pending) });
    inputs
}
