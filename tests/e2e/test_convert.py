"""`skill-be convert --from skillgrade` and `--from skill-lens` as a user runs them: the peer's eval file
becomes the equivalent skill-be eval file (valid against the published schema), every item without an
equivalent is one warning line with its place, nothing existing is overwritten without --force, bad
input is one line with line:col and exit 2. The converted superlint grader, run where its tool is
installed, gives skillgrade's JSON lines; without the tool (the control) they fail."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from skill_be.agents.checks import check_lines
from skill_be.schema import generate

PEERS = Path(__file__).resolve().parents[1] / "corpus" / "peers"
CONFIG = (
    "skills: ./skills\nevals: ./evals\nmodel: {adapter: claude-cli, id: claude-sonnet-4-5}\n"
    "grader: {adapter: command, id: g, run: python3 g.py}\nchecks: {typecheck: false}\n"
)


def skill_be(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    return subprocess.run(
        [sys.executable, "-m", "skill_be", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )


def project(tmp_path: Path, peer: str, skill: str, config: bool = True) -> Path:
    shutil.copytree(PEERS / peer, tmp_path / "skills" / skill)
    if config:
        (tmp_path / "skill-be.yaml").write_text(CONFIG)
    return tmp_path


def superlint(tmp_path: Path) -> tuple[Path, subprocess.CompletedProcess[str], dict[str, object]]:
    root = project(tmp_path, "skillgrade-superlint", "superlint")
    done = skill_be(root, "convert", "--from", "skillgrade", "skills/superlint/eval.yaml")
    written = json.loads((root / "evals" / "superlint.json").read_text()) if done.returncode == 0 else {}
    return root, done, written


def test_superlint_becomes_an_agent_scenario_with_its_tool_its_grader_and_its_rubric(tmp_path: Path) -> None:
    root, done, data = superlint(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "wrote evals/superlint.json (1 scenario) from skills/superlint/eval.yaml\n"
    assert list(jsonschema.Draft202012Validator(generate("eval")).iter_errors(data)) == []
    (sc,) = data["scenarios"]  # type: ignore[index]
    assert (sc["id"], sc["mode"]) == ("fix-linting-errors", "agent")
    assert sc["prompt"].startswith("app.js breaks our coding standard")
    assert sc["workspace"] == {"files": {"app.js": 'var greeting = "hello world";\n'}}
    (tool,) = sc["environment"]["files"]
    assert (tool["dest"], tool["mode"]) == ("/usr/local/bin/superlint", "+x")
    assert (root / "evals" / tool["src"]).resolve() == (root / "skills/superlint/bin/superlint").resolve()
    assert sc["agent"] == {"timeoutSeconds": 300}
    assert sc["criteria"] == [
        "The agent ran superlint check, then fix, then verify",
        "The agent used superlint rather than editing app.js by hand",
        "The agent needed at most five commands",
    ]
    (check,) = sc["checks"]
    assert check["name"] == "grader" and check["run"].startswith("bash <<'SKILLGRADE_GRADER'\npassed=0\n")
    warnings = done.stderr.splitlines()
    expected = [
        ("eval.yaml:6:3: defaults.agent: no equivalent", "the config's model"),
        ("eval.yaml:8:3: defaults.trials:", "put reps: 5 in skill-be.yaml"),
        ("eval.yaml:10:3: defaults.threshold: no equivalent", "not a pass rate with a threshold"),
        ("eval.yaml:12:5: defaults.docker.base:", "node:20-slim is not used"),
        ("graders[0].weight (and 1 more like it):", "not a weighted score"),
    ]
    for (where, words), line in zip(expected, warnings, strict=False):
        assert line.startswith("warning: skills/superlint/") and where in line and words in line, line
    assert len(warnings) == len(expected)  # environment runs: no note that it does not


def test_check_accepts_the_converted_file_now_that_environment_runs(tmp_path: Path) -> None:
    root, done, _ = superlint(tmp_path)
    assert done.returncode == 0
    checked = skill_be(root, "check")
    assert "not supported yet" not in checked.stderr and "evals/superlint.json:" not in checked.stderr, checked.stderr


def place_tool(data: dict[str, object], evals: Path, image: Path) -> None:
    """What the agent's image will hold: each environment file at its dest (under `image`), its mode applied."""
    (sc,) = data["scenarios"]  # type: ignore[index]
    for f in sc["environment"]["files"]:
        dest = image / f["dest"].lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(evals / f["src"], dest)
        if f.get("mode") == "+x":
            dest.chmod(dest.stat().st_mode | 0o111)


