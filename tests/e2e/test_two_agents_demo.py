"""The two-agents demo (examples/agent-demo/skill-be.two-agents.demo.yaml) prints the table across
models that docs/tutorials/two-agents.md shows, byte for byte; `gate.models` naming the agent the skill
cannot help blocks the run, and naming only the one it helps does not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.e2e.run.helpers import run

REPO = Path(__file__).resolve().parents[2]
TUTORIAL = REPO / "docs" / "tutorials" / "two-agents.md"


def table(text: str) -> str:
    """From `### Across models` to the line under the table (the pooling sentence)."""
    start = text.index("### Across models")
    end = text.index("Set gate.models to require the skill to hold on a model.", start)
    return text[start:end]


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    root = tmp_path / "agent-demo"
    shutil.copytree(REPO / "examples" / "agent-demo", root, ignore=shutil.ignore_patterns(".skill-be"))
    return root


def test_the_demo_prints_the_table_the_tutorial_shows(demo: Path) -> None:
    done = run(demo, "run", "--config", "skill-be.two-agents.demo.yaml")
    assert done.code == 0 and done.stdout.rstrip().endswith("Result: pass"), done.stdout + done.stderr
    assert table(done.stdout) == table(TUTORIAL.read_text(encoding="utf-8"))


@pytest.mark.parametrize(("models", "code"), [("[demo-agent, demo-skeptic]", 1), ("[demo-agent]", 0)])
def test_gate_models_decides_which_agents_must_hold(demo: Path, models: str, code: int) -> None:
    config = demo / "skill-be.two-agents.demo.yaml"
    config.write_text(config.read_text(encoding="utf-8") + f"\ngate:\n  models: {models}\n", encoding="utf-8")
    done = run(demo, "run", "--config", "skill-be.two-agents.demo.yaml")
    assert done.code == code, done.stdout + done.stderr
