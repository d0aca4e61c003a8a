//! JS-safe JSON text: integers beyond ±(2^53-1) become strings, nothing
//! else moves; view records keep each event as written.

use agent_replay::json::{js_safe_text, to_js_json, to_js_json_within};
use agent_replay::state::SessionState;
use std::borrow::Cow;

#[test]
fn only_unsafe_integers_are_quoted_and_the_rest_stays_as_written() {
    let cases = [
        (r#"{"b":1,"a":9007199254740991}"#, r#"{"b":1,"a":9007199254740991}"#),
        (r#"{"b":1,"a":9007199254740992}"#, r#"{"b":1,"a":"9007199254740992"}"#),
        (
            r#"[-9007199254740993, 18446744073709551615, 123456789012345678901234567890]"#,
            r#"["-9007199254740993", "18446744073709551615", "123456789012345678901234567890"]"#,
        ),
        (
            r#"{"s":"12345678901234567890","f":12345678901234567890.5,"e":1234567890123456789e3}"#,
            r#"{"s":"12345678901234567890","f":12345678901234567890.5,"e":1234567890123456789e3}"#,
        ),
        (
            r#"{"esc":"a\"12345678901234567890\\","n": 99999999999999999 }"#,
            r#"{"esc":"a\"12345678901234567890\\","n": "99999999999999999" }"#,
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(js_safe_text(input), expected, "{input}");
    }
    assert!(matches!(js_safe_text(r#"{"a":1}"#), Cow::Borrowed(_)));
}

#[test]
fn integers_past_the_safe_range_are_written_as_strings() {
    let safe = (1u64 << 53) - 1;
    assert_eq!(
        to_js_json(&[safe, safe + 1, u64::MAX]),
        r#"[9007199254740991,"9007199254740992","18446744073709551615"]"#
    );
    let (low, high) = (-(safe as i64), safe as i64);
    assert_eq!(
        to_js_json(&[low, low - 1, high + 1, i64::MIN]),
        r#"[-9007199254740991,"-9007199254740992","9007199254740992","-9223372036854775808"]"#
    );
}

#[test]
fn view_records_keep_events_as_written() {
    let log = r#"{"kind":"page_out","turn":1,"message_count":2,"future_field":{"x":[1,2]}}
{"kind":"budget_usage_reported","turn":1,"operation_id":"o","reservation_id":"r","tokens":18446744073709551615,"subagents":0,"rounds":1}
"#;
    let mut state = SessionState::new(None);
    state.apply_str(log, Default::default()).unwrap();
    let view = state.view();
    assert_eq!(
        view.context.page_outs[0].event.get(),
        r#"{"kind":"page_out","turn":1,"message_count":2,"future_field":{"x":[1,2]}}"#
    );
    assert_eq!(
        view.budgets.usage[0].event.get(),
        r#"{"kind":"budget_usage_reported","turn":1,"operation_id":"o","reservation_id":"r","tokens":"18446744073709551615","subagents":0,"rounds":1}"#
    );
    assert!(to_js_json(view).contains(r#""future_field":{"x":[1,2]}"#));
}

#[test]
fn big_integers_written_as_strings_read_back() {
    // What this package writes for JavaScript folds again: parseLog's events
    // applied back, and a view restored from an observation.
    let log = r#"{"kind":"budget_usage_reported","turn":1,"operation_id":"o","reservation_id":"r","tokens":"18446744073709551615","subagents":0,"rounds":1}
{"kind":"compressed","turn":1,"archived_seq_range":["9007199254740993",4]}
{"kind":"memory_queried","turn":1,"scope":{"tenant_id":"t","namespace":"n"},"query":"q","requested_k":"9007199254740993","requires_async_response":false}
{"kind":"run_terminal","reason":"done","turns_used":1,"total_tokens":"18446744073709551615"}
"#;
    let mut state = SessionState::new(None);
    let report = state.apply_str(log, Default::default()).unwrap();
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(state.os_snapshot().budget_usage_reported.get(0).unwrap().tokens, u64::MAX);
    assert_eq!(state.view().total_tokens, u64::MAX);
    let restored = SessionState::from_view_json(&to_js_json(state.view())).unwrap();
    assert_eq!(to_js_json(restored.os_snapshot()), to_js_json(state.os_snapshot()));
    for bad in [r#""12x""#, r#""-1""#, "-1", "1.5"] {
        let text = format!(
            r#"{{"kind":"run_terminal","reason":"d","turns_used":1,"total_tokens":{bad}}}"#
        );
        assert!(agent_replay::SessionEvent::from_json(&text).is_err(), "{bad}");
    }
}

#[test]
fn output_within_a_budget_is_whole_or_none() {
    let small = vec!["x"; 10];
    let large: Vec<String> = (0..1000).map(|i| format!("value {i}")).collect();
    // What fits in the first buffer asks for no growth.
    assert_eq!(to_js_json_within(&small, |_| false), Some(to_js_json(&small)));
    assert_eq!(to_js_json_within(&large, |_| false), None);
    // Refused at some growth: nothing is returned, not a cut-off text.
    assert_eq!(to_js_json_within(&large, |grow| grow < 4096), None);
    assert_eq!(to_js_json_within(&large, |grow| grow <= 1 << 20), Some(to_js_json(&large)));
}

#[test]
fn the_writer_escapes_strings_and_nests_values_as_serde_json_does() {
    let texts = ["", "plain", "q\"b\\s/", "\n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f}", "é☃𝄞", "</script>"];
    for text in texts {
        assert_eq!(to_js_json(&text), serde_json::to_string(text).unwrap(), "{text:?}");
    }
    let map: std::collections::BTreeMap<String, Option<Vec<u32>>> =
        [("b\"".to_string(), Some(vec![1, 2])), ("a".to_string(), None)].into();
    let nested = (map.clone(), true, [-1i64], Box::new(String::from("x")));
    assert_eq!(to_js_json(&nested), serde_json::to_string(&nested).unwrap());
    assert_eq!(to_js_json(&Vec::<u64>::new()), "[]");
}

#[test]
fn the_kernel_snapshot_keeps_integers_past_the_safe_range_as_numbers() {
    let log = r#"{"kind":"budget_usage_reported","turn":1,"operation_id":"o","reservation_id":"r","tokens":18446744073709551615,"subagents":0,"rounds":1}"#;
    let mut state = SessionState::new(None);
    state.apply_str(log, Default::default()).unwrap();
    let snapshot = state.os_snapshot();
    assert!(snapshot.to_json().contains(r#""tokens":18446744073709551615,"#));
    assert!(to_js_json(snapshot).contains(r#""tokens":"18446744073709551615","#));
}

#[test]
fn the_kind_table_is_written_as_serde_writes_it() {
    use agent_replay::event::{Category, KIND_TABLE};
    assert_eq!(to_js_json(&KIND_TABLE), serde_json::to_string(KIND_TABLE).unwrap());
    assert_eq!(to_js_json(&Category::ALL), serde_json::to_string(Category::ALL).unwrap());
}
