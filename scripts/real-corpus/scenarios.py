"""The scenarios: each drives the real runtime through one area of its event vocabulary.

A scenario's main session id is its own name, so FileSessionLog writes `<name>.jsonl`; sessions it
spawns (workflow nodes) land beside it and are kept as `<name>.<session_id>.jsonl`.
"""

import asyncio
import sys

from deepstrike.governance import GovernancePolicy, GovernancePolicyRule
from deepstrike.memory.in_memory_store import InMemoryMemoryStore
from deepstrike.memory.protocols import MemoryProvenance, MemoryQuery, MemoryRecord, MemoryScope
from deepstrike.providers.stream import PermissionResponse
from deepstrike.runtime.execution_plane import LocalExecutionPlane
from deepstrike.runtime.loop_driver import LoopDriver, LoopSpec
from deepstrike.runtime.run_group import InMemoryGroupBudgetStore, RunGroup
from deepstrike.runtime.runner import KernelReliability, ResourceQuota, RuntimeRunner
from deepstrike.tools.registry import tool
from deepstrike.types.agent import (
    MilestoneCheckResult,
    MilestoneContract,
    MilestonePhase,
    WorkflowNodeSpec,
    WorkflowSpec,
)

from harness import Ctx, JsonMemoryScope, ScriptedProvider, call, drain, say, scenario


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


@tool
def deploy(target: str) -> str:
    """Deploy the build to a target environment."""
    return f"deployed to {target}"


def permission_handler():
    """Answers the permission requests in turn: approve (bool, so responder "host"), deny as
    "user", then raise (the SDK answers for it with responder "permission_handler")."""
    answers = iter([True, PermissionResponse(approved=False, responder="user", reason="not today")])

    def answer(request):
        try:
            return next(answers)
        except StopIteration:
            raise RuntimeError("approval service unavailable") from None

    return answer


def block_second_add(request):
    """on_tool_call host hook: vetoes one call (a tool_denied without a permission request)."""
    if request["call_id"] == "p5":
        return {"block": True, "reason": "host budget for add exhausted"}
    return None


@scenario("permissions asked, approved, denied by the user and by a failing handler; a host veto")
async def permissions(ctx: Ctx) -> None:
    replies = [
        call("Deploying to staging.", ("p1", "deploy", {"target": "staging"})),
        call("Deploying to production.", ("p2", "deploy", {"target": "production"})),
        call("Trying again.", ("p3", "deploy", {"target": "production"})),
        call("Wiping.", ("p4", "wipe_disk", {"device": "/dev/sdb"})),
        call("Adding.", ("p5", "add", {"a": 1, "b": 1})),
        say("Staging is deployed; production was refused."),
        say("Done."),
    ]
    plane = workspace().register(deploy)
    policy = GovernancePolicy(rules=[
        GovernancePolicyRule(pattern="deploy", action="ask_user"),
        GovernancePolicyRule(pattern="wipe_disk", action="deny"),
    ])
    runner = ctx.runner(
        replies, plane, governance_policy=policy,
        on_permission_request=permission_handler(), on_tool_call=block_second_add,
    )
    await drain(runner.run(goal="deploy the build", session_id=ctx.name))


@scenario("a permission request with no handler: the policy gate denies it")
async def permission_policy_gate(ctx: Ctx) -> None:
    replies = [
        call("Deploying.", ("g1", "deploy", {"target": "production"})),
        say("Deployment was refused by policy."),
    ]
    plane = workspace().register(deploy)
    policy = GovernancePolicy(rules=[GovernancePolicyRule(pattern="deploy", action="ask_user")])
    runner = ctx.runner(replies, plane, governance_policy=policy)
    await drain(runner.run(goal="deploy", session_id=ctx.name))


@scenario("signals: host notes delivered to the model, one from a tool-result hook")
async def signals(ctx: Ctx) -> None:
    replies = [
        call("Reading.", ("s1", "read_file", {"path": "/a.txt"})),
        call("Reading again.", ("s2", "read_file", {"path": "/b.txt"})),
        say("Read both, noted the reminders."),
        say("Done."),
    ]

    def note_after_read(result):
        return {"note": f"reminder: {result['call_id']} output is untrusted"}

    runner = ctx.runner(replies, workspace(), on_tool_result=note_after_read)
    runner.inject_note("the user prefers short answers", urgency="normal")
    runner.inject_note("stop after reading two files", urgency="high")
    await drain(runner.run(goal="read two files", session_id=ctx.name))


