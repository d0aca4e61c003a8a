//! Parsing one event from its JSON text. The kind is read first (a byte
//! scan when `"kind"` is the first key, as the kernel writes it), then the
//! body is deserialized straight from the text: no intermediate tree.

use serde::de::IgnoredAny;
use serde::Deserialize;

use super::syntax::TopLevel;
use super::{SessionEvent, Str, UnknownEvent};

/// Why one event's text is not a valid event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventError {
    /// What is wrong, without position.
    pub message: String,
    /// Byte offset in the event text where the parser stopped.
    pub offset: usize,
    /// The top-level field at fault, where one is.
    pub field: Option<String>,
    /// The event's kind, when it could be read.
    pub kind: Option<String>,
    /// Syntax, end of input, or a well-formed value of the wrong shape.
    pub class: serde_json::error::Category,
}

impl<'a> SessionEvent<'a> {
    /// Parses one event tolerantly: open to what newer runtimes write (an
    /// enum value this version does not know is kept as written, a u64 may
    /// be a decimal string, a process may name `parent_task_id` instead of
    /// `parent_session_id`). Unknown kinds become `SessionEvent::Unknown`.
    pub fn from_json(text: &'a str) -> Result<Self, EventError> {
        Self::read(text, false, None)
    }

    /// Parses one event as deepstrike-core 0.2.60 does, no more, no less:
    /// unknown values of the enums it types are errors, a u64 must be a
    /// number, and `agent_process_changed` needs its `parent_session_id`.
    /// Unknown kinds still become `SessionEvent::Unknown` (the caller decides).
    pub fn from_json_strict(text: &'a str) -> Result<Self, EventError> {
        Self::read(text, true, None)
    }

    /// `deferred`: see `read_fast` (one call of it, so that it stays
    /// inlined here, the event not copied out of a pair).
    fn read(text: &'a str, strict: bool, deferred: Option<&mut bool>) -> Result<Self, EventError> {
        match Self::read_fast(text, strict, deferred) {
            Some(event) => Ok(event),
            None => Self::parse_kind_and_body(read_kind(text)?, text, strict),
        }
    }

    /// `from_json`, but an event of a kind whose body no fold reads is
    /// taken from the scan of its syntax, kind and turn: the `skeleton` of
    /// its kind, its fields' types not checked (`deferred` set), for a
    /// full read later (the paged index's deferred check). What the scan
    /// cannot vouch for (a turn that is not one plain `u32`, a second
    /// `kind`) is read in full.
    pub fn from_json_deferring(text: &'a str, deferred: &mut bool) -> Result<Self, EventError> {
        Self::read(text, false, Some(deferred))
    }

    /// The event, read without the kind's probe parse: its kind leads the
    /// text or is the first top-level `kind` (`first_kind`). An event whose
    /// body is its turn or nothing (`BareBody`) or whose kind is not read
    /// is taken from `top_level`'s scan, not deserialized. Any other is
    /// deserialized once: its parse checks the text past that first `kind`
    /// and counts the keys `kind` no struct reads (a kind that does not
    /// lead must be the only one). `None` for anything the scans cannot
    /// vouch for and for every error: the full path then reads it, and
    /// says what is wrong. So the result is always the full path's. With
    /// `deferred`, a kind with a skeleton is taken from the scan too, its
    /// skeleton given and `deferred` set (`from_json_deferring`).
    fn read_fast(text: &'a str, strict: bool, deferred: Option<&mut bool>) -> Option<Self> {
        let leading = scan_leading_kind(text);
        let kind = leading.or_else(|| super::syntax::first_kind(text))?;
        let read = super::kind_place(kind)
            .filter(|&i| super::KIND_TABLE.get(i).is_some_and(|info| info.core || !strict));
        let bare = match read {
            Some(index) => match super::BareBody::of(index) {
                Some(body) => Some(body),
                None if deferred.is_some() && SessionEvent::skeleton(index, 0).is_some() => {
                    let top = super::syntax::top_level(text)?;
                    let once = leading.is_some() || top.kinds == 1;
                    let skeleton = SessionEvent::skeleton(index, top.unique_turn()?);
                    let skeleton = skeleton.filter(|_| once)?;
                    if let Some(deferred) = deferred {
                        *deferred = true;
                    }
                    return Some(skeleton);
                }
                None => {
                    super::text::take_kind_keys();
                    let event = Self::parse_kind_and_body(Str::from(kind), text, strict).ok();
                    // A kind that does not lead is the only one, or the
                    // probe would refuse a duplicate field.
                    let once = leading.is_some() || super::text::take_kind_keys() == 1;
                    return event.filter(|_| once);
                }
            },
            None => None,
        };
        let top = super::syntax::top_level(text)?;
        if leading.is_none() && top.kinds != 1 {
            return None;
        }
        match bare {
            Some(body) => body.event(top.unique_turn()),
            None => Some(SessionEvent::Unknown(UnknownEvent { kind: Str::from(kind), json: text })),
        }
    }

