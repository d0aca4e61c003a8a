//! Deserialization of the nested internally tagged enums (content parts,
//! durable blocks and their sources, rollback reasons) through flat "wire"
//! structs: the tag and every variant's fields in one struct, then the
//! variant built by hand. serde's derive for `#[serde(tag = ...)]` buffers
//! each object into an intermediate tree first; this reads it once and
//! keeps that machinery (15% of the .wasm) out of the binary. The wire
//! structs are read through the table (`fields::table!`), with every other
//! struct of the schema. Serialization stays derived on the enums themselves.

use super::fields::table;
use super::fields::{read_struct, Body, Finish, Object, Shape, Slots, Value};
use super::text::names;
use super::text::RawJson;

use super::content::{
    ContentPart, DurableBlock, DurableContent, FileAffinity, ImageDetail, MediaBlock, MediaSource,
};
use super::records::RollbackReason;
use super::Str;

/// `T` read as its wire type `W`, converted inside the object's own visit
/// (`fields::Finish`), so that serde_json places a conversion error at the
/// object's closing brace, as it does a derived struct's missing field: the
/// error's field path is then the object's (`parse::field_path`). serde's
/// `try_from` converts after the object is read, and its errors land where
/// the enclosing value ends.
macro_rules! via_wire {
    ($ty:ident, $wire:ident, $value:ident) => {
        impl<'a> Body<'a> for $ty<'a> {
            const SHAPE: Shape = converted(<$wire<'static> as Body<'static>>::SHAPE, |slots| {
                let value = $ty::try_from($wire::build(slots))?;
                slots.replace(Value::$value(Box::new(value)));
                Ok(())
            });

            fn build(slots: &mut Slots<'a>) -> Self {
                slots.next()
            }
        }

        impl<'de: 'a, 'a> serde::Deserialize<'de> for $ty<'a> {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                read_struct::<$ty<'de>, D>(d)
            }
        }
    };
}

/// A wire struct's shape, converted by `convert` once read; a value that is
/// not an object is refused with what `read_via_wire` expected before.
const fn converted(wire: Shape, convert: Finish) -> Shape {
    match wire {
        Shape::Object(object) => {
            Shape::Object(Object { expecting: "an object", finish: Some(convert), ..object })
        }
        Shape::Any => Shape::Any,
    }
}

via_wire!(ContentPart, ContentPartWire, Part);
via_wire!(DurableBlock, DurableBlockWire, Block);
via_wire!(MediaSource, MediaSourceWire, Source);
via_wire!(RollbackReason, RollbackReasonWire, Rollback);

/// serde's own wording, so error paths name the field.
fn missing(field: &str) -> String {
    format!("missing field `{field}`")
}

fn need<T>(value: Option<T>, field: &str) -> Result<T, String> {
    value.ok_or_else(|| missing(field))
}

/// For closed types: a field of another variant is an unknown field here.
fn only(present: &[(&str, bool)], allowed: &[&str]) -> Result<(), String> {
    match present.iter().find(|(name, is)| *is && !allowed.contains(name)) {
        Some((name, _)) => Err(format!("unknown field `{name}`")),
        None => Ok(()),
    }
}

pub enum PartType {
    Text,
    Image,
    Audio,
    ToolResult,
}

names!(PartType { Text = "text", Image = "image", Audio = "audio", ToolResult = "tool_result" });

table!(wire:
    ContentPartWire<'a> {
        tag as "type": PartType,
        text: Option<Str<'a>> = default,
        url: Option<Str<'a>> = default,
        data: Option<Str<'a>> = default,
        media_type: Option<Str<'a>> = default,
        detail: Option<ImageDetail> = default,
        call_id: Option<Str<'a>> = default,
        output: Option<Str<'a>> = default,
        is_error: Option<bool> = default,
        durable_content: Option<DurableContent<'a>> = default,
    }
);

impl<'a> TryFrom<ContentPartWire<'a>> for ContentPart<'a> {
    type Error = String;
    fn try_from(w: ContentPartWire<'a>) -> Result<Self, String> {
        Ok(match w.tag {
            PartType::Text => ContentPart::Text { text: need(w.text, "text")? },
            PartType::Image => ContentPart::Image {
                url: w.url,
                data: w.data,
                media_type: w.media_type,
                detail: w.detail,
            },
            PartType::Audio => ContentPart::Audio {
                data: need(w.data, "data")?,
                media_type: need(w.media_type, "media_type")?,
            },
            PartType::ToolResult => ContentPart::ToolResult {
                call_id: need(w.call_id, "call_id")?,
                output: need(w.output, "output")?,
                is_error: need(w.is_error, "is_error")?,
                durable_content: w.durable_content,
            },
        })
    }
}

pub enum BlockType {
    Text,
    Image,
    Audio,
    Video,
    File,
}

names!(BlockType { Text = "text", Image = "image", Audio = "audio", Video = "video", File = "file" });

