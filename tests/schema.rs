//! The event schema: every kind round-trips, strict types, optional and
//! default rules, closed nested types, unknown kinds, the Node SDK shape.

mod common;

use agent_replay::event::{kind_info, Content, KINDS, KIND_TABLE};
use agent_replay::SessionEvent;
use serde_json::{json, Value};

fn parse(text: &str) -> SessionEvent<'_> {
    SessionEvent::from_json(text).unwrap_or_else(|e| panic!("{text}: {e:?}"))
}

/// The error strict reading (deepstrike-core 0.2.60's) gives.
fn err(text: &str) -> agent_replay::event::EventError {
    SessionEvent::from_json_strict(text).expect_err(text)
}

#[test]
fn there_are_50_kinds_32_of_the_core_and_the_sample_uses_them_all() {
    assert_eq!(KINDS.len(), 50);
    assert_eq!(KIND_TABLE.iter().filter(|k| k.core).count(), 32);
    let mut seen: Vec<String> =
        common::sample_lines().iter().map(|l| parse(l).kind().to_string()).collect();
    seen.sort();
    seen.dedup();
    let mut all: Vec<String> = KINDS.iter().map(|k| k.to_string()).collect();
    all.sort();
    assert_eq!(seen, all);
}

#[test]
fn each_kind_round_trips() {
    for line in common::sample_lines() {
        let event = parse(line);
        let written = event.to_json();
        let again = SessionEvent::from_json(&written).unwrap();
        assert_eq!(event, again, "{line}");
        assert_eq!(again.to_json(), written);
        // The tag written is the kind read.
        let v: Value = serde_json::from_str(&written).unwrap();
        assert_eq!(v["kind"], json!(event.kind()));
    }
}

/// Every value of `original` is in `written` (which may add defaults).
fn assert_within(original: &Value, written: &Value, at: &str) {
    match (original, written) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                assert_within(
                    v,
                    b.get(k).unwrap_or_else(|| panic!("{at}.{k} dropped")),
                    &format!("{at}.{k}"),
                );
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len(), "{at}");
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert_within(x, y, &format!("{at}[{i}]"));
            }
        }
        _ => assert_eq!(original, written, "{at}"),
    }
}

#[test]
fn serializing_keeps_every_field_written_in_the_kernel_shape() {
    // Every sample line of a core kind is in the kernel's own shape except
    // the SDK one. (The other kinds' bodies keep only what the view reads.)
    let core = |l: &&&str| kind_info(parse(l).kind()).unwrap().core;
    for line in
        common::sample_lines().iter().filter(core).filter(|l| !l.contains("\"content\":\"Bisect"))
    {
        let original: Value = serde_json::from_str(line).unwrap();
        let written: Value = serde_json::from_str(&parse(line).to_json()).unwrap();
        assert_within(&original, &written, "event");
    }
}