def agent_and_grader(data: dict[str, object], ws: Path, path: str) -> list[tuple[str, bool, str | None]]:
    """The task's workflow as a scripted agent runs it in the workspace, then the converted check."""
    (sc,) = data["scenarios"]  # type: ignore[index]
    for rel, text in sc["workspace"]["files"].items():
        (ws / rel).write_text(text)
    env = {"PATH": path, "HOME": str(ws)}
    for step in ("superlint check", "superlint fix --target app.js", "superlint verify"):
        subprocess.run(["sh", "-c", step], cwd=ws, env=env, capture_output=True, timeout=30)
    (check,) = sc["checks"]
    done = subprocess.run(["sh", "-c", check["run"]], cwd=ws, env=env, capture_output=True, text=True, timeout=30)

    class Row:
        name, exit, output = check["name"], str(done.returncode), done.stdout + done.stderr

    return check_lines([Row()])


def test_the_converted_grader_gives_its_json_lines_with_the_tool_and_fails_without(tmp_path: Path) -> None:
    root, done, data = superlint(tmp_path / "p")
    assert done.returncode == 0
    image = tmp_path / "image"
    place_tool(data, root / "evals", image)
    base_path = os.environ["PATH"]
    (ws := tmp_path / "ws").mkdir()
    lines = agent_and_grader(data, ws, f"{image / 'usr/local/bin'}:{base_path}")
    assert lines == [("check: grader › verified", True, None), ("check: grader › code-fixed", True, None)]
    (bare := tmp_path / "bare").mkdir()  # the control: the same run where the tool is not installed
    lines = agent_and_grader(data, bare, base_path)
    assert lines == [("check: grader › verified", False, None), ("check: grader › code-fixed", False, None)]


def test_an_existing_file_is_never_overwritten_without_force(tmp_path: Path) -> None:
    root, done, _ = superlint(tmp_path)
    assert done.returncode == 0
    target = root / "evals" / "superlint.json"
    target.write_text('{"scenarios": "mine"}\n')
    before = (target.read_bytes(), target.stat().st_mtime_ns)
    again = skill_be(root, "convert", "--from", "skillgrade", "skills/superlint/eval.yaml")
    assert again.returncode == 2 and again.stdout == ""
    assert again.stderr.strip() == (
        "evals/superlint.json: already exists; convert never overwrites a file: pass --force to replace it, "
        "or -o <file> to write elsewhere"
    )
    assert (target.read_bytes(), target.stat().st_mtime_ns) == before
    named = skill_be(
        root, "convert", "--from", "skillgrade", "skills/superlint/eval.yaml", "-o", "evals/superlint.json"
    )
    assert named.returncode == 2 and target.read_bytes() == before[0]  # naming it is not replacing it
    other = skill_be(root, "convert", "--from", "skillgrade", "skills/superlint/eval.yaml", "-o", "evals/other.json")
    assert other.returncode == 0 and (root / "evals" / "other.json").is_file()
    forced = skill_be(root, "convert", "--from", "skillgrade", "skills/superlint/eval.yaml", "--force")
    assert forced.returncode == 0 and json.loads(target.read_text())["scenarios"][0]["id"] == "fix-linting-errors"


def test_without_a_config_it_needs_an_output_file(tmp_path: Path) -> None:
    root = project(tmp_path, "skillgrade-superlint", "superlint", config=False)
    done = skill_be(root, "convert", "--from", "skillgrade", "skills/superlint/eval.yaml")
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("skill-be.yaml: not found:") and "pass -o <file>" in line
    named = skill_be(root, "convert", "--from", "skillgrade", "skills/superlint/eval.yaml", "-o", "out/superlint.json")
    assert named.returncode == 0, named.stderr
    src = json.loads((root / "out" / "superlint.json").read_text())["scenarios"][0]["environment"]["files"][0]["src"]
    assert src == "../skills/superlint/bin/superlint"  # relative to where the file is written


