"""`skill-be run` on a project with an agent scenario, in-process, the drivers' table replaced by the
fake agent (tests/integration/agent_run/fake_agent.py): both arms, reps, criteria graded over what
the agent did, checks (plain and JSON lines), the skill-loaded line, code tests on output.file are
left to the code-test suites; the run folder keeps each rep's transcript and diff."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml
from tests.e2e.run.helpers import KEYWORD_GRADER
from tests.integration.agent_run.fake_agent import write

REPO = Path(__file__).resolve().parents[3]

CLIS = "/work/main/.ci/cache/clis/bin"
VERIFY = """
import json, os
text = open("answer.txt").read() if os.path.exists("answer.txt") else ""
print("checking")
print(json.dumps({"checks": [{"name": "written", "passed": bool(text)}, {"name": "skilled", "passed": "loaded-yes" in text}]}))
"""


def agent_project(root: Path, model_server: str, sandbox: str, reps: int = 2) -> Path:
    write(root / "skills/greet/SKILL.md", "---\nname: greet\ndescription: Greets people well.\n---\n# Greet\n")
    write(root / "skills/greet/scripts/hello.sh", "echo hello\n")
    write(root / "evals/ws/greeting.txt", "hi\n")
    write(root / "evals/checks/verify.py", VERIFY)
    prompt = {
        "load": True,
        "steps": [{"write": ["answer.txt", "$LOADED\n"]}, {"sh": "cat greeting.txt"}],
        "final": "I wrote answer.txt",
    }
    scenario = {
        "id": "greet-file",
        "mode": "agent",
        "critical": True,
        "prompt": json.dumps(prompt),
        "workspace": {"from": ["ws"], "files": {"notes/todo.md": "- greet\n"}, "git": True},
        "agent": {"maxTurns": 5, "timeoutSeconds": 60, "sandbox": sandbox},
        "checks": ["test -f answer.txt", {"name": "verify", "run": "python3 $CHECKS/checks/verify.py"}],
        "checkFiles": ["checks"],
        "criteria": ["The agent wrote answer.txt", "The file says loaded-yes"],
        "expect": {"skillLoaded": True},
    }
    write(root / "evals/greet.json", json.dumps({"scenarios": [scenario]}, indent=2))
    write(root / "grader.py", KEYWORD_GRADER)
    doc = {
        "skills": "./skills",
        "evals": "./evals",
        "model": {
            "adapter": "claude-cli",
            "id": "fake-model",
            "baseUrl": model_server,
            "apiKeyEnv": "ANTHROPIC_API_KEY",
        },
        "grader": {"adapter": "command", "id": "judge", "run": f"{sys.executable} grader.py"},
        "reps": reps,
        "gradings": 1,
        "checks": {"typecheck": False},
    }
    write(root / "skill-be.yaml", yaml.safe_dump(doc, sort_keys=False))
    return root


# `skill-be run` in a child process, as a user runs it, with the drivers' table replaced by the fake.
RUNNER = """
import sys
import time
from skill_be import cli
from skill_be.wiring import agent_parts
from tests.integration.agent_run.fake_agent import FakeDriver
agent_parts.driver = lambda name, **options: FakeDriver()
sys.exit(cli.main(sys.argv[1:]))
"""


def run(root: Path, *args: str, command: str = "run") -> tuple[int, str, dict[str, Any], Path]:
    env = {**os.environ, "PATH": f"{CLIS}:{os.environ['PATH']}", "ANTHROPIC_API_KEY": "sk-fake-key-for-tests"}
    env.pop("CI", None)
    env["NO_COLOR"] = "1"
    env["PYTHONPATH"] = str(REPO)
    argv = [sys.executable, "-c", RUNNER, command, "--config", str(root / "skill-be.yaml"), *args]
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=300, check=False)
    printed = done.stdout + done.stderr
    results = root / ".skill-be" / "results"
    if not results.exists():
        return done.returncode, printed, {}, results
    run_dir = sorted(results.iterdir())[-1]
    return done.returncode, printed, json.loads((run_dir / "summary.json").read_text()), run_dir


def lines_of(summary: dict[str, Any]) -> dict[str, tuple[int, int]]:
    sc = summary["skills"]["greet"]["scenarios"][0]
    model = next(iter(sc["models"].values()))
    return {x["line"]: (x["baseline"], x["withSkill"]) for x in model["lines"]}


def test_an_agent_scenario_runs_both_arms_on_the_host(tmp_path: Path, model_server: str) -> None:
    root = agent_project(tmp_path, model_server, "process")
    counter = tmp_path / "agent-runs.txt"  # the agent on the host appends to it: how many runs were made
    evals = json.loads((root / "evals/greet.json").read_text())
    prompt = json.loads(evals["scenarios"][0]["prompt"])
    prompt["steps"].append({"sh": f"echo run >> {counter}"})
    evals["scenarios"][0]["prompt"] = json.dumps(prompt)
    (root / "evals/greet.json").write_text(json.dumps(evals))
    code, printed, summary, run_dir = run(root, "--html", "--cache")
    assert "agent.sandbox: process: the agent runs on this machine as you" in printed
    assert lines_of(summary) == {
        "The agent wrote answer.txt": (100, 100),
        "The file says loaded-yes": (0, 100),
        "[test] check: check 1: test -f answer.txt": (100, 100),
        "[test] check: verify › written": (100, 100),
        "[test] check: verify › skilled": (0, 100),
        "[test] skill loaded": (0, 100),
    }, printed
    folder = run_dir / "greet" / "greet-file" / "fake-model"
    diff = (folder / "rep-1-with-skill.diff").read_text()
    assert "+loaded-yes" in diff and ".fake/skills" not in diff and "greeting.txt" not in diff
    transcript = json.loads((folder / "rep-2-baseline.transcript.json").read_text())
    assert transcript["skillsOffered"] == [] and transcript["skillsLoaded"] == {}
    with_skill = json.loads((folder / "rep-2-with-skill.transcript.json").read_text())
    assert with_skill["skillsOffered"] == ["greet"] and with_skill["skillsLoaded"] == {"greet": 1}
    assert code == 0, printed
    report = (run_dir / "greet.md").read_text()
    assert "| Agent | Skill loaded | Turns | Tool calls | Tokens in / out | Time |" in report
    assert "| baseline | 0/2 (0%) | 4 | 3 |" in report and "| with skill | 2/2 (100%) | 5 | 4 |" in report
    page = (run_dir / "results.html").read_text()
    for href in (
        "greet/greet-file/fake-model/rep-1-with-skill.transcript.json",
        "greet/greet-file/fake-model/rep-1-baseline.diff",
    ):
        assert f'href="{href}"' in page and (run_dir / href).is_file()
    assert counter.read_text().count("run") == 4
    again, printed, summary, _ = run(root, "--cache")  # the response cache answers every agent run
    assert again == 0 and counter.read_text().count("run") == 4, printed
    assert lines_of(summary)["[test] skill loaded"] == (0, 100)
    code, printed, summary, _ = run(root, command="regrade")  # grades the kept transcript and workspace again
    assert code == 0 and counter.read_text().count("run") == 4, printed
    assert lines_of(summary)["[test] check: verify › skilled"] == (0, 100)
    assert lines_of(summary)["The file says loaded-yes"] == (0, 100)


def test_an_agent_scenario_runs_in_containers(tmp_path: Path, client: Any, model_server: str) -> None:
    root = agent_project(tmp_path, model_server, "docker", reps=1)
    code, printed, summary, _ = run(root)
    assert lines_of(summary)["[test] check: verify › skilled"] == (0, 100), printed
    assert lines_of(summary)["[test] skill loaded"] == (0, 100)
    out = summary["skills"]["greet"]["scenarios"][0]["models"]["fake-model"]["outputs"]
    agent = {o["arm"]: o["adapter"]["agent"] for o in out}
    assert agent["with-skill"]["loaded"] is True and agent["baseline"]["loaded"] is False
    assert agent["with-skill"]["toolCalls"] == 3 and agent["baseline"]["toolCalls"] == 2
    assert code == 0, printed


def test_an_agent_that_goes_on_ends_at_its_time_limit_as_that_output_s_error(tmp_path: Path, model_server: str) -> None:
    root = agent_project(tmp_path, model_server, "process", reps=1)
    evals = json.loads((root / "evals/greet.json").read_text())
    sc = evals["scenarios"][0]
    sc["prompt"] = json.dumps({"steps": [{"sh": "sleep 60"}], "final": "never"})
    sc["agent"]["timeoutSeconds"] = 2
    (root / "evals/greet.json").write_text(json.dumps(evals))
    started = time.monotonic()
    code, printed, summary, _ = run(root)
    assert time.monotonic() - started < 40, printed
    outputs = summary["skills"]["greet"]["scenarios"][0]["models"]["fake-model"]["outputs"]
    assert [o["error"] for o in outputs] == ["the agent run failed (the agent reached its time limit)"] * 2
    assert all(v == (0, 0) for v in lines_of(summary).values())
    # Every run of the model errored: nothing was measured, so the skill is ERROR (exit 3), not NOT READY.
    assert code == 3 and "greet: ERROR (every call of the model fake-model failed" in printed, printed


def test_an_agent_scenario_runs_in_shards_and_merges(tmp_path: Path, model_server: str) -> None:
    root = agent_project(tmp_path, model_server, "process")
    folders = []
    for k in (1, 2):
        code, printed, _, run_dir = run(root, "--shard", f"{k}/2")
        assert code == 0, printed
        folders.append(str(run_dir))
    code, printed, summary, run_dir = run(root, *folders, command="merge")
    assert code == 0, printed
    assert lines_of(summary)["[test] check: verify › skilled"] == (0, 100)
    assert lines_of(summary)["[test] skill loaded"] == (0, 100)
    folder = run_dir / "greet" / "greet-file" / "fake-model"
    assert "+loaded-yes" in (folder / "rep-2-with-skill.diff").read_text()


def test_neighbours_are_installed_in_both_arms(tmp_path: Path, model_server: str) -> None:
    root = agent_project(tmp_path, model_server, "process", reps=1)
    write(root / "skills/helper/SKILL.md", "---\nname: helper\ndescription: Helps.\n---\n# Helper\n")
    doc = yaml.safe_load((root / "skill-be.yaml").read_text())
    (root / "skill-be.yaml").write_text(yaml.safe_dump({**doc, "neighbours": ["./skills/helper"]}))
    code, printed, _, run_dir = run(root, "greet")
    folder = run_dir / "greet" / "greet-file" / "fake-model"
    offered = {
        arm: json.loads((folder / f"rep-1-{arm}.transcript.json").read_text())["skillsOffered"]
        for arm in ("baseline", "with-skill")
    }
    assert offered == {"baseline": ["helper"], "with-skill": ["greet", "helper"]}, printed
    (root / "skill-be.yaml").write_text(yaml.safe_dump({**doc, "neighbours": ["./skills/nope"]}))
    code, printed, _, _ = run(root, "greet")
    assert code == 2 and "skill-be.yaml:15:3: neighbours[0]: skills/nope" in printed, printed


PROBE_TEST = """\
import assert from 'node:assert/strict';
import { test } from '@ngwes/skill-be/testing';

