"""skill-lens case files (`*.eval.yaml`, or `evals/*.yaml` beside SKILL.md) as a skill-be eval file
(`skill-be convert --from skill-lens`), from skill-lens's public documentation of the format.

A case is a scenario: `task` its prompt, `assertions` its deterministic assertions (`file-produced`
a check), `judge.rubric` its criteria and `judge.expected` its expectedOutput, `trajectory`'s
`called` / `forbidden` / `order` its `expect.tools`, `skill_triggered` its `expect.skillLoaded`,
`budget` its budget, `workspace.files` its workspace. A case that needs a workspace or tools is an
agent scenario; any other is one-shot, where the skill is in the prompt as in skill-lens's `loaded`
mode. Mock tools and everything else are one warning line saying what has no equivalent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_be.project.peer_files import Conversion, Loc, PeerFile, scenario_id

CASE_KEYS = ("name", "task", "assertions", "tags", "tools", "trajectory", "budget", "judge", "mode", "workspace")
KINDS = ("contains", "not_contains", "regex", "equals")
MOCK = (
    "skill-be runs the real agent with its own tools, not mock tools; serve these from an MCP server (mcp:) "
    "and name them mcp:<server>/<tool> in expect.tools"
)
TRAJECTORY = {"called": "called", "forbidden": "notCalled", "order": "order"}


def skill_of(path: Path) -> Path:
    """The skill folder of a case file: beside SKILL.md, or in an `evals/` folder beside it."""
    if path.parent.name == "evals" and (path.parent.parent / "SKILL.md").is_file():
        return path.parent.parent
    return path.parent


def convert(path: Path, out_dir: Path, taken: set[str] | None = None) -> Conversion:
    """The skill-be eval file of the skill-lens case file at `path` (`out_dir`: where it is written)."""
    peer = PeerFile(path, "skill-lens case file")
    d = peer.mapping(peer.data, [], 'a mapping with "cases" (a skill-lens case file)')
    for key in d:
        if key == "tool_libraries":
            peer.note([key], f"no equivalent: {MOCK}")
        elif key != "cases":
            peer.note([key], f'"{key}" is not converted (skill-lens ignores it too)')
    cases = peer.items(d.get("cases"), ["cases"], "cases")
    if not cases:
        peer.error(["cases"], "must be a non-empty list of cases") if "cases" in d else peer.error(
            [], 'needs "cases", a list of cases'
        )
    ids = taken if taken is not None else set()
    scenarios = [_case(peer, c, ["cases", i], ids) for i, c in enumerate(cases)]
    data = {"$comment": f"converted from skill-lens's {path.name} by skill-be convert", "scenarios": scenarios}
    return Conversion(skill_of(path), data, peer.notes)


def _case(peer: PeerFile, c: object, loc: Loc, taken: set[str]) -> dict[str, Any]:
    c = peer.mapping(c, loc, "a case: a mapping with name and task")
    for key in c:
        if key not in CASE_KEYS:
            peer.note([*loc, key], f'"{key}" is not a key of a skill-lens case; not converted')
    name = peer.text(c.get("name"), [*loc, "name"], "the case's name")
    sc: dict[str, Any] = {"id": scenario_id(name, taken), "prompt": peer.text(c.get("task"), [*loc, "task"])}
    agent = False
    if "tags" in c:
        peer.note([*loc, "tags"], "no equivalent: skill-be selects skills, not cases (run <skill>)", once="tags")
    if "tools" in c:
        peer.note([*loc, "tools"], f"mock tools: no equivalent: {MOCK}", once="tools")
        agent = True
    if c.get("mode", "loaded") == "loaded" and any(k in c for k in ("tools", "trajectory", "workspace")):
        peer.note([*loc, "mode"], "mode loaded: an agent scenario never forces the skill: the "
                  "with-skill arm installs it where the agent finds it (as skill-lens's offered mode)", once="loaded")  # fmt: skip
    agent |= c.get("mode") == "offered"
    checks, agent_checks = _assertions(peer, c.get("assertions"), [*loc, "assertions"])
    if checks:
        sc["assertions"] = checks
    if agent_checks:
        sc["checks"] = agent_checks
        agent = True
    _judge(peer, c.get("judge"), [*loc, "judge"], sc)
    agent |= _trajectory(peer, c.get("trajectory"), [*loc, "trajectory"], sc)
    _budget(peer, c.get("budget"), [*loc, "budget"], sc)
    files = peer.mapping((c.get("workspace") or {}), [*loc, "workspace"], "a mapping with files")
    if files.get("files"):
        sc["workspace"] = {
            "files": {
                str(k): str(v)
                for k, v in peer.mapping(files["files"], [*loc, "workspace", "files"], "path -> text").items()
            }
        }
        agent = True
    if agent:
        sc = {"id": sc["id"], "mode": "agent", **{k: v for k, v in sc.items() if k != "id"}}
    if not any(k in sc for k in ("criteria", "assertions", "checks", "expect")):
        if sc.pop("budget", None) is not None:  # a budget alone grades nothing in skill-be
            peer.note(
                [*loc, "budget"], "a budget alone is not converted: add an assertion or a rubric to keep its limits"
            )
        sc["graded"] = False
        peer.note(
            loc, "the case declares no scoring (skill-lens passes it): the scenario runs for review (graded: false)"
        )
    return sc


def _assertions(peer: PeerFile, items: object, loc: Loc) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    checks: list[dict[str, Any]] = []
    agent_checks: list[dict[str, str]] = []
    for j, a in enumerate(peer.items(items, loc, "assertions")):
        a = peer.mapping(a, [*loc, j], "an assertion: a mapping with kind")
        kind = a.get("kind")
        if kind in KINDS:
            checks.append({"type": kind, "value": peer.text(a.get("value"), [*loc, j, "value"])})
        elif kind == "file-produced":
            file = peer.text(a.get("file"), [*loc, j, "file"], "the file's path")
            agent_checks.append({"name": f"file-produced {file}", "run": f"test -f '{file}'"})
        elif kind == "json-schema" and isinstance(a.get("schema", a.get("value")), dict) and "file" not in a:
            checks.append({"type": "json-schema", "value": a.get("schema", a.get("value"))})
        else:
            peer.note([*loc, j], f'assertion kind "{kind}": no equivalent with these keys; not converted')
    return checks, agent_checks


def _judge(peer: PeerFile, judge: object, loc: Loc, sc: dict[str, Any]) -> None:
    if judge is None:
        return
    j = peer.mapping(judge, loc, "a mapping with rubric")
    rubric = [
        peer.text(r, [*loc, "rubric", i])
        for i, r in enumerate(peer.items(j.get("rubric"), [*loc, "rubric"], "rubric lines"))
    ]
    if rubric:
        sc["criteria"] = rubric
    if isinstance(j.get("expected"), str) and j["expected"].strip():
        sc["expectedOutput"] = j["expected"]


def _trajectory(peer: PeerFile, trajectory: object, loc: Loc, sc: dict[str, Any]) -> bool:
    if trajectory is None:
        return False
    t = peer.mapping(trajectory, loc, "a mapping with called, forbidden, order, ...")
    tools: dict[str, list[str]] = {}
    for key, ours in TRAJECTORY.items():
        names = [peer.text(n, [*loc, key, i]) for i, n in enumerate(peer.items(t.get(key), [*loc, key], "tool names"))]
        if key == "order" and len(names) == 1:
            tools.setdefault("called", []).extend(n for n in names if n not in tools.get("called", []))
        elif names:
            tools[ours] = names
    expect: dict[str, Any] = {}
    if tools:
        expect["tools"] = tools
        peer.note(loc, "the tool names are skill-lens's mock tools; skill-be's are shell, read, write, "
                  "edit, skill, mcp:<server>/<tool> or the CLI's own: rename them", once="tool-names")  # fmt: skip
    if isinstance(t.get("skill_triggered"), bool):
        expect["skillLoaded"] = t["skill_triggered"]
    for key in ("max_calls", "call_args"):
        if key in t:
            why = "agent.maxTurns limits turns, not calls" if key == "max_calls" else "tool arguments are not checked"
            peer.note([*loc, key], f"no equivalent: {why}", once=key)
    for key in t:
        if key not in (*TRAJECTORY, "skill_triggered", "max_calls", "call_args"):
            peer.note([*loc, key], f'"{key}" is not a key of a trajectory; not converted')
    if expect:
        sc["expect"] = expect
    return bool(expect)


def _budget(peer: PeerFile, budget: object, loc: Loc, sc: dict[str, Any]) -> None:
    if budget is None:
        return
    b = peer.mapping(budget, loc, "a mapping with max_tokens, max_cost_usd, max_latency_ms")
    out: dict[str, Any] = {}
    for key, ours, scale in (
        ("max_tokens", "maxTokens", 1),
        ("max_cost_usd", "maxCostUsd", 1),
        ("max_latency_ms", "maxSeconds", 1000),
    ):
        v = b.get(key)
        if isinstance(v, int | float) and not isinstance(v, bool) and v > 0:
            out[ours] = int(v) if ours == "maxTokens" else v / scale
        elif key in b:
            peer.note([*loc, key], "must be a positive number to convert; not converted")
    for key in b:
        if key not in ("max_tokens", "max_cost_usd", "max_latency_ms"):
            peer.note([*loc, key], f'"{key}" is not a key of a budget; not converted')
    if out:
        sc["budget"] = out