@pytest.mark.parametrize(
    ("yaml", "expected"),
    [
        ("tasks: [\n", "eval.yaml:2:1: invalid YAML"),
        ("version: '1'\n", 'eval.yaml:1:1: needs "tasks", a list of tasks'),
        ("tasks:\n  - instruction: x\n    graders: []\n", 'eval.yaml:2:5: tasks[0]: needs "name", the task\'s name'),
        (
            "tasks:\n  - name: t\n    instruction: x\n    workspace:\n      - src: nope.js\n        dest: a.js\n",
            'eval.yaml:5:14: tasks[0].workspace[0].src: "nope.js" does not exist beside eval.yaml',
        ),
        (
            "tasks:\n  - name: t\n    instruction: x\n    graders: {type: x}\n",
            "tasks[0].graders: must be a list of graders",
        ),
    ],
)
def test_bad_input_is_one_line_with_its_place_and_nothing_is_written(tmp_path: Path, yaml: str, expected: str) -> None:
    root = project(tmp_path, "skillgrade-superlint", "superlint")
    (root / "skills" / "superlint" / "eval.yaml").write_text(yaml)
    done = skill_be(root, "convert", "--from", "skillgrade", "skills/superlint/eval.yaml")
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("skills/superlint/eval.yaml:") and expected in line, line
    assert not (root / "evals").exists()


def test_a_skill_lens_case_file_converts_case_by_case(tmp_path: Path) -> None:
    root = project(tmp_path, "skill-lens-refund", "refund")
    done = skill_be(root, "convert", "--from", "skill-lens", "skills/refund/refund.eval.yaml")
    assert done.returncode == 0, done.stderr
    data = json.loads((root / "evals" / "refund.json").read_text())
    assert list(jsonschema.Draft202012Validator(generate("eval")).iter_errors(data)) == []
    plain, tools, offered, files = data["scenarios"]
    assert "mode" not in plain and plain["assertions"] == [{"type": "not_contains", "value": "Traceback"}]
    assert tools["mode"] == "agent" and tools["expect"]["tools"] == {
        "called": ["lookup_order"],
        "notCalled": ["issue_refund"],
    }
    assert tools["criteria"] == ["The reply names order 1234", "The reply explains that the return window has closed"]
    assert tools["budget"] == {"maxTokens": 2000, "maxCostUsd": 0.01, "maxSeconds": 30.0}
    assert offered["expect"] == {"skillLoaded": False}
    assert files["checks"] == [{"name": "file-produced report.md", "run": "test -f 'report.md'"}]
    assert files["workspace"] == {"files": {"sales.csv": "region,units\nnorth,120\n"}}
    warned = [line for line in done.stderr.splitlines() if line.startswith("warning: ")]
    assert any("cases[1].tools: mock tools: no equivalent" in w for w in warned)
    assert any("cases[1].trajectory.max_calls: no equivalent" in w for w in warned)
    assert any("cases[0].tags: no equivalent" in w for w in warned)


def test_the_case_files_of_one_skill_join_into_one_eval_file(tmp_path: Path) -> None:
    root = project(tmp_path, "skill-lens-refund", "refund")
    (root / "skills" / "refund" / "more.eval.yaml").write_text(
        "cases:\n  - name: never leaks a stack trace\n    task: Refund order 99\n    judge: {rubric: [Names order 99]}\n"
    )
    done = skill_be(
        root, "convert", "--from", "skill-lens", "skills/refund/refund.eval.yaml", "skills/refund/more.eval.yaml"
    )
    assert done.returncode == 0, done.stderr
    ids = [sc["id"] for sc in json.loads((root / "evals" / "refund.json").read_text())["scenarios"]]
    assert len(ids) == 5 and ids[-1] == "never-leaks-a-stack-trace-2"  # one file, ids kept unique
