"""The scenarios: each drives the real runtime through one area of its event vocabulary.

A scenario's main session id is its own name, so FileSessionLog writes `<name>.jsonl`; sessions it
spawns (workflow nodes) land beside it and are kept as `<name>.<session_id>.jsonl`.
"""


from deepstrike.runtime.execution_plane import LocalExecutionPlane
from deepstrike.tools.registry import tool

from harness import Ctx, call, drain, say, scenario


class FatalToolError(RuntimeError):
    """The execution plane reads `is_fatal` off a raised exception (execution_plane.py)."""

    is_fatal = True


@tool
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@tool
def read_file(path: str) -> str:
    """Read a file from the scratch workspace."""
    if path.startswith("/missing"):
        raise FileNotFoundError(f"no such file: {path}")
    return f"contents of {path}: " + "lorem ipsum " * 8


@tool
def wipe_disk(device: str) -> str:
    """Erase a block device (always fails fatally here)."""
    raise FatalToolError(f"refusing to touch {device}: device is read-only")


def workspace() -> LocalExecutionPlane:
    return LocalExecutionPlane().register(add, read_file, wipe_disk)


@scenario("tools that succeed, fail (recoverable), are repaired and are fatal")
async def tools(ctx: Ctx) -> None:
    replies = [
        call("Reading both files.", ("c1", "read_file", {"path": "/notes.txt"}),
             ("c2", "read_file", {"path": "/missing.txt"})),
        call("Adding, with a string argument.", ("c3", "add", {"a": "2", "b": 3})),
        call("Unknown tool and bad JSON.", ("c4", "no_such_tool", {}), ("c5", "add", "{not json")),
        call("Now the dangerous one.", ("c6", "wipe_disk", {"device": "/dev/sda"})),
        say("I could not wipe the disk; 2 + 3 = 5."),
        say("Done."),
    ]
    runner = ctx.runner(replies, workspace())
    await drain(runner.run(goal="read notes, add numbers, wipe the disk", session_id=ctx.name))
