"""Every example project checks clean and its offline demo runs to READY, and the README's main-job
command is one of them: what a newcomer runs first must work."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.support import cli

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p.name for p in (REPO / "examples").iterdir() if (p / "skill-be.demo.yaml").is_file())


def skill_be(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return cli.skill_be(cwd, *args, drop=("CI",))


def copy(name: str, tmp_path: Path) -> Path:
    dest = tmp_path / name
    shutil.copytree(REPO / "examples" / name, dest, ignore=shutil.ignore_patterns(".skill-be", "node_modules"))
    return dest


def test_there_are_the_documented_examples() -> None:
    assert {"durations", "incident-summary", "signup", "py-money"} <= set(EXAMPLES)


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_demo_runs_to_ready_and_writes_its_reports(tmp_path: Path, name: str) -> None:
    root = copy(name, tmp_path)
    r = skill_be(root, "run", "--config", "skill-be.demo.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "**READY** — No universal 0% criteria. No critical regressions." in r.stdout
    assert r.stdout.rstrip().endswith("Result: pass")
    result = json.loads((root / ".skill-be" / "demo.result.json").read_text())
    assert all(entry["ready"] for entry in result["skills"].values())
    assert not (root / "skill-be.result.json").exists()  # a demo never writes the real result file
    runs = list((root / ".skill-be" / "demo-results").iterdir())
    assert len(runs) == 1 and (runs[0] / "summary.json").is_file()


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_real_config_checks_clean(tmp_path: Path, name: str) -> None:
    root = copy(name, tmp_path)
    r = skill_be(root, "check")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.rstrip().endswith("Result: pass")


def test_the_readme_main_command_runs_a_bundled_demo() -> None:
    first = (REPO / "README.md").read_text().split("```sh\n", 1)[1].split("\n", 1)[0]
    m = re.fullmatch(r"pip install -e \. && skill-be run --config (examples/[\w-]+/skill-be\.demo\.yaml)\s+#.*", first)
    assert m, first
    assert (REPO / m.group(1)).is_file()
