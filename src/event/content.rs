//! Messages, content, tool calls and results: the nested types of the
//! conversation events (`llm_completed`, `tool_requested`, `tool_completed`).

use super::text::names;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::{Serialize, Serializer};

use super::{RawJson, Str};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
    /// A value this version does not know, as written (refused when strict).
    Other(String),
}

names!(open Role, strict_refuses: true { System = "system", User = "user", Assistant = "assistant", Tool = "tool" });

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(bound(deserialize = "'de: 'a"))]
pub struct Message<'a> {
    pub role: Role,
    pub content: Content<'a>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_count: Option<u32>,
}

/// Text, or a list of typed parts. Deserialized by hand (not `untagged`)
/// so the common string case never buffers.
#[derive(Debug, Clone, PartialEq)]
pub enum Content<'a> {
    Text(Str<'a>),
    Parts(Vec<ContentPart<'a>>),
}

impl Content<'_> {
    /// The readable text: the string, or the text parts joined by newlines.
    pub fn text(&self) -> String {
        match self {
            Content::Text(s) => s.to_string(),
            Content::Parts(parts) => {
                let mut out = String::new();
                for part in parts {
                    let piece = match part {
                        ContentPart::Text { text } => text.as_str(),
                        ContentPart::ToolResult { output, .. } => output.as_str(),
                        ContentPart::Image { .. } => "[image]",
                        ContentPart::Audio { .. } => "[audio]",
                    };
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    out.push_str(piece);
                }
                out
            }
        }
    }
}

impl Serialize for Content<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Content::Text(t) => t.serialize(s),
            Content::Parts(p) => p.serialize(s),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ContentVisitor;
        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = Content<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of content parts")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Str::from(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Str::from(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Str::from(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(part) = seq.next_element()? {
                    parts.push(part);
                }
                Ok(Content::Parts(parts))
            }
        }
        d.deserialize_any(ContentVisitor)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageDetail {
    Auto,
    Low,
    High,
    /// A value this version does not know, as written (refused when strict).
    Other(String),
}

names!(open ImageDetail, strict_refuses: true { Auto = "auto", Low = "low", High = "high" });

/// Deserialized through `tagged::ContentPartWire`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart<'a> {
    Text {
        text: Str<'a>,
    },
    Image {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<Str<'a>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<Str<'a>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        media_type: Option<Str<'a>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<ImageDetail>,
    },
    Audio {
        data: Str<'a>,
        media_type: Str<'a>,
    },
    ToolResult {
        call_id: Str<'a>,
        output: Str<'a>,
        is_error: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        durable_content: Option<DurableContent<'a>>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(bound(deserialize = "'de: 'a"))]
pub struct ToolCall<'a> {
    pub id: Str<'a>,
    pub name: Str<'a>,
    pub arguments: RawJson<'a>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    Recoverable,
    Fatal,
    GovernanceDenied,
    ProviderFailure,
    Timeout,
    UserInterrupt,
    /// A value this version does not know, as written (refused when strict).
    Other(String),
}

names!(open ErrorKind, strict_refuses: true { Recoverable = "recoverable", Fatal = "fatal", GovernanceDenied = "governance_denied", ProviderFailure = "provider_failure", Timeout = "timeout", UserInterrupt = "user_interrupt" });

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(bound(deserialize = "'de: 'a"))]
pub struct ToolResult<'a> {
    pub call_id: Str<'a>,
    pub output: Content<'a>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub durable_content: Option<DurableContent<'a>>,
    pub is_error: bool,
    #[serde(default)]
    pub is_fatal: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<ErrorKind>,
    #[serde(default)]
    pub token_count: Option<u32>,
}

/// Content a tool result keeps beyond the turn (closed: unknown fields are errors).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'a"))]
pub struct DurableContent<'a> {
    pub blocks: Vec<DurableBlock<'a>>,
}

/// Deserialized through `tagged::DurableBlockWire`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DurableBlock<'a> {
    Text { text: Str<'a> },
    Image(MediaBlock<'a>),
    Audio(MediaBlock<'a>),
    Video(MediaBlock<'a>),
    File(MediaBlock<'a>),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MediaBlock<'a> {
    pub source: MediaSource<'a>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<Str<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_options: Option<RawJson<'a>>,
}

/// Deserialized through `tagged::MediaSourceWire`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MediaSource<'a> {
    Url { url: Str<'a> },
    Base64 { data: Str<'a> },
    FileId { id: Str<'a>, affinity: FileAffinity<'a> },
    Object { handle: Str<'a>, owner: Str<'a>, payload_ref: Str<'a> },
}

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'a"))]
pub struct FileAffinity<'a> {
    pub provider_id: Str<'a>,
    pub endpoint_id: Str<'a>,
}

/// What a provider needs to replay a completion natively (closed).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'a"))]
pub struct ProviderReplay<'a> {
    pub protocol: Str<'a>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<Str<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<Str<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_blocks: Option<Vec<RawJson<'a>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<Str<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_details: Option<RawJson<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_message: Option<RawJson<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<RawJson<'a>>>,
}