#[test]
fn optional_default_and_always_written_fields() {
    // x|null written as null; x[]! always written; u32 default always written.
    let run = parse(r#"{"kind":"run_started","run_id":"r","goal":"g"}"#).to_json();
    assert_eq!(
        run,
        r#"{"kind":"run_started","run_id":"r","goal":"g","criteria":[],"agent_id":null,"system_prompt":null,"attachments":[]}"#
    );
    let page = parse(r#"{"kind":"page_out","turn":1}"#).to_json();
    assert_eq!(page, r#"{"kind":"page_out","turn":1,"message_count":0}"#);
    // x[] omitted when empty; x? omitted when absent.
    let cap = parse(r#"{"kind":"capability_changed","turn":2,"added":[],"removed":[]}"#).to_json();
    assert_eq!(cap, r#"{"kind":"capability_changed","turn":2}"#);
    let cancelled =
        parse(r#"{"kind":"operation_cancelled","turn":1,"operation_id":"o","reason":"user"}"#)
            .to_json();
    assert_eq!(
        cancelled,
        r#"{"kind":"operation_cancelled","turn":1,"operation_id":"o","reason":"user","pending_call_ids":[]}"#
    );
    let result = parse(r#"{"kind":"tool_completed","turn":1,"results":[{"call_id":"c","output":"x","is_error":false}]}"#).to_json();
    assert_eq!(
        result,
        r#"{"kind":"tool_completed","turn":1,"results":[{"call_id":"c","output":"x","is_error":false,"is_fatal":false,"token_count":null}]}"#
    );
}

#[test]
fn strict_field_types_name_the_field() {
    let cases = [
        (r#"{"kind":"page_in","turn":"3","entry_count":1}"#, "turn", "invalid type"),
        (r#"{"kind":"page_in","turn":-1,"entry_count":1}"#, "turn", "invalid value"),
        (r#"{"kind":"page_in","turn":4294967296,"entry_count":1}"#, "turn", "invalid value"),
        (r#"{"kind":"page_in","turn":1.5,"entry_count":1}"#, "turn", "invalid type"),
        (r#"{"kind":"page_in","turn":1}"#, "entry_count", "missing field"),
        (
            r#"{"kind":"operation_cancelled","turn":1,"operation_id":"o","reason":"bored"}"#,
            "reason",
            "unknown variant",
        ),
        (
            r#"{"kind":"run_terminal","reason":"done","turns_used":1,"total_tokens":-5}"#,
            "total_tokens",
            "invalid value",
        ),
        (
            r#"{"kind":"tool_completed","turn":1,"results":[{"call_id":"c","output":"x"}]}"#,
            "results[0].is_error",
            "missing field `is_error`",
        ),
        (
            r#"{"kind":"tool_requested","turn":1,"calls":[{"id":"a","name":"n","arguments":1},{"id":2,"name":"n","arguments":1}]}"#,
            "calls[1].id",
            "invalid type",
        ),
        (
            r#"{"kind":"memory_written","turn":1,"record_id":"m","scope":{"tenant_id":"t","namespace":"n","x":1},"memory_kind":"user","name":"n","size_bytes":1}"#,
            "scope.x",
            "unknown field",
        ),
    ];
    for (text, field, message) in cases {
        let e = err(text);
        assert_eq!(e.field.as_deref(), Some(field), "{text}: {e:?}");
        assert!(e.message.contains(message), "{text}: {}", e.message);
        assert!(e.offset <= text.len());
    }
}

#[test]
fn unknown_top_level_fields_are_accepted_but_closed_types_reject_them() {
    let ok = parse(r#"{"kind":"page_in","turn":1,"entry_count":2,"extra":{"deep":[1]}}"#);
    assert_eq!(ok.turn(), Some(1));
    let closed = [
        r#"{"kind":"memory_written","turn":1,"record_id":"m","scope":{"tenant_id":"t","namespace":"n","x":1},"memory_kind":"user","name":"n","size_bytes":1}"#,
        r#"{"kind":"llm_completed","turn":1,"message":{"role":"assistant","content":"x"},"provider_replay":{"protocol":"p","surprise":true}}"#,
        r#"{"kind":"tool_completed","turn":1,"results":[{"call_id":"c","output":"x","is_error":false,"durable_content":{"blocks":[],"more":1}}]}"#,
    ];
    for text in closed {
        let e = err(text);
        assert!(e.message.starts_with("unknown field"), "{text}: {e:?}");
    }
}

#[test]
fn durable_content_sources_and_rollback_reasons_parse() {
    let text = r#"{"kind":"tool_completed","turn":3,"results":[{"call_id":"c","output":[{"type":"text","text":"a"},{"type":"image","url":"u","detail":"low"},{"type":"tool_result","call_id":"c0","output":"o","is_error":true}],"is_error":false,"durable_content":{"blocks":[{"type":"text","text":"t"},{"type":"file","source":{"kind":"file_id","id":"f","affinity":{"provider_id":"p","endpoint_id":"e"}},"media_type":"text/plain"},{"type":"image","source":{"kind":"object","handle":"h","owner":"o","payload_ref":"r"}},{"type":"video","source":{"kind":"url","url":"https://x"}},{"type":"audio","source":{"kind":"base64","data":"AA=="}}]}}]}"#;
    let event = parse(text);
    assert_eq!(SessionEvent::from_json(&event.to_json()).unwrap(), event);
    for reason in [
        r#"{"kind":"fatal_tool_error","tool_name":"t","error":"e"}"#,
        r#"{"kind":"timeout"}"#,
        r#"{"kind":"user_interrupt"}"#,
        r#"{"kind":"malformed_replay","reason":"r"}"#,
        r#"{"kind":"provider_failure","error":"e"}"#,
    ] {
        let text = format!(
            r#"{{"kind":"rollbacked","turn":1,"checkpoint_history_len":2,"reason":{reason}}}"#
        );
        let event = parse(&text);
        let back: Value = serde_json::from_str(&event.to_json()).unwrap();
        assert_eq!(back["reason"], serde_json::from_str::<Value>(reason).unwrap());
    }
}

#[test]
fn node_sdk_llm_completed_is_an_assistant_message() {
    let sdk = parse(
        r#"{"kind":"llm_completed","turn":4,"content":"hi","tool_calls":[{"id":"c1","name":"t","arguments":{"a":1}}],"token_count":7}"#,
    );
    let kernel = parse(
        r#"{"kind":"llm_completed","turn":4,"message":{"role":"assistant","content":"hi","tool_calls":[{"id":"c1","name":"t","arguments":{"a":1}}],"token_count":7}}"#,
    );
    assert_eq!(sdk, kernel);
    let SessionEvent::LlmCompleted(e) = &sdk else { panic!() };
    assert_eq!(e.message.content, Content::Text("hi".into()));
    let e = err(r#"{"kind":"llm_completed","turn":4}"#);
    assert!(e.message.contains("missing field `message`"), "{e:?}");
}

#[test]
fn kind_anywhere_in_the_object_and_escaped_strings() {
    let late = parse(r#"{"turn":2,"entry_count":5,"kind":"page_in"}"#);
    assert_eq!(late.kind(), "page_in");
    let escaped = parse(
        r#"{"kind":"milestone_blocked","turn":1,"phase_id":"a\"b","reason":"line\nbreak \u00e9"}"#,
    );
    let SessionEvent::MilestoneBlocked(e) = &escaped else { panic!() };
    assert_eq!(e.phase_id.as_str(), "a\"b");
    assert_eq!(e.reason.as_str(), "line\nbreak é");
}

#[test]
fn unknown_kinds_are_kept_with_their_text() {
    let text = r#"{"kind":"future_thing","turn":9,"x":[1,2]}"#;
    let event = parse(text);
    assert!(
        matches!(&event, SessionEvent::Unknown(u) if u.kind == "future_thing" && u.json == text)
    );
    assert_eq!(event.to_json(), text);
    assert!(!event.is_kernel_os_event());
    assert!(err(r#"{"kind":"future_thing","x":}"#).message.contains("expected value"));
    assert_eq!(err(r#"{"turn":1}"#).field.as_deref(), Some("kind"));
    assert_eq!(err(r#"{"kind":7}"#).field.as_deref(), Some("kind"));
}

#[test]
fn kernel_os_events_are_the_22_listed() {
    let os: Vec<&str> = common::sample_lines()
        .into_iter()
        .map(parse)
        .filter(|e| e.is_kernel_os_event())
        .map(|e| KINDS.iter().copied().find(|k| *k == e.kind()).unwrap())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(os.len(), 22);
    for not_os in [
        "run_started",
        "llm_completed",
        "tool_requested",
        "tool_completed",
        "run_terminal",
        "tool_argument_repaired",
        "permission_requested",
        "permission_resolved",
        "tool_denied",
        "memory_retrieval_result",
    ] {
        assert!(!os.contains(&not_os));
    }
}

#[test]
fn tagged_nested_types_require_their_fields_and_closed_ones_reject_others() {
    let part = |p: &str| {
        format!(
            r#"{{"kind":"llm_completed","turn":1,"message":{{"role":"user","content":[{p}]}}}}"#
        )
    };
    let e = err(&part(r#"{"type":"audio","data":"d"}"#));
    assert_eq!(
        (e.message.as_str(), e.field.as_deref()),
        ("missing field `media_type`", Some("message.content[0].media_type"))
    );
    assert!(err(&part(r#"{"type":"video"}"#)).message.starts_with("unknown variant `video`"));
    assert!(err(&part(r#"{"text":"x"}"#)).message.contains("missing field `type`"));
    let block = |b: &str| {
        format!(
            r#"{{"kind":"tool_completed","turn":1,"results":[{{"call_id":"c","output":"x","is_error":false,"durable_content":{{"blocks":[{b}]}}}}]}}"#
        )
    };
    // A closed type: another variant's field is an unknown field.
    assert_eq!(
        err(&block(r#"{"type":"text","text":"t","source":{"kind":"url","url":"u"}}"#)).message,
        "unknown field `source`"
    );
    assert_eq!(
        err(&block(r#"{"type":"file","source":{"kind":"url","url":"u","data":"d"}}"#)).message,
        "unknown field `data`"
    );
    assert_eq!(
        err(&block(r#"{"type":"file","source":{"kind":"object","handle":"h","owner":"o"}}"#))
            .message,
        "missing field `payload_ref`"
    );
    assert_eq!(err(&block(r#"{"type":"image"}"#)).message, "missing field `source`");
    let rollback = r#"{"kind":"rollbacked","turn":1,"checkpoint_history_len":2,"reason":{"kind":"fatal_tool_error","tool_name":"t"}}"#;
    assert_eq!(err(rollback).field.as_deref(), Some("reason.error"));
}

/// A missing field is reported once its object has closed: its path must not
/// depend on what the object's last value was (an array, an object, empty or
/// not, a string, a number), nor on whitespace before the closing brace.
#[test]
fn missing_field_paths_do_not_depend_on_the_last_value() {
    let agent = r#"{"kind":"agent_process_changed","turn":3,"parent_session_id":"p","role":"r","isolation":"shared","context_inheritance":"none","state":"spawned""#;
    let cases = [
        (format!(r#"{agent},"permitted_capability_ids":[]}}"#), "agent_id"),
        (format!(r#"{agent},"permitted_capability_ids":["a","b"]}}"#), "agent_id"),
        (format!(r#"{agent},"permitted_capability_ids":["a"] }}"#), "agent_id"),
        (r#"{"kind":"resumed","denied":["b"]}"#.into(), "turn"),
        (r#"{"kind":"resumed","denied":[]}"#.into(), "turn"),
        (r#"{"kind":"resumed","denied":[],"approved":["a","b"]}"#.into(), "turn"),
        (r#"{"kind":"page_in","entry_count":1,"note":{}}"#.into(), "turn"),
        (r#"{"kind":"page_in","entry_count":1,"note":{"a":{"b":[1,{}]}}}"#.into(), "turn"),
        (r#"{"kind":"page_in","entry_count":1,"note":[[],{"c":[]}]}"#.into(), "turn"),
        (r#"{"kind":"page_in","entry_count":1,"note":"s"}"#.into(), "turn"),
        (r#"{"kind":"page_in","entry_count":1,"note":"a \"quoted\" ]}"}"#.into(), "turn"),
        (r#"{"kind":"page_in","entry_count":1,"note":12}"#.into(), "turn"),
        (r#"{"kind":"page_in","entry_count":1,"note":null}"#.into(), "turn"),
        (r#"{"kind":"page_in","entry_count":1}"#.into(), "turn"),
        (r#"{"kind":"page_in","turn":1}"#.into(), "entry_count"),
        (
            r#"{"kind":"tool_completed","turn":1,"results":[{"call_id":"c","output":"x"}]}"#.into(),
            "results[0].is_error",
        ),
        (
            r#"{"kind":"tool_completed","turn":1,"results":[{"call_id":"c","output":"x","durable_content":{"blocks":[]}}]}"#.into(),
            "results[0].is_error",
        ),
        (
            r#"{"kind":"tool_completed","turn":1,"results":[{"call_id":"c","output":[],"is_error":false},{"call_id":"d","output":[]}]}"#.into(),
            "results[1].is_error",
        ),
        (
            r#"{"kind":"tool_requested","turn":1,"calls":[{"name":"n","arguments":{"a":[1]}}]}"#.into(),
            "calls[0].id",
        ),
        (
            r#"{"kind":"tool_requested","turn":1,"calls":[{"id":"a","arguments":[]}],"x":[]}"#.into(),
            "calls[0].name",
        ),
        (
            r#"{"kind":"memory_written","turn":1,"record_id":"m","scope":{"tenant_id":"t"},"memory_kind":"user","name":"n","size_bytes":1}"#.into(),
            "scope.namespace",
        ),
        // Types read through a wire struct (tagged enums, llm_completed).
        (
            r#"{"kind":"rollbacked","turn":1,"reason":{"kind":"fatal_tool_error","tool_name":"t"},"checkpoint_history_len":2}"#.into(),
            "reason.error",
        ),
        (
            r#"{"kind":"llm_completed","turn":1,"message":{"role":"user","content":[{"type":"audio","data":"d"},{"type":"text","text":"x"}]}}"#.into(),
            "message.content[0].media_type",
        ),
        (
            r#"{"kind":"llm_completed","turn":1,"message":{"role":"user","content":[{"type":"text","text":"x"},{"type":"audio","data":"d","x":[]} ]}}"#.into(),
            "message.content[1].media_type",
        ),
        (r#"{"kind":"llm_completed","turn":1,"content":"x","x":{}}"#.into(), "tool_calls"),
    ];
    for (text, field) in &cases {
        let e = err(text);
        assert!(e.message.starts_with("missing field"), "{text}: {e:?}");
        assert_eq!(e.field.as_deref(), Some(*field), "{text}: {e:?}");
    }
}

/// Errors other than a missing field keep the path of the value at fault,
/// whatever follows it.
#[test]
fn value_error_paths_inside_arrays_and_objects() {
    let cases = [
        (r#"{"kind":"resumed","turn":1,"denied":["b",5]}"#, "denied[1]"),
        (r#"{"kind":"resumed","turn":1,"denied":[],"approved":[[]]}"#, "approved[0]"),
        (
            r#"{"kind":"tool_completed","turn":1,"results":[{"call_id":"c","output":"x","is_error":"no"}]}"#,
            "results[0].is_error",
        ),
        (
            r#"{"kind":"tool_completed","turn":1,"results":[{"call_id":"c","output":[],"is_error":1,"x":[]}]}"#,
            "results[0].is_error",
        ),
        (r#"{"kind":"page_in","note":[{}],"turn":"1","entry_count":1}"#, "turn"),
        (
            r#"{"kind":"operation_cancelled","reason":"bored","turn":1,"operation_id":"o"}"#,
            "reason",
        ),
        (
            r#"{"kind":"operation_cancelled","turn":1,"operation_id":"o","reason":"bored"}"#,
            "reason",
        ),
    ];
    for (text, field) in cases {
        let e = err(text);
        assert_eq!(e.field.as_deref(), Some(field), "{text}: {e:?}");
    }
}

/// Enum values a newer runtime writes: tolerant reading keeps them as
/// written; strict reading refuses those of the enums the kernel types.
#[test]
fn unknown_enum_values_are_kept_when_tolerant_and_refused_when_strict() {
    let cases = [
        (
            r#"{"kind":"operation_cancelled","turn":1,"operation_id":"o","reason":"bored"}"#,
            "reason",
            "bored",
        ),
        (
            r#"{"kind":"tool_completed","turn":1,"results":[{"call_id":"c","output":"x","is_error":true,"error_kind":"sandbox_escape"}]}"#,
            "results[0].error_kind",
            "sandbox_escape",
        ),
        (
            r#"{"kind":"llm_completed","turn":1,"message":{"role":"critic","content":"x"}}"#,
            "message.role",
            "critic",
        ),
        (
            r#"{"kind":"memory_written","turn":1,"record_id":"m","scope":{"tenant_id":"t","namespace":"n"},"memory_kind":"episodic","name":"n","size_bytes":1}"#,
            "memory_kind",
            "episodic",
        ),
    ];
    for (text, field, value) in cases {
        let written = parse(text).to_json();
        assert!(written.contains(&format!("\"{value}\"")), "kept as written: {written}");
        let e = err(text);
        assert_eq!(e.field.as_deref(), Some(field), "{text}: {e:?}");
        assert!(e.message.contains("unknown variant"), "{text}: {}", e.message);
    }
    let SessionEvent::OperationCancelled(e) = parse(cases[0].0) else { panic!() };
    assert_eq!(e.reason, agent_replay::event::CancellationReason::Other("bored".into()));
}

/// The kernel types `responder` as a plain string: any value reads, strict
/// or not; the runtimes' values are named.
#[test]
fn any_responder_reads_in_both_modes() {
    use agent_replay::event::Responder;
    for (name, expected) in [
        ("user", Responder::User),
        ("policy_gate", Responder::PolicyGate),
        ("host", Responder::Host),
        ("permission_handler", Responder::PermissionHandler),
        ("auditor", Responder::Other("auditor".into())),
    ] {
        let text = format!(
            r#"{{"kind":"permission_resolved","turn":1,"approved":true,"responder":"{name}"}}"#
        );
        for event in [parse(&text), SessionEvent::from_json_strict(&text).unwrap()] {
            let SessionEvent::PermissionResolved(e) = &event else { panic!("{text}") };
            assert_eq!((&e.responder, e.responder.as_str()), (&expected, name));
            assert_eq!(event.to_json(), text);
        }
    }
}

/// JS round trips write big integers as decimal strings: tolerant reading
/// takes them back; the kernel (strict reading) refuses a string.
#[test]
fn a_u64_as_a_string_reads_only_when_tolerant() {
    let cases = [
        (
            r#"{"kind":"run_terminal","reason":"done","turns_used":1,"total_tokens":"18446744073709551615"}"#,
            "total_tokens",
        ),
        (r#"{"kind":"compressed","turn":1,"archived_seq_range":["1",2]}"#, "archived_seq_range[0]"),
        (
            r#"{"kind":"budget_usage_reported","turn":1,"operation_id":"o","reservation_id":"r","tokens":"7","subagents":0,"rounds":0}"#,
            "tokens",
        ),
    ];
    for (text, field) in cases {
        assert_eq!(parse(text).kind(), serde_json::from_str::<Value>(text).unwrap()["kind"]);
        let e = err(text);
        assert_eq!(e.field.as_deref(), Some(field), "{text}: {e:?}");
        assert!(e.message.contains("invalid type"), "{text}: {}", e.message);
    }
    let SessionEvent::RunTerminal(e) = parse(cases[0].0) else { panic!() };
    assert_eq!(e.total_tokens, u64::MAX);
    let number = r#"{"kind":"run_terminal","reason":"done","turns_used":1,"total_tokens":18446744073709551615}"#;
    assert!(SessionEvent::from_json_strict(number).is_ok());
}

/// The SDKs write `parent_task_id` and no `parent_session_id`; the kernel
/// requires `parent_session_id`.
#[test]
fn a_process_without_parent_session_id_reads_only_when_tolerant() {
    let text = r#"{"kind":"agent_process_changed","turn":0,"agent_id":"wf-node0","parent_task_id":"root","role":"explore","isolation":"readonly","context_inheritance":"systemonly","state":"running","permitted_capability_ids":[]}"#;
    let SessionEvent::AgentProcessChanged(e) = parse(text) else { panic!() };
    assert_eq!(
        (e.parent_session_id, e.parent_task_id.as_deref(), e.isolation.as_str()),
        (None, Some("root"), "readonly")
    );
    let e = err(text);
    assert_eq!((e.field.as_deref(), e.offset), (Some("parent_session_id"), text.len() - 1));
    assert!(e.message.starts_with("missing field"), "{e:?}");
    let core = text.replace(r#""parent_task_id":"root""#, r#""parent_session_id":"s""#);
    let SessionEvent::AgentProcessChanged(e) = SessionEvent::from_json_strict(&core).unwrap()
    else {
        panic!()
    };
    assert_eq!((e.parent_session_id.as_deref(), e.parent_task_id), (Some("s"), None));
}

/// Provider-native and opaque fields are carried as their exact text (never
/// parsed into a tree), inside tagged blocks, completions and memory records.
#[test]
fn opaque_fields_are_kept_as_written() {
    let options = r#"{"cache": [1, 2.50, {"ttl": "5m"}]}"#;
    let block = format!(
        r#"{{"type":"image","source":{{"kind":"url","url":"u"}},"provider_options":{options}}}"#
    );
    let tool = format!(
        r#"{{"kind":"tool_completed","turn":1,"results":[{{"call_id":"c","output":"x",
        "is_error":false,"durable_content":{{"blocks":[{block}]}}}}]}}"#
    );
    let replay = r#"{"kind":"llm_completed","turn":1,"message":{"role":"assistant","content":"",
        "tool_calls":[]},"provider_replay":{"protocol":"p","native_blocks":[{"b": 1.0}],
        "reasoning_details":{"r":[]},"native_message":null,"tool_calls":[{"id":"1"}]}}"#;
    let recall = r#"{"kind":"memory_retrieval_result","hits":[{"record":{"record_id":"r",
        "scope":{"tenant_id":"t","namespace":"n"},"name":"n","kind":"project","content":"c",
        "description":"d","provenance":{"author":"host","trust":"host_verified",
        "evidence_refs":[],"session_id":null},"created_at":1,"updated_at":1,
        "last_recalled_at":null,"recall_count":0,"confidence":1.0,
        "links":[{"to":"r2","weight": 0.50}],"pinned":false,"ttl_days":null},
        "score":0.85,"why":"w"}]}"#;
    let tool = parse(&tool).to_json();
    assert!(tool.contains(&format!(r#""provider_options":{options}"#)), "{tool}");
    let replay = parse(replay).to_json();
    for kept in [r#""native_blocks":[{"b": 1.0}]"#, r#""reasoning_details":{"r":[]}"#] {
        assert!(replay.contains(kept), "{replay}");
    }
    let recall = parse(recall).to_json();
    assert!(recall.contains(r#""links":[{"to":"r2","weight": 0.50}]"#), "{recall}");
}

/// Strict reading is deepstrike-core 0.2.60's: the kinds the runtime adds
/// are unknown to it, while tolerant reading types them.
#[test]
fn the_kinds_beyond_the_core_are_typed_only_when_tolerant() {
    for line in common::sample_lines() {
        let info = kind_info(parse(line).kind()).unwrap();
        let strict = SessionEvent::from_json_strict(line).unwrap();
        assert_eq!(matches!(strict, SessionEvent::Unknown(_)), !info.core, "{line}");
        assert_eq!(SessionEvent::reads_kind(info.kind, true), info.core);
        assert!(SessionEvent::reads_kind(info.kind, false));
    }
    // Their fields beyond what the view reads are carried, not checked.
    let attempt = r#"{"kind":"provider_attempt","effect_id":"e","status":"throttled","x":{"y":1}}"#;
    assert!(matches!(parse(attempt), SessionEvent::ProviderAttempt(_)));
    let paced = parse(r#"{"kind":"round_paced","round":1,"action":"stop","reason":"done"}"#);
    assert_eq!(paced.turn(), None);
    let e = SessionEvent::from_json(r#"{"kind":"prompt_measured","measurement":{}}"#).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("turn"), "a turned kind needs its turn: {e:?}");
}

/// The kind table's kernel category and primitive against the reference's
/// table of the 50 kinds (docs/spec/deepstrike-0.2.77.md, "The 50 kinds").
#[test]
fn the_kind_table_has_deepstrikes_category_and_primitive_for_all_50_kinds() {
    let reference = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/spec/deepstrike-0.2.77.md"),
    )
    .unwrap();
    let mut rows = std::collections::BTreeMap::new();
    for line in reference.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if let [_, n, kind, columns, ..] = cells[..] {
            if n.parse::<u32>().is_ok() {
                let (category, primitive) = columns.split_once(" / ").unwrap();
                rows.insert(kind.to_string(), (category.to_string(), primitive.to_string()));
            }
        }
    }
    assert_eq!(rows.len(), 50);
    for info in KIND_TABLE {
        let row: Value = serde_json::to_value(info).unwrap();
        let ours = (row["kernel_category"].as_str().unwrap(), row["primitive"].as_str().unwrap());
        let (category, primitive) = &rows[info.kind];
        assert_eq!(ours, (category.as_str(), primitive.as_str()), "{}", info.kind);
    }
    assert_eq!(KIND_TABLE.len(), rows.len());
}

#[test]
fn each_event_knows_its_place_in_the_kind_table() {
    for line in common::sample_lines() {
        let event = parse(line);
        assert_eq!(event.kind_index().map(|i| KINDS[i]), Some(event.kind()), "{line}");
    }
    let unknown = SessionEvent::from_json(r#"{"kind":"from_the_future"}"#).unwrap();
    assert_eq!(unknown.kind_index(), None);
}