    /// Parses one event if `wanted(kind)` (strictly or not); other events
    /// are only checked to be well-formed JSON and give `None` (a fold that
    /// ignores them need not pay for building them).
    pub fn from_json_if(
        text: &'a str,
        strict: bool,
        wanted: &dyn Fn(&str) -> bool,
    ) -> Result<Option<Self>, EventError> {
        let (kind, checked) = match scan_kind(text) {
            Some((kind, scanned)) => (Str::from(kind), scanned.is_some()),
            None => (probe_kind(text)?, false),
        };
        if !wanted(&kind) {
            if !checked && !super::syntax::is_valid_json(text) {
                // serde_json says exactly what and where.
                super::objects::from_str::<IgnoredAny>(text)
                    .map_err(|e| EventError::from_serde(text, &e))?;
            }
            return Ok(None);
        }
        Self::parse_kind_and_body(kind, text, strict).map(Some)
    }

    fn parse_kind_and_body(kind: Str<'a>, text: &'a str, strict: bool) -> Result<Self, EventError> {
        match super::text::reading(strict, || SessionEvent::parse_body(&kind, text)) {
            Some(Ok(event)) => match event.missing_in_strict().filter(|_| strict) {
                None => Ok(event),
                Some(field) => Err(missing_field(text, kind, field)),
            },
            Some(Err(e)) => Err(EventError {
                kind: Some(kind.into_owned()),
                ..EventError::from_serde(text, &e)
            }),
            None => {
                super::objects::from_str::<IgnoredAny>(text)
                    .map_err(|e| EventError::from_serde(text, &e))?;
                Ok(SessionEvent::Unknown(UnknownEvent { kind, json: text }))
            }
        }
    }
}

impl SessionEvent<'_> {
    /// A field deepstrike-core 0.2.60 requires that tolerant reading lets
    /// newer runtimes leave out.
    fn missing_in_strict(&self) -> Option<&'static str> {
        match self {
            SessionEvent::AgentProcessChanged(e) if e.parent_session_id.is_none() => {
                Some("parent_session_id")
            }
            _ => None,
        }
    }
}

/// serde's error for a missing field, placed as serde places it: at the
/// event's closing brace.
fn missing_field(text: &str, kind: Str<'_>, field: &str) -> EventError {
    EventError {
        message: format!("missing field `{field}`"),
        offset: text.rfind('}').unwrap_or(0),
        field: Some(field.to_string()),
        kind: Some(kind.into_owned()),
        class: serde_json::error::Category::Data,
    }
}

/// The kind: by a byte scan when it leads, else by a probe parse.
fn read_kind(text: &str) -> Result<Str<'_>, EventError> {
    match scan_leading_kind(text) {
        Some(kind) => Ok(Str::from(kind)),
        None => probe_kind(text),
    }
}

/// The kind by a scan, when one finds it: leading the text, or else the
/// only top-level `kind`, found by a scan that also checked the syntax (and
/// is given back). `None` leaves it to the probe.
fn scan_kind(text: &str) -> Option<(&str, Option<TopLevel<'_>>)> {
    if let Some(kind) = scan_leading_kind(text) {
        return Some((kind, None));
    }
    let top = super::syntax::top_level(text)?;
    Some((top.unique_kind()?, Some(top)))
}

