//! Nested types of the kernel OS events: cancellation and rollback reasons,
//! and the closed memory types.

use super::text::names;
use super::text::RawJson;
use serde::{Deserialize, Serialize};

use super::Str;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CancellationReason {
    User,
    Deadline,
    LeaseLost,
    HostShutdown,
    /// A value this version does not know, as written (refused when strict).
    Other(String),
}

names!(open CancellationReason, strict_refuses: true { User = "user", Deadline = "deadline", LeaseLost = "lease_lost", HostShutdown = "host_shutdown" });

/// Deserialized through `tagged::RollbackReasonWire`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RollbackReason<'a> {
    FatalToolError { tool_name: Str<'a>, error: Str<'a> },
    GovernanceDenied { tool_name: Str<'a>, reason: Str<'a> },
    ProviderFailure { error: Str<'a> },
    Timeout,
    UserInterrupt,
    MalformedReplay { reason: Str<'a> },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'a"))]
pub struct MemoryScope<'a> {
    pub tenant_id: Str<'a>,
    pub namespace: Str<'a>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryKind {
    User,
    Feedback,
    Project,
    Reference,
    /// A value this version does not know, as written (refused when strict).
    Other(String),
}

names!(open MemoryKind, strict_refuses: true { User = "user", Feedback = "feedback", Project = "project", Reference = "reference" });

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'a"))]
pub struct MemoryRecall<'a> {
    pub record: MemoryRecord<'a>,
    pub score: f64,
    pub why: Str<'a>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'a"))]
pub struct MemoryRecord<'a> {
    pub record_id: Str<'a>,
    pub scope: MemoryScope<'a>,
    pub name: Str<'a>,
    pub kind: MemoryKind,
    pub content: Str<'a>,
    pub description: Str<'a>,
    pub provenance: Provenance<'a>,
    #[serde(deserialize_with = "super::text::u64_lenient")]
    pub created_at: u64,
    #[serde(deserialize_with = "super::text::u64_lenient")]
    pub updated_at: u64,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::text::opt_u64_lenient"
    )]
    pub last_recalled_at: Option<u64>,
    #[serde(default)]
    #[serde(deserialize_with = "super::text::u64_lenient")]
    pub recall_count: u64,
    pub confidence: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<RawJson<'a>>>,
    #[serde(default)]
    pub pinned: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_days: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'a"))]
pub struct Provenance<'a> {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<Str<'a>>,
    pub author: Author,
    pub trust: Trust,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence_refs: Option<Vec<Str<'a>>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Author {
    Model,
    Host,
    Extraction,
    /// A value this version does not know, as written (refused when strict).
    Other(String),
}

names!(open Author, strict_refuses: true { Model = "model", Host = "host", Extraction = "extraction" });

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    Untrusted,
    UserAsserted,
    HostVerified,
    /// A value this version does not know, as written (refused when strict).
    Other(String),
}

names!(open Trust, strict_refuses: true { Untrusted = "untrusted", UserAsserted = "user_asserted", HostVerified = "host_verified" });
