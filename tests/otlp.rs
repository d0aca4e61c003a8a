//! OTLP export (src/otlp/) on the real runtime's corpus logs and the
//! sample: span tree, GenAI attributes, real and synthetic times, events,
//! ids, determinism and the content opt-in.

use std::collections::HashSet;
use std::path::Path;

use agent_replay::generate::SAMPLE_JSONL;
use agent_replay::log::LogOptions;
use agent_replay::otlp::{to_otlp, OtlpOptions};
use agent_replay::state::SessionState;
use serde_json::Value;

const CORPUS: &str = "tests/corpus/deepstrike-0.2.77";

fn corpus(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(CORPUS).join(name);
    std::fs::read_to_string(path).unwrap()
}

fn export_with(session: Option<&str>, text: &str, options: OtlpOptions) -> Value {
    let mut state = SessionState::new(session.map(String::from));
    let report = state.apply_str(text, LogOptions::default()).unwrap();
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    serde_json::from_str(&to_otlp(state.view(), options)).unwrap()
}

fn export_as(session: Option<&str>, text: &str, content: bool) -> Value {
    export_with(session, text, OtlpOptions { content, ..OtlpOptions::default() })
}

fn export(text: &str) -> Value {
    export_as(Some("session-1"), text, false)
}

fn spans(trace: &Value) -> &Vec<Value> {
    trace["resourceSpans"][0]["scopeSpans"][0]["spans"].as_array().unwrap()
}

fn named<'t>(trace: &'t Value, name: &str) -> Vec<&'t Value> {
    spans(trace).iter().filter(|s| s["name"] == name).collect()
}

fn one<'t>(trace: &'t Value, name: &str) -> &'t Value {
    let found = named(trace, name);
    assert_eq!(found.len(), 1, "one span named {name}");
    found[0]
}

fn root(trace: &Value) -> &Value {
    let roots: Vec<&Value> =
        spans(trace).iter().filter(|s| s.get("parentSpanId").is_none()).collect();
    assert_eq!(roots.len(), 1, "one root span");
    roots[0]
}

/// An attribute's value as its JSON (`{"stringValue": ...}` and so on).
fn attr<'s>(span: &'s Value, key: &str) -> Option<&'s Value> {
    let attributes = span["attributes"].as_array().unwrap();
    attributes.iter().find(|a| a["key"] == key).map(|a| &a["value"])
}

fn str_attr<'s>(span: &'s Value, key: &str) -> &'s str {
    attr(span, key).and_then(|v| v["stringValue"].as_str()).unwrap_or_else(|| {
        panic!("{key} on {}", span["name"]);
    })
}

fn int_attr(span: &Value, key: &str) -> u64 {
    let v = attr(span, key).unwrap_or_else(|| panic!("{key} on {}", span["name"]));
    v["intValue"].as_str().expect("64-bit ints as decimal strings").parse().unwrap()
}

fn synthetic(span: &Value) -> bool {
    attr(span, "agent_replay.time.synthetic").unwrap()["boolValue"].as_bool().unwrap()
}

fn time(span: &Value, field: &str) -> u64 {
    span[field].as_str().expect("times as decimal strings").parse().unwrap()
}

fn event_names(span: &Value) -> Vec<&str> {
    let events = span.get("events").and_then(Value::as_array);
    events.map_or(Vec::new(), |e| e.iter().map(|e| e["name"].as_str().unwrap()).collect())
}

