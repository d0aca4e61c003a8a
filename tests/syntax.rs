//! The fast JSON syntax check, and its scan of an object's top-level `kind`
//! and `turn`, agree with serde_json on every input tried:
//! edge cases by hand, then thousands of random mutations of real events.

mod common;

use agent_replay::event::syntax::{is_valid_json, top_level};
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

fn serde_ok(text: &str) -> bool {
    serde_json::from_str::<IgnoredAny>(text).is_ok()
}

fn agree(text: &str) {
    assert_eq!(is_valid_json(text), serde_ok(text), "{text:?}");
    agree_on_members(text);
}

/// The top-level members of a JSON object as serde_json reads them: each
/// key decoded, each value as written.
fn members(text: &str) -> Option<Vec<(String, String)>> {
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = Vec<(String, String)>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some((key, value)) = map.next_entry::<String, Box<RawValue>>()? {
                out.push((key, value.get().to_string()));
            }
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let members = de.deserialize_map(Members).ok()?;
    de.end().ok().map(|()| members)
}

/// `top_level` answers only for what serde_json reads as an object, with
/// its members' `kind` and `turn`; it passes over an object only for a
/// key with an escape.
fn agree_on_members(text: &str) {
    let Some(members) = members(text) else {
        assert_eq!(top_level(text), None, "{text:?}");
        return;
    };
    let Some(top) = top_level(text) else {
        assert!(text.contains('\\'), "{text:?}");
        return;
    };
    let named = |name: &'static str| members.iter().filter(move |(k, _)| k == name).map(|(_, v)| v);
    let kind = named("kind").next().and_then(|v| v.strip_prefix('"')?.strip_suffix('"'));
    let turn = named("turn").next().filter(|v| v.bytes().all(|b| b.is_ascii_digit()));
    assert_eq!(top.kinds as usize, named("kind").count(), "{text:?}");
    assert_eq!(top.turns as usize, named("turn").count(), "{text:?}");
    assert_eq!(top.kind, kind.filter(|k| !k.contains('\\')), "{text:?}");
    assert_eq!(top.turn, turn.and_then(|t| t.parse().ok()), "{text:?}");
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
        "{\"turn\":1,\"x\":{\"kind\":\"y\"},\"kind\":\"page_in\",\"kind\":2}",
        "{\"turn\":-0,\"kind\":\"a\\\"b\"}",
        "{\"turn\":4294967296}",
        "{\"tur\\u006e\":1}",
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
