"""Plumbing shared by the scenarios: determinism, the scripted provider, the scenario registry."""

from __future__ import annotations

import dataclasses
import json
import random
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Awaitable, Callable

from deepstrike.providers.stream import TextDelta, ToolCallEvent, UsageEvent
from deepstrike.runtime.archive import FileArchiveStore
from deepstrike.runtime.execution_plane import LocalExecutionPlane
from deepstrike.runtime.payload_store import PayloadStore
from deepstrike.runtime.replay_provider import ReplayProvider, ReplayProviderOpts
from deepstrike.runtime.runner import RuntimeOptions, RuntimeRunner
from deepstrike.runtime.session_log import FileSessionLog


# ---------------------------------------------------------------------------------------------
# Determinism: the SDK mints run ids with uuid.uuid4() and stamps evidence with time.time().
# Neither is injectable through RuntimeOptions, so both are replaced process-wide by a seeded
# generator and a clock that advances one millisecond per read. The kernel derives its own ids
# (effect ids, digests) from these, so they follow.
# ---------------------------------------------------------------------------------------------
class _Determinism:
    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.now_ms = 0

    def reset(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.now_ms = 1_767_225_600_000  # 2026-01-01T00:00:00Z

    def uuid4(self) -> uuid.UUID:
        return uuid.UUID(int=self.rng.getrandbits(128), version=4)

    def time(self) -> float:
        self.now_ms += 1
        return self.now_ms / 1000


DETERMINISM = _Determinism()
uuid.uuid4 = DETERMINISM.uuid4
time.time = DETERMINISM.time


# ---------------------------------------------------------------------------------------------
# Thin adapter over the SDK's ReplayProvider (0.2.77 defects, nothing else):
# - `ReplayProvider.stream` yields plain dicts ({"type": "text_delta", ...}) but the runner reads
#   stream events by attribute (`getattr(evt, "type")`, `isinstance(evt, TextDelta)`), so every
#   reply would be silently dropped. The adapter turns each dict into the SDK's own dataclass.
# - `ReplayProvider.descriptor()` returns a dict; `resolve_provider_route` reads it with `.get`
#   but the runner reads `descriptor.provider` by attribute. `_Descriptor` answers both.
# `fail_on` lets a scenario make chosen calls raise, as a real provider transport would.
# ---------------------------------------------------------------------------------------------
class _Descriptor(dict):
    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError as missing:
            raise AttributeError(key) from missing


class ScriptedProvider:
    def __init__(
        self,
        replies: list[dict[str, Any]],
        *,
        wrap: bool = False,
        fail_on: dict[int, Exception] | None = None,
    ) -> None:
        self._replay = ReplayProvider(replies, ReplayProviderOpts(wrap=wrap))
        self._fail_on = fail_on or {}
        self.calls = 0

    def descriptor(self) -> _Descriptor:
        return _Descriptor(self._replay.descriptor())

    async def stream(self, context, tools, extensions=None, state=None):
        self.calls += 1
        failure = self._fail_on.get(self.calls)
        if failure is not None:
            raise failure
        async for event in self._replay.stream(context, tools, extensions, state):
            kind = event["type"]
            if kind == "usage":
                yield UsageEvent(
                    total_tokens=event["totalTokens"],
                    input_tokens=event["inputTokens"],
                    output_tokens=event["outputTokens"],
                )
            elif kind == "text_delta":
                yield TextDelta(delta=event["delta"])
            elif kind == "tool_call":
                yield ToolCallEvent(
                    id=event["id"],
                    name=event["name"],
                    arguments=event["arguments"],
                    raw_arguments=event.get("raw_arguments"),
                )


class JsonMemoryScope(dict):
    """A MemoryScope the session log can serialise. 0.2.77's `write_memory` and `query_memory`
    put the `MemoryScope` dataclass itself into `memory_written.scope` / `memory_queried.scope`,
    and FileSessionLog's json.dumps rejects it, so the host call fails. This dict carries the
    same two fields, reads like the dataclass (attributes) and compares equal by value."""

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError as missing:
            raise AttributeError(key) from missing

    def __hash__(self) -> int:  # type: ignore[override]
        return hash((self["tenant_id"], self["namespace"]))


def say(text: str) -> dict[str, Any]:
    """A scripted assistant reply with no tool call."""
    return {"role": "assistant", "content": text}


def call(text: str, *calls: tuple[str, str, Any]) -> dict[str, Any]:
    """A scripted assistant reply calling tools: each call is (id, name, arguments)."""
    return {
        "role": "assistant",
        "content": text,
        "toolCalls": [
            {"id": cid, "name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}
            for cid, name, args in calls
        ],
    }


async def drain(stream) -> list[Any]:
    """Consume a run; errors the runtime reports are echoed so a broken scenario is visible."""
    events = [event async for event in stream]
    for event in events:
        if getattr(event, "type", None) == "error":
            print(f"  runtime error event: {event.message}", file=sys.stderr)
    return events


# ---------------------------------------------------------------------------------------------
# Scenario plumbing
# ---------------------------------------------------------------------------------------------
@dataclasses.dataclass
class Scenario:
    name: str
    description: str
    run: Callable[["Ctx"], Awaitable[None]]


@dataclasses.dataclass
class Ctx:
    name: str
    log_dir: Path
    log: FileSessionLog

    def options(self, replies: list[dict[str, Any]], plane=None, **kwargs: Any) -> RuntimeOptions:
        provider = kwargs.pop("provider", None) or ScriptedProvider(
            replies, wrap=kwargs.pop("wrap", False), fail_on=kwargs.pop("fail_on", None),
        )
        plane = plane or LocalExecutionPlane()
        # Every registered tool is advertised from the first turn (the default surface is only
        # the kernel's meta-tools, and a call outside it is dropped before execution).
        kwargs.setdefault("baseline_tool_ids", [schema.name for schema in plane.schemas()])
        # Page-out archives and payloads stay in the scenario's scratch directory (the SDK's
        # default PayloadStore writes `.payloads/` under the working directory).
        kwargs.setdefault("payload_store", PayloadStore(str(self.log_dir / "payloads")))
        kwargs.setdefault("compression_store", FileArchiveStore(self.log_dir / "archive"))
        return RuntimeOptions(provider=provider, session_log=self.log, execution_plane=plane, **kwargs)

    def runner(self, replies: list[dict[str, Any]], plane=None, **kwargs: Any) -> RuntimeRunner:
        return RuntimeRunner(self.options(replies, plane, **kwargs))


SCENARIOS: list[Scenario] = []


def scenario(description: str):
    def register(fn: Callable[[Ctx], Awaitable[None]]):
        SCENARIOS.append(Scenario(fn.__name__, description, fn))
        return fn
    return register