/// `{"kind":"name"` at the start (whitespace allowed), with no escapes in
/// the name: the kernel's own layout, recognised without a parser.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "`i`, `start` and `plain` are offsets in `text`, held in memory, plus a few bytes"
)]
fn scan_leading_kind(text: &str) -> Option<&str> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i..i + 6)? != b"\"kind\"" {
        return None;
    }
    i = skip_ws(b, i + 6);
    if b.get(i) != Some(&b':') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let start = i + 1;
    // The bytes before the first `"`, `\` or control character are neither.
    let plain = super::syntax::skip_plain(b, start);
    let end = plain + b.get(plain..)?.iter().position(|&c| c == b'"' || c == b'\\')?;
    if b.get(end) != Some(&b'"') {
        return None;
    }
    text.get(start..end)
}

#[allow(clippy::arithmetic_side_effects, reason = "`b[i]` exists: `i + 1 <= b.len()`")]
fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

#[derive(Deserialize)]
#[serde(bound(deserialize = "'de: 'a"))]
struct KindProbe<'a> {
    kind: Str<'a>,
}

fn probe_kind(text: &str) -> Result<Str<'_>, EventError> {
    serde_json::from_str::<KindProbe>(text)
        .map(|p| p.kind)
        .map_err(|e| EventError::from_serde(text, &e))
}

impl EventError {
    pub(crate) fn from_serde(text: &str, err: &serde_json::Error) -> Self {
        let full = err.to_string();
        let message = match full.rsplit_once(" at line ") {
            Some((message, _)) => message.to_string(),
            None => full,
        };
        let offset = offset_of(text, err.line(), err.column());
        let field = field_path(text, offset, &message);
        EventError { message, offset, field, kind: None, class: err.classify() }
    }
}

/// Byte offset of serde_json's 1-based line and column (column counts bytes).
/// An error serde_json could not place has line and column 0: offset 0.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "`start` is an offset in `text` and `column` one in its line, held in memory"
)]
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text.get(start..).and_then(|t| t.find('\n')) {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    (start + column.saturating_sub(1)).min(text.len())
}

/// The field serde names in "missing field `x`" / "unknown field `x`".
fn quoted_field(message: &str) -> Option<(&str, bool)> {
    if let Some(rest) = message.strip_prefix("missing field `") {
        return Some((rest.get(..rest.find('`')?)?, true));
    }
    let rest = message.strip_prefix("unknown field `")?;
    Some((rest.get(..rest.find('`')?)?, false))
}

/// An open container while the text is walked: an object with the key of
/// the member being read, or an array with the index of its element.
enum Frame {
    Object(Option<String>),
    Array(usize),
}

/// The path (`results[0].is_error`) of the field at fault: the JSON text is
/// walked up to the error offset, tracking keys and array indices.
///
/// serde_json places an error at the last byte it read. An error of a value
/// lands on the value, or on the byte before it when the value is a
/// container: the walk goes through that byte. An error raised after a
/// value was read whole (one read raw, then checked) lands on the comma
/// after it: the walk stops before that comma, in the value's member. An
/// error raised as a container closes lands on its closing bracket: the
/// walk stops before it,
/// leaving that container open. There a named field (serde's missing field,
/// any error of a `tagged::read_via_wire` type) is the object's own field;
/// otherwise the container's last member is at fault (a value that failed
/// after it was read, like an unknown name).
fn field_path(text: &str, offset: usize, message: &str) -> Option<String> {
    let named = quoted_field(message);
    let byte = text.as_bytes().get(offset);
    let at_close = matches!(byte, Some(b'}' | b']'));
    let end = if at_close || byte == Some(&b',') { offset } else { through(offset) };
    let mut stack = open_containers(text, end)?;
    let field_of_top =
        at_close && named.is_some() && matches!(stack.last(), Some(Frame::Object(_)));
    if field_of_top {
        // The object's own field, not the member last read in it.
        stack.pop();
    }
    let mut path = String::new();
    for (depth, frame) in stack.iter().enumerate() {
        match frame {
            Frame::Object(Some(key)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::Array(n) if depth > 0 => path.push_str(&format!("[{n}]")),
            _ => {}
        }
    }
    if let Some((name, _)) = named.filter(|&(_, missing)| missing || field_of_top) {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(name);
    }
    (!path.is_empty()).then_some(path)
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "an offset into a text held in memory is below isize::MAX"
)]
fn through(offset: usize) -> usize {
    offset + 1
}