test('returns contained', async ({ result }) => {
  assert.equal(await result(), 'contained');
});
"""


def test_code_tests_run_on_the_file_the_agent_wrote(tmp_path: Path, model_server: str) -> None:
    root = agent_project(tmp_path, model_server, "process", reps=1)
    evals = json.loads((root / "evals/greet.json").read_text())
    sc = evals["scenarios"][0]
    code = "export const result = async (): Promise<string> => 'contained';\n"
    sc["prompt"] = json.dumps({"steps": [{"write": ["src/answer.ts", code]}], "final": "wrote src/answer.ts"})
    sc["output"] = {"result": "an async function that returns a word", "file": "src/answer.ts"}
    for key in ("checks", "checkFiles", "expect", "criteria"):  # the code tests are the only line here
        del sc[key]
    (root / "evals/greet.json").write_text(json.dumps(evals))
    write(root / "skill-tests/greet/greet-file.test.ts", PROBE_TEST)
    doc = yaml.safe_load((root / "skill-be.yaml").read_text())
    (root / "skill-be.yaml").write_text(yaml.safe_dump({**doc, "tests": "./skill-tests"}))
    exit_code, printed, summary, _ = run(root)
    assert lines_of(summary) == {"[test] returns contained": (100, 100)}, printed
    assert exit_code == 0, printed