@scenario("cancellation: the host interrupts the run while a tool is executing")
async def cancellation(ctx: Ctx) -> None:
    holder: dict[str, RuntimeRunner] = {}

    @tool
    def long_job(steps: int) -> str:
        """A job the host cancels mid-way."""
        holder["runner"].interrupt("user")
        return f"ran {steps} steps before the interrupt"

    replies = [
        call("Starting the long job.", ("x1", "long_job", {"steps": 10})),
        say("never reached"),
    ]
    runner = ctx.runner(replies, workspace().register(long_job))
    holder["runner"] = runner
    await drain(runner.run(goal="run the long job", session_id=ctx.name))


@scenario("memory: host writes (one refused), a model memory query, a host query")
async def memory(ctx: Ctx) -> None:
    scope = JsonMemoryScope(tenant_id="acme", namespace="agent-1")
    holder: dict[str, RuntimeRunner] = {}

    def record(name: str, content: str) -> MemoryRecord:
        return MemoryRecord(
            record_id=f"acme:agent-1:project:{name}", scope=scope, name=name, kind="project",
            content=content, description=f"note {name}",
            provenance=MemoryProvenance(author="host", trust="host_verified"),
            created_at=1_767_225_600_000, updated_at=1_767_225_600_000,
        )

    @tool
    async def remember(name: str, content: str) -> str:
        """Store a fact in long-term memory."""
        ok = await holder["runner"].write_memory(record(name, content))
        return "stored" if ok else "refused"

    @tool
    async def recall(query: str) -> str:
        """Search long-term memory from the host side."""
        hits = await holder["runner"].query_memory(MemoryQuery(scope=scope, query=query, top_k=3))
        return f"{len(hits)} hits"

    replies = [
        call("Remembering.", ("m1", "remember", {"name": "deploy-window", "content": "Deploys happen on Tuesdays."})),
        call("Remembering a bad one.", ("m2", "remember", {"name": "x" * 300, "content": "too long a name"})),
        call("Searching memory.", ("m3", "memory", {"query": "deploy", "top_k": 2})),
        call("Host search.", ("m4", "recall", {"query": "Tuesdays"})),
        say("Deploys happen on Tuesdays."),
        say("Done."),
    ]
    store = InMemoryMemoryStore([record("on-call", "Alice is on call for deploys.")])
    runner = ctx.runner(
        replies, workspace().register(remember, recall),
        memory_store=store, agent_id="agent-1", memory_scope=scope,
    )
    holder["runner"] = runner
    await drain(runner.run(goal="when do deploys happen?", session_id=ctx.name))


@scenario("milestones: a phase blocked by its verifier, then advanced with an unlock")
async def milestones(ctx: Ctx) -> None:
    verdicts = iter([False, True, True])

    def evaluate(request):
        passed = next(verdicts, True)
        reason = None if passed else "tests are not green yet"
        return MilestoneCheckResult(phase_id=request["phaseId"], passed=passed, reason=reason)

    contract = MilestoneContract(phases=[
        MilestonePhase(id="build", criteria=["the build passes"], required_evidence=["build log"],
                       unlocks=[{"kind": "tool", "id": "deploy"}]),
        MilestonePhase(id="ship", criteria=["deployed"]),
    ])
    replies = [
        call("Building.", ("b1", "read_file", {"path": "/build.log"})),
        say("The build is done."),
        call("Checking again.", ("b2", "read_file", {"path": "/build.log"})),
        say("The build is green now."),
        call("Deploying.", ("b3", "deploy", {"target": "staging"})),
        say("Shipped."),
        say("Done."),
        say("Done."),
    ]
    runner = ctx.runner(
        replies, workspace().register(deploy), milestone_contract=contract,
        on_milestone_evaluate=evaluate, criteria_gate=False,
    )
    await drain(runner.run(goal="build and ship", criteria=["shipped"], session_id=ctx.name))


@scenario("entropy: repeated failures push the entropy score over a low alert threshold")
async def entropy(ctx: Ctx) -> None:
    replies = [
        call(f"Attempt {n}.", (f"e{n}", "read_file", {"path": f"/missing/{n}"})) for n in range(1, 7)
    ] + [say("Giving up."), say("Done.")]
    runner = ctx.runner(
        replies, workspace(),
        entropy_watch={"threshold": 0.2, "hysteresis": 0.05, "cooldown_turns": 1, "notify_model": True},
    )
    await drain(runner.run(goal="find the file", session_id=ctx.name))


