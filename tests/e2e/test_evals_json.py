"""`<skill>/evals/evals.json` (agentskills.io, skill-creator) read as an eval file, run with scripted
models, and converted to skill-be's own eval file with the same prompts and lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

MODEL = """import sys
prompt = sys.stdin.read()
print("Resolved 09:14-09:41 UTC. " + ("Saw the attached CSV." if "File `evals/files/log.csv`" in prompt else ""))
"""
# Says YES to every criterion it is given and records the prompt, so the test can read what it saw.
# Gradings run at once: each appends under a lock (a read-then-write lost the others' prompts).
GRADER = """import fcntl, re, sys, pathlib
prompt = sys.stdin.read()
with open(pathlib.Path(__file__).with_name("grader-prompts.txt"), "a") as log:
    fcntl.flock(log, fcntl.LOCK_EX)
    log.write(prompt + "\\n=====\\n")
head = prompt.rpartition("<answer>")[0].split("Criteria:")[1].split("What a good answer looks like")[0]
n = len(re.findall(r"^\\d+\\. ", head, re.M))
print("VERDICTS:\\n" + "\\n".join(f"{i}: YES" for i in range(1, n + 1)))
"""

# The agentskills.io guide's shape (string assertions, files) and skill-creator's (expectations).
AGENTSKILLS = {
    "skill_name": "status-page",
    "evals": [
        {
            "id": 1,
            "prompt": "Summarise the outage in the attached log for the status page.",
            "expected_output": "A one-paragraph summary that starts with Resolved and the window in UTC.",
            "files": ["evals/files/log.csv"],
            "assertions": [
                "Starts with Resolved",
                {"name": "mentions UTC", "type": "contains", "value": "UTC"},
                {"name": "no host names", "type": "not_contains", "value": "pay-gw"},
            ],
        },
        {"id": "ongoing", "prompt": "An incident is still going on.", "expectations": ["Says Ongoing"]},
    ],
}


def project(tmp_path: Path, evals: object) -> Path:
    skill = tmp_path / "skills" / "status-page"
    (skill / "evals" / "files").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: status-page\ndescription: Status page summaries.\n---\n# Do it\n")
    (skill / "evals" / "evals.json").write_text(json.dumps(evals, indent=2))
    (skill / "evals" / "files" / "log.csv").write_text("time,host\n09:14,pay-gw-3\n")
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "grader.py").write_text(GRADER)
    (tmp_path / "skill-be.yaml").write_text(
        "skills: ./skills\nevals: ./evals\nreps: 1\ngradings: 1\n"
        "model: {adapter: command, id: m, run: python3 model.py}\n"
        "grader: {adapter: command, id: g, run: python3 grader.py}\n"
        "checks: {typecheck: false}\n"
    )
    return tmp_path


def skill_be(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    return subprocess.run(
        [sys.executable, "-m", "skill_be", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=300
    )


def report(root: Path) -> str:
    (run,) = (root / ".skill-be" / "results").iterdir()
    return (run / "status-page.md").read_text(encoding="utf-8")


def test_an_evals_json_runs_with_its_criteria_assertions_files_and_expected_output(tmp_path: Path) -> None:
    root = project(tmp_path, AGENTSKILLS)
    done = skill_be(root, "run")
    assert done.returncode == 0, done.stdout + done.stderr
    text = report(root)
    for line in ("Starts with Resolved", "Says Ongoing", "[assert] mentions UTC", "[assert] no host names"):
        assert line in text, line
    prompts = (root / "grader-prompts.txt").read_text()
    assert "A one-paragraph summary that starts with Resolved" in prompts  # the judge's context
    assert "1. Starts with Resolved\n\nWhat a good answer" in prompts  # ... and not a criterion
    assert "Saw the attached CSV." in prompts  # the model saw the file


def test_convert_writes_the_equivalent_eval_file_and_the_run_reads_it_the_same(tmp_path: Path) -> None:
    root = project(tmp_path, AGENTSKILLS)
    done = skill_be(root, "convert")
    assert done.returncode == 0, done.stderr
    assert "wrote evals/status-page.json (2 scenarios) from skills/status-page/evals/evals.json" in done.stdout
    converted = json.loads((root / "evals" / "status-page.json").read_text())
    first = converted["scenarios"][0]
    assert first["id"] == "eval-1" and first["expectedOutput"].startswith("A one-paragraph")
    assert first["assertions"] == [
        {"type": "contains", "value": "UTC", "name": "mentions UTC"},
        {"type": "not_contains", "value": "pay-gw", "name": "no host names"},
    ]
    assert "File `evals/files/log.csv`:\n```\ntime,host" in first["prompt"]
    assert skill_be(root, "check").returncode == 0
    again = skill_be(root, "convert")
    assert "nothing to do" in again.stdout  # the skill now reads its own eval file


@pytest.mark.parametrize(
    ("evals", "message"),
    [
        ({"evals": []}, 'evals: needs "evals", a non-empty list of test cases'),
        ({"evals": [{"id": 1}]}, 'evals[0]: needs "prompt"'),
        (
            {"evals": [{"id": 1, "prompt": "x", "assertions": [{"type": "regex", "value": 1}]}]},
            "evals[0].assertions[0]: must be a string",
        ),
        (
            {"evals": [{"id": 1, "prompt": "x", "files": ["../secret"], "assertions": ["a"]}]},
            "is outside the skill folder",
        ),
        ({"evals": [{"id": 1, "prompt": "x", "files": ["nope.txt"], "assertions": ["a"]}]}, '"nope.txt": not found'),
        (
            {"evals": [{"id": 1, "prompt": "x", "assertions": ["a"]}, {"id": 1, "prompt": "y", "assertions": ["b"]}]},
            "used twice",
        ),
    ],
)
def test_a_malformed_evals_json_is_one_line_with_its_place_and_exit_2(
    tmp_path: Path, evals: object, message: str
) -> None:
    root = project(tmp_path, evals)
    done = skill_be(root, "check")
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("skills/status-page/evals/evals.json:"), line
    assert message in line, line