#[test]
fn a_run_is_an_invoke_agent_root_over_chat_and_execute_tool_spans() {
    let trace = export(&corpus("tools.jsonl"));
    let root = root(&trace);
    assert_eq!(root["name"], "invoke_agent");
    assert_eq!(str_attr(root, "gen_ai.operation.name"), "invoke_agent");
    assert_eq!(str_attr(root, "gen_ai.conversation.id"), "session-1");
    let chats = named(&trace, "chat replay");
    assert_eq!(chats.len(), 5, "one chat span per model call");
    for span in spans(&trace).iter().filter(|s| s.get("parentSpanId").is_some()) {
        assert_eq!(span["parentSpanId"], root["spanId"], "{} under the run", span["name"]);
    }
    for chat in &chats {
        assert_eq!(str_attr(chat, "gen_ai.operation.name"), "chat");
        assert_eq!(str_attr(chat, "gen_ai.provider.name"), "replay");
        assert_eq!(str_attr(chat, "gen_ai.request.model"), "replay");
        assert_eq!(chat["kind"], 3, "a model call is a client span");
    }
    // The first call's usage, from its provider_attempt.
    assert_eq!(int_attr(chats[0], "gen_ai.usage.input_tokens"), 117);
    assert_eq!(int_attr(chats[0], "gen_ai.usage.output_tokens"), 5);
    let tools: Vec<&str> = spans(&trace)
        .iter()
        .filter(|s| attr(s, "gen_ai.operation.name").unwrap()["stringValue"] == "execute_tool")
        .map(|s| str_attr(s, "gen_ai.tool.call.id"))
        .collect();
    assert_eq!(tools, ["c1", "c2", "c3", "c5", "c6"], "c4 (an unknown tool) never ran");
}

#[test]
fn the_model_is_the_runs_route_when_no_attempt_names_one() {
    // The events alone (no stored-entry seq to leave gaps in), less the attempts.
    let without_attempts: String = corpus("tools.jsonl")
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["event"].to_string())
        .filter(|event| !event.contains("\"kind\":\"provider_attempt\""))
        .map(|event| format!("{event}\n"))
        .collect();
    let trace = export(&without_attempts);
    assert_eq!(str_attr(root(&trace), "gen_ai.request.model"), "replay");
    let chats = named(&trace, "chat replay");
    assert_eq!(chats.len(), 5, "every call named by run_started's route");
    for chat in &chats {
        assert_eq!(str_attr(chat, "gen_ai.provider.name"), "replay");
    }
}

