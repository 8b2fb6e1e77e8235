"""`skill-be run` with trigger evals through the real Codex CLI (`codex-cli`) and Gemini CLI
(`gemini-cli`), agent mode's drivers in the process box, against the scripted agent model (the
Responses API, the Gemini API): the model loads the skill whose word is in the query (Codex by a shell
read of its SKILL.md, Gemini by activate_skill), and the recall, false-trigger and near-miss rates and
the confusion table come out exactly as scripted."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.e2e.run.helpers import run, write

SUPPORT = Path(__file__).resolve().parents[2] / "support"
sys.path.insert(0, str(SUPPORT))
import agent_model_server as ams  # noqa: E402  (the folder is put on sys.path just above)

CLIS = "/work/main/.ci/cache/clis/bin"
DURATION = "Use when code reads, adds or prints lengths of time such as timeouts or elapsed times."
MONEY = "Use when code splits, rounds or formats amounts of money."


# Each CLI: its base URL's path on the scripted server, and the name its requests are logged under.
CLI = {"codex-cli": ("/v1", "codex"), "gemini-cli": ("", "gemini")}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    s = ams.AgentServer(str(tmp_path_factory.mktemp("agent-model")), netns=False)
    yield s
    s.stop()


@pytest.mark.parametrize("cli", sorted(CLI))
def test_trigger_rates_through_the_cli_are_exactly_what_the_model_chose(tmp_path: Path, server: Any, cli: str) -> None:
    server.reset()
    # "duration" in the query: load duration; "invoice": load the neighbour; anything else: no load.
    server.agent(choose=[["duration", "duration"], ["invoice", "money"]], final="done")
    root = tmp_path
    write(root / "skills/duration/SKILL.md", f"---\nname: duration\ndescription: {DURATION}\n---\n# D\n")
    write(root / "skills/money/SKILL.md", f"---\nname: money\ndescription: {MONEY}\n---\n# M\n")
    triggers = {"should": ["add two timeout durations", "print the elapsed duration", "sum the build times"],
                "shouldNot": ["what is the capital of Egypt?", {"prompt": "split the invoice three ways", "near": True}]}  # fmt: skip
    doc = {"scenarios": [{"id": "hi", "prompt": "Greet.", "criteria": ["Says hello"]}], "triggers": triggers}
    write(root / "evals/duration.json", json.dumps(doc, indent=2))
    write(root / "grader.py", "print('VERDICTS:\\n1: YES')\n")
    model = {"adapter": cli, "id": "agent-mock", "baseUrl": server.base_url + CLI[cli][0], "apiKeyEnv": "TRIG_KEY"}
    cfg = {"skills": "./skills", "evals": "./evals", "model": model,
           "grader": {"adapter": "command", "id": "judge", "run": f"{sys.executable} grader.py"},
           "reps": 2, "gradings": 1, "checks": {"typecheck": False}}  # fmt: skip
    write(root / "skill-be.yaml", yaml.safe_dump(cfg, sort_keys=False))
    r = run(root, "run", env={"TRIG_KEY": "sk-trig", "PATH": f"{CLIS}:{os.environ['PATH']}"},
            timeout=300)  # fmt: skip
    m = r.summary()["skills"]["duration"]["triggers"]["models"]["agent-mock"]
    assert (m["recall"]["hits"], m["recall"]["total"]) == (4, 6), r.stderr + r.stdout
    assert (m["falseTrigger"]["hits"], m["falseTrigger"]["total"]) == (0, 2)
    assert (m["nearMiss"]["hits"], m["nearMiss"]["total"]) == (0, 2)
    assert m["confusion"] == {
        "should": {"duration": 4, "money": 0, "(none)": 2},
        "shouldNot": {"duration": 0, "money": 0, "(none)": 2},
        "near": {"duration": 0, "money": 2, "(none)": 0},
    }
    loads = [e for e in server.agent_log() if e["cli"] == CLI[cli][1] and e["kind"] == "tool"]
    if cli == "codex-cli":  # Codex has no skill tool: a load is its shell reading the SKILL.md
        assert len(loads) == 6 and all("SKILL.md" in e["input"]["cmd"] for e in loads)  # 4 duration + 2 money
    else:
        assert sorted(e["input"]["name"] for e in loads) == ["duration"] * 4 + ["money"] * 2
        assert all(e["name"] == "activate_skill" for e in loads)
