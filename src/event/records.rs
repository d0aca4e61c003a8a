//! Nested types of the kernel OS events: cancellation and rollback reasons,
//! and the closed memory types.

use super::fields::table;
use super::text::names;
use super::text::RawJson;
use serde::Serialize;

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

table!(closed:
    #[derive(Eq)]
    MemoryScope<'a> {
        tenant_id: Str<'a>,
        namespace: Str<'a>,
    }
);

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

table!(closed:
    MemoryRecall<'a> {
        record: MemoryRecord<'a>,
        score: f64,
        why: Str<'a>,
    }
);

table!(closed:
    MemoryRecord<'a> {
        record_id: Str<'a>,
        scope: MemoryScope<'a>,
        name: Str<'a>,
        kind: MemoryKind,
        content: Str<'a>,
        description: Str<'a>,
        provenance: Provenance<'a>,
        created_at: u64,
        updated_at: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        last_recalled_at: Option<u64> = default,
        recall_count: u64 = default,
        confidence: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        links: Option<Vec<RawJson<'a>>> = default,
        pinned: bool = default,
        #[serde(skip_serializing_if = "Option::is_none")]
        ttl_days: Option<u32> = default,
    }
);

table!(closed:
    #[derive(Eq)]
    Provenance<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        session_id: Option<Str<'a>> = default,
        author: Author,
        trust: Trust,
        #[serde(skip_serializing_if = "Option::is_none")]
        evidence_refs: Option<Vec<Str<'a>>> = default,
    }
);

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
