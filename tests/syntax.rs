//! The fast JSON syntax check agrees with serde_json on every input tried:
//! edge cases by hand, then thousands of random mutations of real events.

mod common;

use agent_replay::event::syntax::is_valid_json;
use serde::de::IgnoredAny;

fn serde_ok(text: &str) -> bool {
    serde_json::from_str::<IgnoredAny>(text).is_ok()
}

fn agree(text: &str) {
    assert_eq!(is_valid_json(text), serde_ok(text), "{text:?}");
}

#[test]
fn edge_cases_agree_with_serde_json() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let deep_obj = |n: usize| format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n));
    for case in [
        "",
        " ",
        "{}",
        "[]",
        "{ }",
        "[ ]",
        " {} ",
        "{}x",
        "{} {}",
        "{,}",
        "[,]",
        "[1,]",
        "{\"a\":1,}",
        "{\"a\"}",
        "{\"a\":}",
        "{a:1}",
        "{\"a\" 1}",
        "[1 2]",
        "\"abc",
        "\"a\\\"b\"",
        "\"\\u00e9\"",
        "\"\\u00g9\"",
        "\"\\x\"",
        "\"\\ud800\"",
        "\"\\udc00\"",
        "\"\\ud800\\udc00\"",
        "\"tab\there\"",
        "\"nl\nhere\"",
        "\"\u{7f}\"",
        "\"é ☃ 😀\"",
        "0",
        "-0",
        "01",
        "-",
        "1.",
        "1.5",
        ".5",
        "1e5",
        "1E+5",
        "1e-5",
        "1e",
        "1e+",
        "-1.5e-3",
        "2.",
        "00",
        "1.0e",
        "true",
        "false",
        "null",
        "tru",
        "nul",
        "True",
        "truex",
        "[true,false,null]",
        "{\"k\":[{\"x\":[]}]}",
        "{\"kind\":\"page_in\",\"turn\":1}",
        "{\"kind\":\"page_in\",\"turn\":1",
        "\u{feff}{}",
        "\r\n{}\r\n",
        "[1]\0",
        "\"12345678\"",
        "\"1234567\\\"\"",
        "\"12345678\\n1234567\"",
        "\"1234567\u{1}\"",
    ] {
        agree(case);
    }
    for n in [1, 2, 126, 127, 128, 129, 130, 300] {
        agree(&deep(n));
        agree(&deep_obj(n));
    }
}

#[test]
fn random_mutations_of_real_events_agree_with_serde_json() {
    let mut rng = common::Rng(7);
    let mut lines: Vec<String> = common::sample_lines().iter().map(|l| l.to_string()).collect();
    lines.extend(agent_replay::generate::generate_jsonl(3, 20_000).lines().map(String::from));
    let alphabet = b"{}[]\":,\\ntrue-0123456789.eE+ \t\r\nu/\x01";
    let mut checked = 0;
    for _ in 0..1500 {
        for line in &lines {
            let mut bytes = line.clone().into_bytes();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(bytes.len() as u64 + 1) as usize;
                match rng.below(4) {
                    0 if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    1 => bytes.insert(at, alphabet[rng.below(alphabet.len() as u64) as usize]),
                    2 if at < bytes.len() => {
                        bytes[at] = alphabet[rng.below(alphabet.len() as u64) as usize]
                    }
                    _ => bytes.truncate(at),
                }
            }
            if let Ok(text) = String::from_utf8(bytes) {
                agree(&text);
                checked += 1;
            }
        }
    }
    assert!(checked > 100_000, "{checked}");
}
