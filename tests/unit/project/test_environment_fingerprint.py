"""An agent scenario's `environment` is part of its skill's fingerprint: a changed setup (the eval file)
or a changed `environment.files` file makes verify stale and is named; a file the environment does
not name changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

from skill_be.project.fingerprint import changed_inputs
from skill_be.project.loader import load_project

CONFIG = (
    "skills: ./skills\nevals: ./evals\nmodel: {adapter: claude-cli, id: m}\n"
    "grader: {adapter: command, id: g, run: python3 g.py}\n"
)


def project(root: Path, setup: str) -> Path:
    (root / "skills/greet").mkdir(parents=True, exist_ok=True)
    (root / "skills/greet/SKILL.md").write_text("---\nname: greet\ndescription: Greets.\n---\nx\n")
    (root / "evals/tools").mkdir(parents=True, exist_ok=True)
    if not (root / "evals/tools/hello").exists():
        (root / "evals/tools/hello").write_text("#!/bin/sh\necho hello\n")
    scenario = {
        "id": "greet-file", "mode": "agent", "prompt": "Greet.", "checks": ["hello"],
        "environment": {"setup": setup, "files": [{"src": "tools/hello", "dest": "/usr/local/bin/hello", "mode": "+x"}]},
    }  # fmt: skip
    (root / "evals/greet.json").write_text(json.dumps({"scenarios": [scenario]}))
    (root / "skill-be.yaml").write_text(CONFIG)
    return root / "skill-be.yaml"


def state(config: Path) -> tuple[str, dict[str, str]]:
    p = load_project(config)
    (s,) = p.skills
    return p.fingerprint(s), p.inputs(s)


def test_the_environment_is_in_the_fingerprint_and_a_change_is_named(tmp_path: Path) -> None:
    config = project(tmp_path, "true")
    fp, inputs = state(config)
    assert "environment/greet-file/tools/hello" in inputs
    (tmp_path / "evals/notes.txt").write_text("not part of anything\n")
    assert state(config)[0] == fp  # the control: a file the environment does not name
    (tmp_path / "evals/tools/hello").write_text("#!/bin/sh\necho hello again\n")
    after, changed = state(config)
    assert after != fp and changed_inputs(inputs, changed) == ["environment/greet-file/tools/hello"]
    project(tmp_path, "python3 -m pip install six")
    last, setup_changed = state(config)
    assert last != after and changed_inputs(changed, setup_changed) == ["eval"]