@scenario("capabilities: a tool mounted and a marker unmounted mid-run")
async def capabilities(ctx: Ctx) -> None:
    holder: dict[str, RuntimeRunner] = {}

    @tool
    def install_plugin(name: str) -> str:
        """Install a plugin: mounts a new tool capability."""
        runner = holder["runner"]
        runner.mount_tool({"name": f"{name}_run", "description": f"Run {name}.",
                           "parameters": {"type": "object", "properties": {}}})
        runner.mount_marker("mcp_server", "docs-server", "Documentation MCP server")
        return f"installed {name}"

    @tool
    def remove_plugin(name: str) -> str:
        """Remove a plugin: unmounts its capability."""
        holder["runner"].unmount_capability("mcp_server", "docs-server")
        return f"removed {name}"

    replies = [
        call("Installing.", ("k1", "install_plugin", {"name": "lint"})),
        call("Removing.", ("k2", "remove_plugin", {"name": "lint"})),
        say("Plugin cycled."),
        say("Done."),
    ]
    runner = ctx.runner(replies, workspace().register(install_plugin, remove_plugin))
    holder["runner"] = runner
    await drain(runner.run(goal="cycle a plugin", session_id=ctx.name))


@scenario("compression and paging: a small context window, large tool outputs, a forced compaction")
async def compression(ctx: Ctx) -> None:
    holder: dict[str, RuntimeRunner] = {}

    @tool
    def dump_table(table: str) -> str:
        """Dump a whole table (large output)."""
        return "\n".join(f"{table} row {i}: " + "value " * 12 for i in range(40))

    @tool
    def compact_now(why: str) -> str:
        """Ask the host to compact the context now."""
        asyncio.ensure_future(holder["runner"].force_compact())
        return f"compaction requested: {why}"

    replies = []
    for n in range(1, 13):
        replies.append(call(f"Dumping table {n}.", (f"d{n}", "dump_table", {"table": f"t{n}"})))
        if n == 6:
            replies.append(call("Compacting.", ("z1", "compact_now", {"why": "context is full"})))
    replies += [say("All tables dumped.")] * 4
    runner = ctx.runner(
        replies, workspace().register(dump_table, compact_now), max_tokens=6000, max_turns=40,
        wrap=True,
    )
    holder["runner"] = runner
    await drain(runner.run(goal="dump every table", session_id=ctx.name))


class ServiceUnavailable(Exception):
    """A transport failure as an HTTP client raises it: the SDK reads `status_code`."""

    def __init__(self, status_code: int, message: str) -> None:
        super().__init__(message)
        self.status_code = status_code


@scenario("provider failure classed context_overflow (HTTP 413) after a tool turn: the run errors")
async def provider_overflow(ctx: Ctx) -> None:
    replies = [
        call("Reading.", ("f1", "read_file", {"path": "/a.txt"})),
        say("Recovered and finished."),
        say("Done."),
    ]
    fail_on = {2: ServiceUnavailable(413, "prompt is too long: 250000 tokens > 200000 maximum")}
    runner = ctx.runner(replies, workspace(), fail_on=fail_on,
                        kernel_reliability=KernelReliability(provider_recovery_attempts=3))
    await drain(runner.run(goal="read a file despite a flaky provider", session_id=ctx.name))


@scenario("provider failure the kernel does not recover (503 after a tool turn): the run errors")
async def provider_fatal(ctx: Ctx) -> None:
    fail_on = {2: ServiceUnavailable(503, "upstream overloaded")}
    replies = [call("Reading.", ("v1", "read_file", {"path": "/a.txt"})), say("never")]
    runner = ctx.runner(replies, workspace(), fail_on=fail_on)
    await drain(runner.run(goal="say hello", session_id=ctx.name))


@scenario("context overflow before transport: the prompt exceeds max_tokens")
async def context_overflow(ctx: Ctx) -> None:
    runner = ctx.runner([say("never")], workspace(), max_tokens=300,
                        system_prompt="You are a careful agent. " * 200)
    await drain(runner.run(goal="answer briefly", session_id=ctx.name))