table!(wire closed:
    DurableBlockWire<'a> {
        tag as "type": BlockType,
        text: Option<Str<'a>> = default,
        source: Option<MediaSource<'a>> = default,
        media_type: Option<Str<'a>> = default,
        provider_options: Option<RawJson<'a>> = default,
    }
);

impl<'a> TryFrom<DurableBlockWire<'a>> for DurableBlock<'a> {
    type Error = String;
    fn try_from(w: DurableBlockWire<'a>) -> Result<Self, String> {
        let present = [
            ("text", w.text.is_some()),
            ("source", w.source.is_some()),
            ("media_type", w.media_type.is_some()),
            ("provider_options", w.provider_options.is_some()),
        ];
        if let BlockType::Text = w.tag {
            only(&present, &["text"])?;
            return Ok(DurableBlock::Text { text: need(w.text, "text")? });
        }
        only(&present, &["source", "media_type", "provider_options"])?;
        let media = MediaBlock {
            source: need(w.source, "source")?,
            media_type: w.media_type,
            provider_options: w.provider_options,
        };
        Ok(match w.tag {
            BlockType::Image => DurableBlock::Image(media),
            BlockType::Audio => DurableBlock::Audio(media),
            BlockType::Video => DurableBlock::Video(media),
            BlockType::File | BlockType::Text => DurableBlock::File(media),
        })
    }
}

pub enum SourceKind {
    Url,
    Base64,
    FileId,
    Object,
}

names!(SourceKind { Url = "url", Base64 = "base64", FileId = "file_id", Object = "object" });

table!(wire closed:
    MediaSourceWire<'a> {
        kind: SourceKind,
        url: Option<Str<'a>> = default,
        data: Option<Str<'a>> = default,
        id: Option<Str<'a>> = default,
        affinity: Option<FileAffinity<'a>> = default,
        handle: Option<Str<'a>> = default,
        owner: Option<Str<'a>> = default,
        payload_ref: Option<Str<'a>> = default,
    }
);

impl<'a> TryFrom<MediaSourceWire<'a>> for MediaSource<'a> {
    type Error = String;
    fn try_from(w: MediaSourceWire<'a>) -> Result<Self, String> {
        let present = [
            ("url", w.url.is_some()),
            ("data", w.data.is_some()),
            ("id", w.id.is_some()),
            ("affinity", w.affinity.is_some()),
            ("handle", w.handle.is_some()),
            ("owner", w.owner.is_some()),
            ("payload_ref", w.payload_ref.is_some()),
        ];
        Ok(match w.kind {
            SourceKind::Url => {
                only(&present, &["url"])?;
                MediaSource::Url { url: need(w.url, "url")? }
            }
            SourceKind::Base64 => {
                only(&present, &["data"])?;
                MediaSource::Base64 { data: need(w.data, "data")? }
            }
            SourceKind::FileId => {
                only(&present, &["id", "affinity"])?;
                MediaSource::FileId {
                    id: need(w.id, "id")?,
                    affinity: need(w.affinity, "affinity")?,
                }
            }
            SourceKind::Object => {
                only(&present, &["handle", "owner", "payload_ref"])?;
                MediaSource::Object {
                    handle: need(w.handle, "handle")?,
                    owner: need(w.owner, "owner")?,
                    payload_ref: need(w.payload_ref, "payload_ref")?,
                }
            }
        })
    }
}

pub enum RollbackKind {
    FatalToolError,
    GovernanceDenied,
    ProviderFailure,
    Timeout,
    UserInterrupt,
    MalformedReplay,
}

names!(RollbackKind { FatalToolError = "fatal_tool_error", GovernanceDenied = "governance_denied", ProviderFailure = "provider_failure", Timeout = "timeout", UserInterrupt = "user_interrupt", MalformedReplay = "malformed_replay" });

table!(wire:
    RollbackReasonWire<'a> {
        kind: RollbackKind,
        tool_name: Option<Str<'a>> = default,
        error: Option<Str<'a>> = default,
        reason: Option<Str<'a>> = default,
    }
);

impl<'a> TryFrom<RollbackReasonWire<'a>> for RollbackReason<'a> {
    type Error = String;
    fn try_from(w: RollbackReasonWire<'a>) -> Result<Self, String> {
        Ok(match w.kind {
            RollbackKind::FatalToolError => RollbackReason::FatalToolError {
                tool_name: need(w.tool_name, "tool_name")?,
                error: need(w.error, "error")?,
            },
            RollbackKind::GovernanceDenied => RollbackReason::GovernanceDenied {
                tool_name: need(w.tool_name, "tool_name")?,
                reason: need(w.reason, "reason")?,
            },
            RollbackKind::ProviderFailure => {
                RollbackReason::ProviderFailure { error: need(w.error, "error")? }
            }
            RollbackKind::Timeout => RollbackReason::Timeout,
            RollbackKind::UserInterrupt => RollbackReason::UserInterrupt,
            RollbackKind::MalformedReplay => {
                RollbackReason::MalformedReplay { reason: need(w.reason, "reason")? }
            }
        })
    }
}
