"""Python code-test projects for the integration tests: the py-ledger example, with a second scenario
("probe") whose tests the test modules write, opened once per sandbox and shared."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from tests.integration.codetests.conftest import Driver, py

from skill_be.codetests.sandbox.image import DEFAULT_IMAGE
from skill_be.codetests.session import CodeTestSession, TestRun
from skill_be.project.loader import load_project

REPO = Path(__file__).resolve().parents[3]
# The sandbox image with Python 3: the shared tag (.ci/steps/40-docker.sh builds it from the Dockerfile),
# or, while it is being rebuilt, another tag of the same stage.
IMAGE = os.environ.get("SKILL_BE_TEST_SANDBOX_IMAGE", DEFAULT_IMAGE)
SANDBOXES = ("process", "bwrap", "docker")


def ledger_project(root: Path, probe: str, code_tests: dict[str, object]) -> Path:
    """examples/py-ledger under `root`, with scenario "probe" (tests: `probe`) and these codeTests."""
    shutil.copytree(REPO / "examples" / "py-ledger", root, ignore=shutil.ignore_patterns(".skill-be", "build"))
    evals = root / "evals" / "ledger.json"
    data = json.loads(evals.read_text())
    data["scenarios"].append(
        {"id": "probe", "prompt": "Write probe.", "output": {"language": "python", "result": "the probe"}}
    )
    evals.write_text(json.dumps(data, indent=2))
    (root / "skill-tests" / "ledger" / "test_probe.py").write_text(probe)
    conftest = "import pytest\n\n\n@pytest.fixture\ndef shared_amount():\n    return 42\n"
    (root / "skill-tests" / "ledger" / "conftest.py").write_text(conftest)
    config = root / "skill-be.demo.yaml"
    lines = [f"  {k}: {json.dumps(v)}" for k, v in code_tests.items()]
    config.write_text(config.read_text() + "\nconcurrency: 1\ncodeTests:\n" + "\n".join(lines) + "\n")
    for folder, _, files in os.walk(root):
        os.chmod(folder, 0o755)
        for f in files:
            os.chmod(os.path.join(folder, f), 0o644)
    return config


class Sessions:
    """One session per (sandbox, weaken), over one copy of the project (its pip list installed once)."""

    def __init__(self, probe: str, **code_tests: object) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="skill-be-py-"))
        self.root.chmod(0o755)
        self.probe = probe
        self.code_tests = code_tests
        self.drive = Driver()
        self.open: dict[tuple[str, frozenset[str]], CodeTestSession] = {}
        self.configs: dict[str, Path] = {}

    def get(self, kind: str, *weaken: str) -> CodeTestSession:
        key = (kind, frozenset(weaken))
        if key not in self.open:
            if kind not in self.configs:
                settings = {"sandbox": kind, "image": IMAGE, **self.code_tests}
                self.configs[kind] = ledger_project(self.root / kind, self.probe, settings)
            self.open[key] = self.drive.open(self.configs[kind], keep_deps=True, weaken=key[1])
        return self.open[key]

    def run(self, kind: str, scenario: str, code: str, *weaken: str) -> TestRun:
        return self.drive(self.get(kind, *weaken).run("ledger", scenario, py(code)))

    def close(self) -> None:
        for session in self.open.values():
            self.drive(session.close())
        self.drive.close()
        shutil.rmtree(self.root, ignore_errors=True)


def messages(run: TestRun) -> dict[str, str | None]:
    assert run.error is None, run.error
    return {r.name: r.message for r in run.results}


def load(config: Path) -> object:
    return load_project(config)