#[test]
fn tool_spans_carry_call_id_arguments_result_and_error_status() {
    let trace = export(&corpus("tools.jsonl"));
    let reads = named(&trace, "execute_tool read_file");
    assert_eq!(reads.len(), 2);
    let read = reads[0];
    assert_eq!(str_attr(read, "gen_ai.tool.call.id"), "c1");
    assert_eq!(str_attr(read, "gen_ai.tool.name"), "read_file");
    assert_eq!(str_attr(read, "gen_ai.tool.call.arguments"), r#"{"path": "/notes.txt"}"#);
    assert!(str_attr(read, "gen_ai.tool.call.result").starts_with("contents of /notes.txt"));
    assert_eq!(read["status"]["code"], 0);
    let wipe = one(&trace, "execute_tool wipe_disk");
    assert_eq!(wipe["status"]["code"], 2, "an error result is an error status");
    assert_eq!(wipe["status"]["message"], "refusing to touch /dev/sda: device is read-only");
    assert_eq!(str_attr(wipe, "error.type"), "fatal");
    assert_eq!(attr(wipe, "agent_replay.tool.fatal").unwrap()["boolValue"], true);
    let bad_json = spans(&trace)
        .iter()
        .find(|s| attr(s, "gen_ai.tool.call.id").is_some_and(|v| v["stringValue"] == "c5"))
        .unwrap();
    assert_eq!(str_attr(bad_json, "error.type"), "tool_error");
}

#[test]
fn a_call_that_never_ran_is_marked_on_its_chat_span() {
    let trace = export(&corpus("tools.jsonl"));
    let chat = named(&trace, "chat replay")
        .into_iter()
        .find(|s| int_attr(s, "agent_replay.turn") == 3)
        .unwrap();
    let not_run = &attr(chat, "agent_replay.tool_calls.not_run").unwrap()["arrayValue"]["values"];
    assert_eq!(not_run, &serde_json::json!([{"stringValue": "c4"}]));
    let event = chat["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "agent_replay.tool_call.not_run")
        .unwrap();
    assert_eq!(str_attr(event, "gen_ai.tool.name"), "no_such_tool");
    assert_eq!(str_attr(event, "agent_replay.reason"), "no result");

    // Denied calls did not run either: they are marked, with the reason.
    let trace = export(&corpus("permissions.jsonl"));
    let denied: Vec<String> = named(&trace, "chat replay")
        .iter()
        .filter_map(|s| attr(s, "agent_replay.tool_calls.not_run"))
        .flat_map(|v| v["arrayValue"]["values"].as_array().unwrap().clone())
        .map(|v| v["stringValue"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(denied, ["p2", "p3", "p4", "p5"]);
    assert_eq!(named(&trace, "execute_tool deploy").len(), 1, "only p1 ran");
    let chat = named(&trace, "chat replay")[1];
    let event = &chat["events"].as_array().unwrap()[1];
    assert_eq!(str_attr(event, "agent_replay.reason"), "denied: not today");
}

#[test]
fn chat_times_are_the_attempts_and_the_rest_are_synthetic_and_marked() {
    let trace = export(&corpus("tools.jsonl"));
    let chat = named(&trace, "chat replay")[0];
    // provider_attempt: started_at_ms 1767225600004, finished_at_ms 1767225600005.
    assert_eq!(chat["startTimeUnixNano"], "1767225600004000000");
    assert_eq!(chat["endTimeUnixNano"], "1767225600005000000");
    assert!(!synthetic(chat));
    let read = named(&trace, "execute_tool read_file")[0];
    assert!(synthetic(read));
    assert!(time(read, "startTimeUnixNano") >= time(chat, "endTimeUnixNano"));
    assert!(time(read, "endTimeUnixNano") > time(read, "startTimeUnixNano"));
    assert!(synthetic(root(&trace)));
    // Tool spans follow the log's order.
    let tools: Vec<u64> = spans(&trace)
        .iter()
        .filter(|s| s["name"].as_str().unwrap().starts_with("execute_tool"))
        .map(|s| time(s, "startTimeUnixNano"))
        .collect();
    assert!(tools.windows(2).all(|w| w[0] <= w[1]), "{tools:?}");
}

#[test]
fn every_span_lies_within_the_run_and_ids_are_hex_on_every_corpus_log() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(CORPUS);
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 21);
    let mut traces = HashSet::new();
    for name in &names {
        let trace = export_as(None, &corpus(name), false);
        let root = root(&trace);
        let trace_id = root["traceId"].as_str().unwrap();
        assert!(traces.insert(trace_id.to_string()), "{name}: a trace id of its own");
        let (start, end) = (time(root, "startTimeUnixNano"), time(root, "endTimeUnixNano"));
        let mut ids = HashSet::new();
        for span in spans(&trace) {
            let id = span["spanId"].as_str().unwrap();
            assert!(is_hex(id, 16), "{name}: span id {id}");
            assert!(is_hex(span["traceId"].as_str().unwrap(), 32), "{name}: trace id");
            assert_eq!(span["traceId"], trace_id, "{name}: one trace");
            assert!(ids.insert(id.to_string()), "{name}: span id {id} unique");
            let (s, e) = (time(span, "startTimeUnixNano"), time(span, "endTimeUnixNano"));
            assert!(start <= s && s <= e && e <= end, "{name}: {} within the run", span["name"]);
            for event in span.get("events").and_then(Value::as_array).into_iter().flatten() {
                let t: u64 = event["timeUnixNano"].as_str().unwrap().parse().unwrap();
                assert!(start <= t && t <= end, "{name}: event {} within the run", event["name"]);
            }
        }
        for span in spans(&trace) {
            if let Some(parent) = span.get("parentSpanId") {
                assert!(ids.contains(parent.as_str().unwrap()), "{name}: parent exists");
            }
        }
    }
}

fn is_hex(id: &str, len: usize) -> bool {
    id.len() == len
        && id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        && id.bytes().any(|b| b != b'0')
}

#[test]
fn the_same_log_gives_the_same_trace_and_another_session_another_trace_id() {
    let text = corpus("signals.jsonl");
    let a = export(&text);
    assert_eq!(a, export(&text));
    let b = export_as(Some("session-2"), &text, false);
    assert_ne!(root(&a)["traceId"], root(&b)["traceId"]);
}

#[test]
fn suspensions_permissions_budgets_and_signals_are_events_on_the_run() {
    let trace = export(&corpus("permissions.jsonl"));
    let names = event_names(root(&trace));
    for kind in [
        "suspended",
        "permission_requested",
        "permission_resolved",
        "tool_gated",
        "resumed",
        "tool_denied",
    ] {
        assert!(names.contains(&kind), "{kind} in {names:?}");
    }
    let resolved = root(&trace)["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "permission_resolved")
        .unwrap();
    assert_eq!(attr(resolved, "agent_replay.approved").unwrap()["boolValue"], true);
    assert_eq!(str_attr(resolved, "agent_replay.responder"), "host");
    let suspended = root(&trace)["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "suspended")
        .unwrap();
    assert_eq!(str_attr(suspended, "agent_replay.reason"), "ask_user");
    assert_eq!(int_attr(suspended, "agent_replay.position"), 9);

    let trace = export(&corpus("signals.jsonl"));
    let signals = event_names(root(&trace));
    assert_eq!(signals.iter().filter(|n| **n == "signal_delivery_disposed").count(), 4);

    let trace = export(&corpus("budgets.jsonl"));
    let root = root(&trace);
    assert!(event_names(root).contains(&"budget_exceeded"));
    assert_eq!(root["status"]["code"], 2, "a run ended by its budget failed");
    assert_eq!(str_attr(root, "error.type"), "token_budget");
}

#[test]
fn sub_agents_are_children_of_their_spawner_and_linked_to_their_dependency() {
    let trace = export(&corpus("workflow.jsonl"));
    let root = root(&trace);
    assert_eq!(root["name"], "invoke_agent coordinator");
    let node0 = one(&trace, "invoke_agent wf-node0");
    let node1 = one(&trace, "invoke_agent wf-node1");
    let node2 = one(&trace, "invoke_agent wf-node2");
    // The coordinator spawned all three (workflow_batch_spawned in its log);
    // wf-node2's parent_task_id, wf-node1, is the node it waited for.
    for node in [node0, node1, node2] {
        assert_eq!(node["parentSpanId"], root["spanId"], "{}", node["name"]);
    }
    assert!(node0.get("links").is_none());
    let links = node2["links"].as_array().unwrap();
    assert_eq!(links.len(), 1);
    assert_eq!(links[0]["spanId"], node1["spanId"]);
    assert_eq!(links[0]["traceId"], root["traceId"]);
    assert_eq!(str_attr(&links[0], "agent_replay.link.type"), "workflow_dependency");
    assert_eq!(str_attr(&links[0], "agent_replay.parent_task_id"), "wf-node1");
    assert!(time(node2, "startTimeUnixNano") > time(node1, "endTimeUnixNano"));
    assert_eq!(str_attr(node2, "gen_ai.agent.id"), "wf-node2");
    assert_eq!(str_attr(node2, "agent_replay.role"), "plan");
    assert_eq!(event_names(node2), ["agent_process_changed", "agent_process_changed"]);

    // The sample's cancelled sub-agent failed.
    let trace = export(SAMPLE_JSONL);
    let miner = one(&trace, "invoke_agent log-miner-1");
    assert_eq!(miner["status"], serde_json::json!({"code": 2, "message": "budget_exceeded"}));
}

#[test]
fn a_failed_model_call_with_no_completion_is_an_error_chat_span() {
    let trace = export(&corpus("provider_fatal.jsonl"));
    let chats = named(&trace, "chat replay");
    assert_eq!(chats.len(), 2);
    let failed = chats[1];
    assert_eq!(failed["status"]["code"], 2);
    assert_eq!(str_attr(failed, "error.type"), "model_unavailable");
    assert!(attr(failed, "gen_ai.usage.input_tokens").is_none(), "no usage in the log");
    assert_eq!(failed["startTimeUnixNano"], "1767225600008000000");
}

#[test]
fn retries_are_one_chat_span_with_an_event_per_attempt() {
    let trace = export(SAMPLE_JSONL);
    let chat = &named(&trace, "chat claude-sonnet-4")[0];
    assert_eq!(event_names(chat), ["provider_attempt", "provider_attempt"]);
    assert!(!synthetic(chat));
    let untimed = spans(&trace).iter().filter(|s| s["name"].as_str().unwrap().starts_with("chat"));
    assert!(untimed.skip(1).all(synthetic), "later calls have no attempt: synthetic");
}

#[test]
fn what_a_rollback_undid_says_so() {
    // The sample rolls back at event 48 to its checkpoint at event 14.
    let trace = export(SAMPLE_JSONL);
    let undone = |name: &str| {
        named(&trace, name)
            .iter()
            .map(|s| {
                attr(s, "agent_replay.rolled_back_at")
                    .map(|_| int_attr(s, "agent_replay.rolled_back_at"))
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(undone("execute_tool shell.run"), [Some(48)]);
    assert_eq!(undone("execute_tool git.open_pr"), [None]);
    let chats = undone("chat claude-sonnet-4");
    assert_eq!(chats, [None, Some(48), Some(48), None, None], "turns 1, 2, 5, 6, 7");
}

#[test]
fn message_content_is_opt_in() {
    let text = SAMPLE_JSONL;
    let without = export_as(Some("s"), text, false).to_string();
    for key in ["gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions"] {
        assert!(!without.contains(key), "{key} only on request");
    }
    let with = export_as(Some("s"), text, true);
    let root = root(&with);
    let input: Value = serde_json::from_str(str_attr(root, "gen_ai.input.messages")).unwrap();
    assert_eq!(input[0]["role"], "user");
    assert!(input[0]["parts"][0]["content"].as_str().unwrap().starts_with("Find why"));
    assert!(attr(root, "gen_ai.system_instructions").is_some());
    let chat = spans(&with).iter().find(|s| attr(s, "gen_ai.output.messages").is_some()).unwrap();
    let output: Value = serde_json::from_str(str_attr(chat, "gen_ai.output.messages")).unwrap();
    assert_eq!(output[0]["role"], "assistant");
    assert_eq!(output[0]["parts"][0]["type"], "text");
    assert_eq!(output[0]["parts"][1]["type"], "tool_call");
    assert_eq!(output[0]["parts"][1]["id"], "call-1");
    assert_eq!(output[0]["finish_reason"], "tool_call");
}

fn messages(span: &Value, key: &str) -> Vec<Value> {
    let text = str_attr(span, key);
    serde_json::from_str::<Value>(text).unwrap().as_array().unwrap().clone()
}

#[test]
fn every_message_has_the_fields_the_conventions_schemas_require() {
    for name in ["tools.jsonl", "provider_fatal.jsonl", "permissions.jsonl", "long_run.jsonl"] {
        let trace = export_as(None, &corpus(name), true);
        let chats: Vec<&Value> = spans(&trace)
            .iter()
            .filter(|s| s["name"].as_str().unwrap().starts_with("chat"))
            .collect();
        for chat in &chats {
            for key in ["gen_ai.input.messages", "gen_ai.output.messages"] {
                let Some(_) = attr(chat, key) else { continue };
                for m in messages(chat, key) {
                    assert!(m["role"].is_string(), "{name}: {key} role");
                    assert!(!m["parts"].as_array().unwrap().is_empty(), "{name}: {key} parts");
                    if key == "gen_ai.output.messages" {
                        let reason = m["finish_reason"].as_str().unwrap();
                        assert!(
                            ["stop", "tool_call", "error"].contains(&reason),
                            "{name}: {reason}"
                        );
                    }
                }
            }
        }
        let with_output = chats.iter().filter(|c| attr(c, "gen_ai.output.messages").is_some());
        assert!(with_output.count() > 0, "{name}: a reply");
    }
}

#[test]
fn chat_spans_have_what_reached_the_model_as_input_messages() {
    let trace = export_as(None, &corpus("tools.jsonl"), true);
    let chats = named(&trace, "chat replay");
    let first = messages(chats[0], "gen_ai.input.messages");
    assert_eq!(first.len(), 1);
    assert_eq!(first[0]["role"], "user", "the goal");
    let second = messages(chats[1], "gen_ai.input.messages");
    assert_eq!(second[0]["role"], "tool");
    let part = &second[0]["parts"][0];
    assert_eq!(part["type"], "tool_call_response");
    assert_eq!(part["id"], "c1");
    assert!(part["response"].as_str().unwrap().starts_with("contents of /notes.txt"));
    let last = messages(chats[chats.len() - 1], "gen_ai.output.messages");
    assert_eq!(last[0]["finish_reason"], "stop");
}

#[test]
fn the_run_has_the_goal_and_the_final_answer_as_input_and_output_values() {
    let trace = export_as(Some("s"), SAMPLE_JSONL, true);
    let run = root(&trace);
    assert!(str_attr(run, "input.value").starts_with("Find why"));
    assert_eq!(str_attr(run, "input.mime_type"), "text/plain");
    let chats: Vec<&Value> =
        spans(&trace).iter().filter(|s| s["name"].as_str().unwrap().starts_with("chat")).collect();
    let last = messages(chats[chats.len() - 1], "gen_ai.output.messages");
    assert_eq!(str_attr(run, "output.value"), last[0]["parts"][0]["content"].as_str().unwrap());
    let bare = export_as(Some("s"), SAMPLE_JSONL, false);
    assert!(attr(root(&bare), "input.value").is_none(), "content only on request");
}

/// A run whose second model call's attempt started and finished before
/// the first's finished, recorded while a tool call ran.
fn overlapping() -> String {
    let attempt = |seq: u64, start: u64, end: u64| {
        format!(
            r#"{{"kind":"provider_attempt","attempt_seq":{seq},"status":"success","started_at_ms":{start},"finished_at_ms":{end}}}"#
        )
    };
    [
        r#"{"kind":"run_started","run_id":"r","goal":"g","criteria":[],"agent_id":null,"system_prompt":null,"attachments":[]}"#.to_string(),
        attempt(1, 1_767_225_600_000, 1_767_225_609_000),
        r#"{"kind":"llm_completed","turn":1,"content":"a","tool_calls":[{"id":"c1","name":"t","arguments":"{}"}]}"#.into(),
        r#"{"kind":"tool_requested","turn":1,"calls":[{"id":"c1","name":"t","arguments":"{}"}]}"#.into(),
        attempt(1, 1_767_225_601_000, 1_767_225_602_000),
        r#"{"kind":"tool_completed","turn":1,"results":[{"call_id":"c1","output":"o","is_error":false}]}"#.into(),
        r#"{"kind":"llm_completed","turn":2,"content":"done","tool_calls":[]}"#.into(),
    ]
    .join("\n")
}

/// Every span ends no earlier than it starts and lies within its parent.
fn assert_nested(trace: &Value) {
    let by_id: std::collections::HashMap<&str, &Value> =
        spans(trace).iter().map(|s| (s["spanId"].as_str().unwrap(), s)).collect();
    for span in spans(trace) {
        let (s, e) = (time(span, "startTimeUnixNano"), time(span, "endTimeUnixNano"));
        assert!(s <= e, "{} ends before it starts", span["name"]);
        if let Some(parent) = span.get("parentSpanId").and_then(Value::as_str) {
            let p = by_id[parent];
            let (ps, pe) = (time(p, "startTimeUnixNano"), time(p, "endTimeUnixNano"));
            assert!(ps <= s && e <= pe, "{} within {}", span["name"], p["name"]);
        }
    }
}

#[test]
fn overlapping_attempts_give_spans_that_never_run_backwards() {
    let trace = export(&overlapping());
    assert_nested(&trace);
    let tool = one(&trace, "execute_tool t");
    assert!(synthetic(tool));
    let chats = named(&trace, "chat");
    assert_eq!(chats.len(), 2);
    assert!(!synthetic(chats[1]), "real times are kept where they are in order");
    for name in ["workflow.jsonl", "tools.jsonl", "provider_fatal.jsonl"] {
        assert_nested(&export(&corpus(name)));
    }
    assert_nested(&export(SAMPLE_JSONL));
}

#[test]
fn a_log_without_times_starts_at_the_given_start_time_not_1970() {
    let text = corpus("workflow.jsonl");
    let at = |trace: &Value| time(root(trace), "startTimeUnixNano");
    let bare = export(&text);
    assert!(at(&bare) < 1_000_000_000_000, "no start time: the Unix epoch");
    let start_time_ms = Some(1_780_000_000_000);
    let placed = export_with(None, &text, OtlpOptions { start_time_ms, ..OtlpOptions::default() });
    let start = at(&placed);
    assert!((1_780_000_000_000_000_000..1_780_000_001_000_000_000).contains(&start), "{start}");
    assert_nested(&placed);
    // A log with recorded times keeps them.
    let tools = corpus("tools.jsonl");
    let timed = export_with(None, &tools, OtlpOptions { start_time_ms, ..OtlpOptions::default() });
    assert_eq!(timed, export_as(None, &tools, false));
}

#[test]
fn an_empty_log_is_one_root_span() {
    let trace = export("");
    assert_eq!(spans(&trace).len(), 1);
    assert_eq!(str_attr(root(&trace), "agent_replay.status"), "not_started");
}

/// Every control character, a quote, a backslash, a slash, DEL and
/// non-ASCII text (two-, three- and four-byte UTF-8, and U+2028, which
/// JSON allows unescaped and JavaScript source once did not).
fn awkward() -> String {
    let controls: String = (0u8..0x20).map(char::from).collect();
    [controls.as_str(), "\"\\/\u{7f} é ☃ 𝄞 \u{2028}"].concat()
}

/// Each string value of `value` that is one of `plain` gets `suffix`.
fn suffix_strings(value: &mut Value, plain: &[&str], suffix: &str) {
    match value {
        Value::String(s) if plain.contains(&s.as_str()) => s.push_str(suffix),
        Value::Array(items) => items.iter_mut().for_each(|v| suffix_strings(v, plain, suffix)),
        Value::Object(fields) => {
            fields.values_mut().for_each(|v| suffix_strings(v, plain, suffix));
        }
        _ => {}
    }
}

#[test]
fn awkward_strings_round_trip_through_the_export() {
    let odd = awkward();
    // The names, texts, reasons and ids the export writes, each made
    // awkward where the log gives it (consistently, so calls still match),
    // and an awkward field name on a root event.
    let plain = ["deploy", "deploy the build", "Deploying to staging.", "deployed to staging"];
    let plain = [&plain[..], &["ask_user", "host", "not today", "p2", "replay"]].concat();
    let text: String = corpus("permissions.jsonl")
        .lines()
        .map(|line| {
            let mut event = serde_json::from_str::<Value>(line).unwrap()["event"].take();
            suffix_strings(&mut event, &plain, &odd);
            match event["kind"].as_str().unwrap() {
                "run_started" => {
                    event["agent_id"] = odd.clone().into();
                    event["system_prompt"] = odd.clone().into();
                }
                "suspended" => event[odd.as_str()] = odd.clone().into(),
                "run_terminal" => event["reason"] = odd.clone().into(),
                _ => {}
            }
            format!("{event}\n")
        })
        .collect();
    let with = |s: &str| [s, &odd].concat();
    let trace = export_as(Some(&odd), &text, true);

    let root = root(&trace);
    assert_eq!(root["name"].as_str(), Some(with("invoke_agent ").as_str()));
    assert_eq!(str_attr(root, "gen_ai.conversation.id"), odd);
    assert_eq!(str_attr(root, "gen_ai.agent.id"), odd);
    assert_eq!(root["status"]["message"].as_str(), Some(odd.as_str()), "the run's end");
    let resource = &trace["resourceSpans"][0]["resource"];
    assert_eq!(str_attr(resource, "service.name"), odd);
    let input: Value = serde_json::from_str(str_attr(root, "gen_ai.input.messages")).unwrap();
    assert_eq!(input[0]["parts"][0]["content"].as_str(), Some(with("deploy the build").as_str()));
    let system: Value = serde_json::from_str(str_attr(root, "gen_ai.system_instructions")).unwrap();
    assert_eq!(system[0]["content"].as_str(), Some(odd.as_str()));

    let events = root["events"].as_array().unwrap();
    let event = |name: &str| events.iter().find(|e| e["name"] == name).unwrap();
    let suspended = event("suspended");
    assert_eq!(str_attr(suspended, "agent_replay.reason"), with("ask_user"));
    assert_eq!(str_attr(suspended, &with("agent_replay.")), odd, "an awkward field name");
    assert_eq!(str_attr(event("permission_resolved"), "agent_replay.responder"), with("host"));
    assert_eq!(str_attr(event("permission_requested"), "gen_ai.tool.name"), with("deploy"));

    let chats = named(&trace, &with("chat replay"));
    assert_eq!(chats.len(), 6, "every model call, named by its model");
    assert_eq!(str_attr(chats[0], "gen_ai.provider.name"), with("replay"));
    let output: Value = serde_json::from_str(str_attr(chats[0], "gen_ai.output.messages")).unwrap();
    let parts = &output[0]["parts"];
    assert_eq!(parts[0]["content"].as_str(), Some(with("Deploying to staging.").as_str()));
    assert_eq!(parts[1]["name"].as_str(), Some(with("deploy").as_str()));
    let not_run = &attr(chats[1], "agent_replay.tool_calls.not_run").unwrap()["arrayValue"];
    assert_eq!(not_run["values"][0]["stringValue"].as_str(), Some(with("p2").as_str()));
    let not_run = chats[1]["events"].as_array().unwrap().last().unwrap();
    assert_eq!(str_attr(not_run, "agent_replay.reason"), with("denied: not today"));

    let tool = one(&trace, &with("execute_tool deploy"));
    assert_eq!(str_attr(tool, "gen_ai.tool.call.result"), with("deployed to staging"));
}

fn process(agent: &str, parent: &str, state: &str) -> String {
    format!(
        r#"{{"kind":"agent_process_changed","turn":1,"agent_id":"{agent}","parent_session_id":"{parent}","role":"r","isolation":"shared","context_inheritance":"none","state":"{state}","permitted_capability_ids":[]}}"#
    )
}

#[test]
fn a_sub_agent_started_by_another_is_its_child_and_a_parent_loop_falls_back_to_the_run() {
    let lines = [
        r#"{"kind":"run_started","run_id":"r","goal":"g","criteria":[],"agent_id":"main","system_prompt":null,"attachments":[]}"#.to_string(),
        process("a", "main", "running"),
        process("c", "a", "running"),
        process("x", "y", "running"),
        process("y", "x", "running"),
        process("c", "a", "joined"),
        process("a", "main", "joined"),
        process("x", "y", "joined"),
        process("y", "x", "joined"),
    ];
    let trace = export(&lines.join("\n"));
    let run = root(&trace);
    let a = one(&trace, "invoke_agent a");
    assert_eq!(a["parentSpanId"], run["spanId"], "main is the run, not a sub-agent");
    assert_eq!(one(&trace, "invoke_agent c")["parentSpanId"], a["spanId"]);
    for looped in ["invoke_agent x", "invoke_agent y"] {
        assert_eq!(one(&trace, looped)["parentSpanId"], run["spanId"], "{looped}");
    }
    assert_nested(&trace);
}