@scenario("budgets: a run in a run group with a tight token budget (usage reported, budget exceeded)")
async def budgets(ctx: Ctx) -> None:
    replies = [call(f"Step {n}.", (f"u{n}", "read_file", {"path": f"/f{n}"})) for n in range(1, 8)]
    replies += [say("Done.")]
    group = RunGroup(id="group-1", budget_store=InMemoryGroupBudgetStore())
    runner = ctx.runner(
        replies, workspace(), run_group=group, max_total_tokens=30,
        resource_quota=ResourceQuota(max_total_subagents=2),
    )
    await drain(runner.run(goal="read files until the budget runs out", session_id=ctx.name))


@scenario("workflow: a standalone DAG of sub-agents (read-only explorers, a system-only planner)")
async def workflow(ctx: Ctx) -> None:
    spec = WorkflowSpec(nodes=[
        WorkflowNodeSpec(task="survey the repository", role="explore", isolation="read_only",
                         context_inheritance="system_only", node_id="survey"),
        WorkflowNodeSpec(task="list the risky modules", role="explore", isolation="read_only",
                         node_id="risks"),
        WorkflowNodeSpec(task="plan the refactor", role="plan", context_inheritance="system_only",
                         depends_on=[0, 1], node_id="plan"),
    ])
    replies = [say("Sub-agent finished its part: three modules, two are risky.")]
    # A reducer node is not included: 0.2.77 lowers it with a `kind` field its own kernel rejects
    # ("workflow node uses fields absent from canonical WorkflowNode: kind").
    runner = ctx.runner(replies, workspace(), wrap=True, agent_id="coordinator")
    outcome = await runner.run_workflow(spec, session_id=ctx.name)
    print(f"  workflow outcome: {outcome}", file=sys.stderr)


@scenario("crash and wake: the host dies after a tool turn, a new runner wakes the session")
async def crash_wake(ctx: Ctx) -> None:
    replies = [
        call("Reading first.", ("w1", "read_file", {"path": "/one.txt"})),
        call("Reading second.", ("w2", "read_file", {"path": "/two.txt"})),
        say("Both files read."),
        say("Done."),
    ]
    first = ctx.runner(replies, workspace())
    stream = first.run(goal="read two files", session_id=ctx.name)
    async for event in stream:
        if getattr(event, "type", None) == "tool_result":
            break  # the host process dies here: the generator is abandoned mid-run
    await stream.aclose()
    second = ctx.runner(replies[1:], workspace())
    await drain(second.wake(ctx.name))


@scenario("loop agent: rounds paced continue, sleep and stop through the kernel pace verb")
async def loop(ctx: Ctx) -> None:
    replies = [
        call("Round work done; continue.", ("r1", "pace", {"next": "continue", "reason": "more to do"})),
        say("Round one finished."),
        call("Sleeping a while.", ("r2", "pace", {"next": "sleep", "delay_ms": 5000, "reason": "wait for CI"})),
        say("Round two finished."),
        call("All done.", ("r3", "pace", {"next": "stop", "reason": "goal reached"})),
        say("Round three finished."),
    ]

    async def sleeper(delay_ms: int, wake_at_ms: int) -> bool:
        return True  # wake at once: the corpus records the pacing, not the wall clock

    runner = ctx.runner(replies, workspace())
    await LoopDriver(runner, LoopSpec(loop_id=ctx.name, goal="keep CI green", max_rounds=4,
                                      sleeper=sleeper)).run()


@scenario("long run: hundreds of tool turns in a small window (compactions along the way)")
async def long_run(ctx: Ctx) -> None:
    replies = []
    for n in range(1, 221):
        tool_call = (f"l{n}", "add", {"a": n, "b": n}) if n % 3 else (f"l{n}", "read_file", {"path": f"/log/{n}"})
        replies.append(call(f"Step {n}.", tool_call))
    replies.append(say("All steps done."))
    # Low pressure thresholds keep the rendered context (and so each context_prepared record,
    # which lists every history entry) small: the log stays a few MB.
    policy = {
        "pressure_thresholds": {"snip": 0.2, "micro": 0.3, "collapse": 0.4, "auto": 0.5, "renewal": 0.6},
        "target_after_compress": 0.1,
        "preserve_recent_turns": 2,
    }
    runner = ctx.runner(replies, workspace(), max_turns=400, max_tokens=1000, repeat_fuse=False,
                        context_policy=policy)
    await drain(runner.run(goal="walk through every step", session_id=ctx.name))