/// The containers open after the first `end` bytes of `text`, outermost
/// first; `None` if a key there is not a valid JSON string.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "`i` steps through a text held in memory, at most two bytes past its end; \
              an array index counts its commas"
)]
fn open_containers(text: &str, end: usize) -> Option<Vec<Frame>> {
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < end {
        let Some(&c) = b.get(i) else { break };
        match c {
            b'{' => stack.push(Frame::Object(None)),
            b'[' => stack.push(Frame::Array(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array(n)) => *n += 1,
                Some(Frame::Object(key)) => *key = None,
                None => {}
            },
            b'"' => {
                let start = i;
                i += 1;
                while let Some(&c) = b.get(i).filter(|&&c| c != b'"') {
                    i += if c == b'\\' { 2 } else { 1 };
                }
                if let Some(Frame::Object(key @ None)) = stack.last_mut() {
                    *key = super::objects::from_str(text.get(start..=i)?).ok();
                }
            }
            _ => {}
        }
        i += 1;
    }
    Some(stack)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::syntax::is_valid_json;
    use crate::generate::{generate_jsonl, SAMPLE_JSONL};

    /// The full path alone: the kind read (probed when it does not lead),
    /// then the body deserialized.
    fn full(text: &str, strict: bool) -> Result<SessionEvent<'_>, EventError> {
        SessionEvent::parse_kind_and_body(read_kind(text)?, text, strict)
    }

    /// `from_json_if` by the full path: the kind read, an event not wanted
    /// checked as JSON.
    fn full_if<'a>(
        text: &'a str,
        strict: bool,
        wanted: &dyn Fn(&str) -> bool,
    ) -> Result<Option<SessionEvent<'a>>, EventError> {
        let kind = read_kind(text)?;
        if !wanted(&kind) {
            if !is_valid_json(text) {
                super::super::objects::from_str::<IgnoredAny>(text)
                    .map_err(|e| EventError::from_serde(text, &e))?;
            }
            return Ok(None);
        }
        SessionEvent::parse_kind_and_body(kind, text, strict).map(Some)
    }

    /// Events of the kinds read from a scan (`BareBody`) and of others, the
    /// kind leading or not, as the runtimes write them.
    fn events() -> Vec<String> {
        let mut lines: Vec<String> = SAMPLE_JSONL.lines().map(String::from).collect();
        lines.extend(generate_jsonl(5, 60_000).lines().map(String::from));
        for kind in ["context_prepared", "kernel_observation", "workflow_completed"] {
            lines.push(format!(r#"{{"kind":"{kind}","turn":3,"raw":{{"a":[1,"x"]}}}}"#));
            lines.push(format!(r#"{{"effect_id":"e","kind":"{kind}","turn":0}}"#));
            lines.push(format!(r#"{{"turn":4294967295,"x":null,"kind":"{kind}"}}"#));
        }
        for kind in ["provider_attempt", "round_started", "semantic_archive_failed", "future"] {
            lines.push(format!(r#"{{"kind":"{kind}","round":2,"goal":"g"}}"#));
            lines.push(format!(r#"{{"attempt_seq":1,"kind":"{kind}","status":"ok"}}"#));
        }
        lines
    }

    /// What a mutation inserts after a `{` or a `,`: members that make a
    /// scan's answer differ from a parse's if it were careless.
    const MEMBERS: [&str; 15] = [
        r#""kind":"context_prepared","#,
        r#""kind":"provider_attempt","#,
        r#""kind":"page_in","#,
        r#""kind":5,"#,
        r#""kind":"a\"b","#,
        r#""\u006bind":"round_paced","#,
        r#""turn":7,"#,
        r#""turn":-0,"#,
        r#""turn":-3,"#,
        r#""turn":1.0,"#,
        r#""turn":1e1,"#,
        r#""turn":4294967296,"#,
        r#""turn":"2","#,
        r#""tur\u006e":3,"#,
        r#""x":[{"kind":"y","turn":1}],"#,
    ];

    fn mutate(text: &str, rng: &mut u64) -> String {
        let mut next = |n: usize| {
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            (*rng % n.max(1) as u64) as usize
        };
        let mut bytes = text.as_bytes().to_vec();
        let at = next(bytes.len() + 1);
        match next(4) {
            0 => {
                let opens: Vec<usize> =
                    (0..bytes.len()).filter(|&i| b"{,".contains(&bytes[i])).collect();
                let at = opens.get(next(opens.len())).map_or(0, |i| i + 1);
                let member = MEMBERS[next(MEMBERS.len())].as_bytes();
                bytes.splice(at..at, member.iter().copied());
            }
            1 if at < bytes.len() => {
                bytes.remove(at);
            }
            2 => bytes.insert(at, b"{}[]\":,\\-0159.e tnu"[next(19)]),
            _ => bytes.truncate(at),
        }
        String::from_utf8(bytes).unwrap_or_default()
    }

    #[test]
    fn a_leading_kind_is_found_as_a_plain_search_finds_it() {
        // The name up to the first `"` or `\`, one byte at a time.
        fn plain(text: &str) -> Option<&str> {
            let mut rest = text;
            for token in ["{", "\"kind\"", ":", "\""] {
                rest = rest.trim_start_matches([' ', '\t', '\n', '\r']).strip_prefix(token)?;
            }
            let end = rest.find(['"', '\\'])?;
            rest[end..].starts_with('"').then(|| &rest[..end])
        }
        let mut rng = 99;
        let mut texts = events();
        let more: Vec<String> = texts.iter().map(|t| mutate(t, &mut rng)).collect();
        texts.extend(more);
        // Each byte that ends or breaks a plain run, at each offset of a
        // name longer than a word.
        for at in 0..20 {
            for byte in ["\"", "\\", "\u{1}", "\n", "\u{7f}", "\u{e9}"] {
                let name = format!("{}{byte}{}", "a".repeat(at), "b".repeat(20 - at));
                texts.push(format!(r#"{{"kind":"{name}","turn":1}}"#));
            }
        }
        let found = texts.iter().filter(|t| plain(t).is_some()).count();
        assert!(found > 300, "{found}");
        for text in &texts {
            assert_eq!(scan_leading_kind(text), plain(text), "{text}");
        }
    }

    #[test]
    fn reading_from_a_scan_gives_what_the_full_path_gives() {
        let mut rng = 12345;
        let mut texts = events();
        // Each round mutates every text so far once more, up to 20,000.
        for _ in 0..6 {
            let more: Vec<String> = texts.iter().map(|t| mutate(t, &mut rng)).collect();
            texts.extend(more.into_iter().take(20_000 - texts.len().min(20_000)));
        }
        let snapshot = |kind: &str| crate::snapshot::folds(kind);
        let (mut read, mut refused, mut deferred_refusals) = (0, 0, 0);
        for text in &texts {
            for strict in [false, true] {
                let got = SessionEvent::read(text, strict, None);
                assert_eq!(got, full(text, strict), "{text}");
                // Deferring: the full read's event, or a skeleton of its
                // kind and turn (only of a kind that has one) that the full
                // read may refuse later.
                let mut deferred = false;
                let lazy = SessionEvent::from_json_deferring(text, &mut deferred);
                match (lazy.map(|e| (e, deferred)), full(text, false)) {
                    (Ok((skeleton, true)), full) => {
                        let (kind, turn) = (skeleton.kind_index().unwrap(), skeleton.turn());
                        assert_eq!(SessionEvent::skeleton(kind, turn.unwrap()), Some(skeleton));
                        if let Ok(full) = full {
                            assert_eq!((full.kind_index(), full.turn()), (Some(kind), turn));
                        } else {
                            deferred_refusals += 1;
                        }
                    }
                    (Ok((event, false)), full) => assert_eq!(Ok(event), full, "{text}"),
                    (Err(e), full) => assert_eq!(Err(e), full, "{text}"),
                }
                if got.is_ok() {
                    read += 1
                } else {
                    refused += 1
                }
                let got_if = SessionEvent::from_json_if(text, strict, &snapshot);
                assert_eq!(got_if, full_if(text, strict, &snapshot), "{text}");
                let none = SessionEvent::from_json_if(text, strict, &|_| false);
                assert_eq!(none, full_if(text, strict, &|_| false), "{text}");
            }
        }
        assert!(read > 5000 && refused > 5000, "{read} read, {refused} refused");
        assert!(deferred_refusals > 20, "{deferred_refusals} refused after a deferral");
    }
}
