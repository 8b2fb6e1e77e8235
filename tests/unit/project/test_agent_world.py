"""The agent's world in an eval file (project/agent_world.py): `environment`, `mcp`, `expect.tools`,
`expect.skillsLoaded` / `skillsNotLoaded` and `followUps` are validated with their places, build their
records, agree with the published schema and the fast path, and are refused at load ("is not
supported yet") until the engine runs them."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import ValidationError

from skill_be.errors import ConfigError
from skill_be.project import agent_world, fastcheck
from skill_be.project.agent_world import EnvFile, Environment, McpServer, ToolExpect
from skill_be.project.evals import load_eval
from skill_be.project.models import EvalFileModel
from skill_be.schema import generate

FULL: dict[str, Any] = {
    "environment": {"setup": ["apt-get update", "apt-get install -y jq"]},
    "scenarios": [
        {
            "id": "fix",
            "mode": "agent",
            "prompt": "Fix app.js with superlint.",
            "environment": {"files": [{"src": "bin/superlint", "dest": "/usr/local/bin/superlint", "mode": "+x"}]},
            "mcp": {"files": {"command": "node", "args": ["/opt/mcp/server.js"], "env": {"ROOT": "/work/ws"}}},
            "expect": {
                "tools": {
                    "called": ["shell", "mcp:files/read_file"],
                    "notCalled": ["write"],
                    "order": ["shell", "edit"],
                },
                "skillsLoaded": ["lint"],
                "skillsNotLoaded": ["eslint-helper"],
            },
            "followUps": ["Now run superlint verify again."],
            "checks": ["test -f .superlint-passed"],
        },
        {"id": "plain", "mode": "agent", "prompt": "Say hi.", "checks": ["true"]},
    ],
}


def write(root: Path, data: object) -> Path:
    (root / "evals" / "bin").mkdir(parents=True, exist_ok=True)
    (root / "evals" / "bin" / "superlint").write_text("#!/bin/sh\n")
    path = root / "evals" / "lint.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def load(root: Path, data: object) -> Any:
    return load_eval(write(root, data), root)


def error(root: Path, data: object, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(root)
    with pytest.raises(ConfigError) as e:
        load_eval(write(root, data).relative_to(root), Path("."))
    (line,) = str(e.value).splitlines()
    return line


@pytest.fixture
def running() -> None:
    """Every key runs: nothing is refused as not supported yet (the gate is gone)."""
    assert not hasattr(agent_world, "NOT_YET")


def test_every_key_builds_its_record(tmp_path: Path, running: None) -> None:
    fix, plain = load(tmp_path, FULL).scenarios
    w = fix.agent.world
    # The file's setup with the scenario's own files over it; the other scenario takes the file's all.
    assert w.environment == Environment(
        ("apt-get update", "apt-get install -y jq"), (EnvFile("bin/superlint", "/usr/local/bin/superlint", "+x"),)
    )
    assert w.mcp == (McpServer("files", "node", ("/opt/mcp/server.js",), (("ROOT", "/work/ws"),)),)
    assert w.tools == ToolExpect(("shell", "mcp:files/read_file"), ("write",), ("shell", "edit"))
    assert (w.skills_loaded, w.skills_not_loaded) == (("lint",), ("eslint-helper",))
    assert w.follow_ups == ("Now run superlint verify again.",)
    assert plain.agent.world.environment == Environment(("apt-get update", "apt-get install -y jq"), ())
    assert plain.agent.world.file_environment and not w.file_environment
    assert plain.agent.world.mcp == () and plain.agent.world.tools is None


def test_a_scenario_without_the_keys_has_an_empty_world(tmp_path: Path) -> None:
    data = {"scenarios": [{"id": "plain", "mode": "agent", "prompt": "Say hi.", "checks": ["true"]}]}
    (sc,) = load(tmp_path, data).scenarios
    assert sc.agent.world == agent_world.World()


def test_the_whole_world_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert load(tmp_path, copy.deepcopy(FULL)).scenarios[0].agent.world.follow_ups


@pytest.mark.parametrize("key", ["expect.tools", "expect.skillsLoaded", "expect.skillsNotLoaded", "mcp", "followUps"])
def test_the_keys_that_run_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str) -> None:
    sc: dict[str, Any] = {"id": "one", "mode": "agent", "prompt": "p", "checks": ["true"]}
    if key in ("mcp", "followUps"):
        sc[key] = FULL["scenarios"][0][key]
    else:
        sc["expect"] = {"tools": {"called": ["shell"]}} if key == "expect.tools" else {key.split(".")[1]: ["x"]}
    monkeypatch.chdir(tmp_path)
    assert load(tmp_path, {"scenarios": [sc]}).scenarios[0].agent is not None


def one(**fields: Any) -> dict[str, Any]:
    sc: dict[str, Any] = {"id": "s", "mode": "agent", "prompt": "p", "checks": ["true"], **fields}
    return {"scenarios": [{k: v for k, v in sc.items() if v is not None}]}


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (one(environment={}), "environment: sets nothing; give setup (commands) or files"),
        (one(environment={"setup": []}), "environment.setup: must be a command or a non-empty list of commands"),
        (one(environment={"files": [{"src": "bin/superlint"}]}), 'missing required key "dest"'),
        (
            one(environment={"files": [{"src": "bin/superlint", "dest": "usr/bin/x"}]}),
            'environment.files[0].dest: "usr/bin/x" must be an absolute path in the image',
        ),
        (
            one(environment={"files": [{"src": "bin/superlint", "dest": "/work/ws/x"}]}),
            "is under /work, the agent's volume, which hides it",
        ),
        (
            one(environment={"files": [{"src": "bin/superlint", "dest": "/usr/../etc/x"}]}),
            'has ".." in it',
        ),
        (
            one(environment={"files": [{"src": "/etc/passwd", "dest": "/x"}]}),
            'environment.files[0].src: "/etc/passwd" is an absolute path',
        ),
        (
            one(environment={"files": [{"src": "bin/superlint", "dest": "/x", "mode": "x+"}]}),
            'environment.files[0].mode: "x+" is not a file mode',
        ),
        (
            one(environment={"files": [{"src": "bin/superlint", "dest": "/x", "chmod": "+x"}]}),
            'unknown key "chmod"',
        ),
        (one(mcp={}), "mcp: names no server"),
        (one(mcp={"a/b": {"command": "x"}}), '"a/b" cannot name a server'),
        (one(mcp={"files": {"args": []}}), 'missing required key "command"'),
        (one(mcp={"files": {"command": "x", "env": {"1X": "y"}}}), '"1X" is not a variable name'),
        (one(mcp={"files": {"command": "x", "args": "a b"}}), "args: must be a list of strings, not a string"),
        (one(expect={"tools": {}}), "expect.tools: sets nothing; give called, notCalled or order"),
        (one(expect={"tools": {"order": ["shell"]}}), "expect.tools.order: must list at least 2 tool names"),
        (one(expect={"tools": {"called": ["mcp:files"]}}), '"mcp:files" is not a tool name'),
        (one(expect={"skillsLoaded": ["a b"]}), "is not a skill folder's name"),
        (one(followUps=[]), "followUps: must be a non-empty list of strings"),
        (one(followUps=["ok", ""]), "followUps[1]: must not be empty"),
        (
            {"scenarios": [{"id": "s", "prompt": "p", "criteria": ["c"], "followUps": ["again"]}]},
            '"followUps" is a key of agent scenarios; add mode: agent or remove it',
        ),
        (
            {"scenarios": [{"id": "s", "prompt": "p", "criteria": ["c"], "mcp": {"f": {"command": "x"}}}]},
            '"mcp" is a key of agent scenarios',
        ),
        (
            {"environment": {"setup": "true"}, "scenarios": [{"id": "s", "prompt": "p", "criteria": ["c"]}]},
            "environment: applies to agent scenarios (mode: agent) and this file has none; remove it",
        ),
    ],
)
def test_mistakes_are_one_line_with_the_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: Any, expected: str
) -> None:
    line = error(tmp_path, data, monkeypatch)
    assert line.startswith("evals/lint.json:") and line.split(":")[1].isdigit(), line
    assert expected in line, line
    assert "not supported yet" not in line  # the real mistake comes first


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            one(expect={"tools": {"called": ["shell"], "notCalled": ["shell"]}}),
            'expect.tools.called[0]: "shell" is also in notCalled',
        ),
        (
            one(expect={"tools": {"called": ["mcp:files/read"]}}),
            'names the MCP server "files", which this scenario\'s mcp does not declare (declared: none)',
        ),
        (
            one(expect={"skillsLoaded": ["a"], "skillsNotLoaded": ["a"]}),
            'expect.skillsLoaded[0]: "a" is also in skillsNotLoaded',
        ),
        (
            one(agent={"maxTurns": 2}, followUps=["one", "two"]),
            "followUps: the prompt and 2 follow-up(s) need 3 turns and agent.maxTurns is 2",
        ),
        (
            one(agent={"sandbox": "process"}, environment={"setup": "true"}),
            "environment: an environment builds an image, which agent.sandbox: process cannot use",
        ),
        (
            one(environment={"files": [{"src": "../../outside", "dest": "/x"}]}),
            'environment.files[0].src: "../../outside" is outside the project',
        ),
        (
            one(environment={"files": [{"src": "bin/nope", "dest": "/x"}]}),
            'environment.files[0].src: "bin/nope" does not exist beside the eval file',
        ),
        (
            {"environment": {"files": [{"src": "bin/nope", "dest": "/x"}]}, **one()},
            'environment.files[0].src: "bin/nope" does not exist',
        ),
    ],
)
def test_rules_across_keys_are_one_line_with_the_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: Any, expected: str
) -> None:
    line = error(tmp_path, data, monkeypatch)
    assert line.startswith("evals/lint.json:") and expected in line, line


def test_a_file_environment_path_is_reported_once_at_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = {"environment": {"files": [{"src": "bin/nope", "dest": "/x"}]}, **one()}
    line = error(tmp_path, data, monkeypatch)
    assert ": environment.files[0].src:" in line and "scenarios[" not in line, line


def test_the_environment_files_are_part_of_the_fingerprint(tmp_path: Path, running: None) -> None:
    from skill_be.project.agent_models import fingerprint_parts

    (skill := tmp_path / "skills" / "lint").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: lint\ndescription: d\n---\n")
    scenarios = load(tmp_path, FULL).scenarios
    labels = [label for label, _ in fingerprint_parts(skill, scenarios)]
    assert "environment/fix/bin/superlint" in labels


# --- the schema and the fast path agree with the models --------------------------------------------


def test_the_published_schema_takes_the_full_file_and_refuses_a_typo() -> None:
    v = jsonschema.Draft202012Validator(generate("eval"))
    assert list(v.iter_errors(FULL)) == []
    typo = copy.deepcopy(FULL)
    typo["scenarios"][0]["expect"]["tools"]["notcalled"] = ["x"]
    assert list(v.iter_errors(typo))
    assert fastcheck.conforms("eval", FULL)
    assert not fastcheck.conforms("eval", typo)


def _accepts(data: object) -> bool:
    try:
        EvalFileModel.model_validate(data)
    except ValidationError:
        return False
    return True


def _paths(node: object, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*here, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*here, i))
    return out


VALUES: list[object] = [None, "", " ", 0, 2.5, True, False, [], {}, "x", ["a", ""], {"k": 1}, "/work/x", "mcp:x", "+x"]


def test_mutations_never_pass_the_fast_path_alone() -> None:
    """The fast path accepts a mutation only when the model does: the schema is exact or stricter."""
    rng = random.Random(7)
    refused = 0
    for _ in range(600):
        bad = copy.deepcopy(FULL)
        path = rng.choice([p for p in _paths(bad) if p])
        parent: Any = bad
        for part in path[:-1]:
            parent = parent[part]
        if rng.random() < 0.2 and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = rng.choice(VALUES)
        ok_model = _accepts(bad)
        assert not (fastcheck.conforms("eval", bad) and not ok_model), (path, bad)
        refused += not ok_model
    assert refused >= 200  # most mutations are mistakes the model catches
