"""Drive the real deepstrike 0.2.77 Python runtime offline and record what it writes.

Every scenario (scenarios.py) runs `deepstrike.runtime.runner.RuntimeRunner` with scripted model
replies (the SDK's own `ReplayProvider`, behind the thin adapter in harness.py) and a
`FileSessionLog`; the logs it writes are copied unchanged into the output directory, next to the
SDK's own OS-snapshot fold of each log, and a MANIFEST.json.

Usage: python generate.py OUT_DIR [SCENARIO...]   (run by generate.sh inside a throwaway venv)
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from deepstrike.runtime.os_snapshot import rebuild_os_snapshot_from_session_events
from deepstrike.runtime.session_log import SESSION_EVENT_KINDS, FileSessionLog

import scenarios  # noqa: F401  (registers every scenario)
from harness import DETERMINISM, SCENARIOS, Ctx

VERSION = "0.2.77"
# Logs that also get the SDK dump framing (`<name>.events.json`).
DUMPED = ("tools", "workflow")
SCRATCH = Path("/tmp/agent-replay-real-corpus")

# ---------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------
def snapshot_json(entries: list[dict[str, Any]]) -> str:
    """The SDK's own fold (runtime/os_snapshot.py) of one log. The SDK has no serialiser for
    OsSnapshot, so it is written as json.dumps(dataclasses.asdict(snap), sort_keys=True,
    indent=2) plus a newline."""
    snap = rebuild_os_snapshot_from_session_events([entry["event"] for entry in entries])
    return json.dumps(dataclasses.asdict(snap), sort_keys=True, indent=2) + "\n"


def read_entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def kinds_in(entries: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for entry in entries:
        kind = entry["event"]["kind"]
        counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items()))


async def generate(out_dir: Path, only: set[str] | None) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest_logs: list[dict[str, Any]] = []
    for seed, item in enumerate(SCENARIOS):
        if only and item.name not in only:
            continue
        DETERMINISM.reset(seed)
        # A fixed scratch path, not a random temp dir: page-out archive paths are written into
        # the log (payload_residency_changed.payload_ref), so a random one would vary per run.
        tmp = SCRATCH / item.name
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        try:
            ctx = Ctx(item.name, tmp, FileSessionLog(tmp))
            await item.run(ctx)
            for path in sorted(tmp.glob("*.jsonl")):
                sid = path.stem
                name = item.name if sid == item.name else f"{item.name}.{sid}"
                entries = read_entries(path)
                shutil.copyfile(path, out_dir / f"{name}.jsonl")
                (out_dir / f"{name}.snapshot.json").write_text(snapshot_json(entries), encoding="utf-8")
                if name in DUMPED:
                    dump = json.dumps(entries, indent=2, ensure_ascii=False)
                    (out_dir / f"{name}.events.json").write_text(dump, encoding="utf-8")
                manifest_logs.append({
                    "log": f"{name}.jsonl",
                    "scenario": item.name,
                    "description": item.description,
                    "session_id": sid,
                    "events": len(entries),
                    "kinds": kinds_in(entries),
                })
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        print(f"{item.name}: done", file=sys.stderr)
    present = sorted({kind for log in manifest_logs for kind in log["kinds"]})
    manifest = {
        "deepstrike_version": deepstrike_version(),
        "generator": "scripts/real-corpus/generate.sh",
        "snapshot_serialisation": "json.dumps(dataclasses.asdict(OsSnapshot), sort_keys=True, indent=2)",
        "logs": manifest_logs,
        "kinds_present": present,
        "kinds_missing": [kind for kind in SESSION_EVENT_KINDS if kind not in present],
        "kinds_unregistered": [kind for kind in present if kind not in SESSION_EVENT_KINDS],
    }
    (out_dir / "MANIFEST.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def deepstrike_version() -> str:
    from importlib.metadata import version

    found = version("deepstrike")
    if found != VERSION:
        raise SystemExit(f"expected deepstrike {VERSION}, found {found}")
    return found


if __name__ == "__main__":
    asyncio.run(generate(Path(sys.argv[1]), set(sys.argv[2:]) or None))
