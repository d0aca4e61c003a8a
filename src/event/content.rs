//! Messages, content, tool calls and results: the nested types of the
//! conversation events (`llm_completed`, `tool_requested`, `tool_completed`).

use super::fields::table;
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

table!(
    Message<'a> {
        role: Role,
        content: Content<'a>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall<'a>> = default,
        #[serde(skip_serializing_if = "Option::is_none")]
        token_count: Option<u32> = default,
    }
);

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

table!(
    ToolCall<'a> {
        id: Str<'a>,
        name: Str<'a>,
        arguments: RawJson<'a>,
    }
);

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

table!(
    ToolResult<'a> {
        call_id: Str<'a>,
        output: Content<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        durable_content: Option<DurableContent<'a>> = default,
        is_error: bool,
        is_fatal: bool = default,
        #[serde(skip_serializing_if = "Option::is_none")]
        error_kind: Option<ErrorKind> = default,
        token_count: Option<u32> = default,
    }
);

table!(closed:
    /// Content a tool result keeps beyond the turn (closed: unknown fields are errors).
    DurableContent<'a> {
        blocks: Vec<DurableBlock<'a>>,
    }
);

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

table!(closed:
    FileAffinity<'a> {
        provider_id: Str<'a>,
        endpoint_id: Str<'a>,
    }
);

table!(closed:
    /// What a provider needs to replay a completion natively (closed).
    ProviderReplay<'a> {
        protocol: Str<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        provider: Option<Str<'a>> = default,
        #[serde(skip_serializing_if = "Option::is_none")]
        model: Option<Str<'a>> = default,
        #[serde(skip_serializing_if = "Option::is_none")]
        native_blocks: Option<Vec<RawJson<'a>>> = default,
        #[serde(skip_serializing_if = "Option::is_none")]
        reasoning_content: Option<Str<'a>> = default,
        #[serde(skip_serializing_if = "Option::is_none")]
        reasoning_details: Option<RawJson<'a>> = default,
        #[serde(skip_serializing_if = "Option::is_none")]
        native_message: Option<RawJson<'a>> = default,
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_calls: Option<Vec<RawJson<'a>>> = default,
    }
);
