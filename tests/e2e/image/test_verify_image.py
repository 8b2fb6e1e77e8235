"""The verify image (target verify): no agent CLIs, and every check `verify` and `check` run still works
in it, the TypeScript typecheck with skill-be's pinned TypeScript among them (no download).

SKILL_BE_TEST_VERIFY_IMAGE and SKILL_BE_TEST_IMAGE name images built from this checkout under other
tags (a helper's own build); otherwise .ci/steps/40-docker.sh builds or finds them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from tests.e2e.image.conftest import Run, docker, example
from tests.support.images import built_image

from skill_be import __version__

CLIS = ("claude", "pi", "opencode", "codex", "gemini", "copilot")
# Every agent CLI by name on PATH, and the folder the full image keeps them in.
NO_CLI = "for c in " + " ".join(CLIS) + '; do command -v "$c" && exit 1; done; test ! -e /opt/agent-clis'


@pytest.fixture(scope="module")
def verify_image() -> str:
    if os.environ.get("SKILL_BE_TEST_VERIFY_IMAGE"):
        return os.environ["SKILL_BE_TEST_VERIFY_IMAGE"]
    built_image()
    return f"skill-be-verify:{__version__}"


@pytest.fixture(scope="module")
def full_image() -> str:
    return os.environ.get("SKILL_BE_TEST_IMAGE") or built_image()


def test_the_verify_image_has_no_agent_cli(verify_image: str, full_image: str) -> None:
    done = docker("run", "--rm", "--network", "none", "--entrypoint", "sh", verify_image, "-c", NO_CLI)
    assert done.returncode == 0, f"an agent CLI is in the verify image: {done.stdout}"
    # Control: the same look in the full image finds one.
    control = docker("run", "--rm", "--network", "none", "--entrypoint", "sh", full_image, "-c", NO_CLI)
    assert control.returncode == 1 and "/opt/agent-clis/bin/" in control.stdout


def test_the_typescript_typecheck_runs_in_the_verify_image_without_a_download(
    verify_image: str, tmp_path: Path
) -> None:
    # One container: a copy of examples/durations whose SKILL.md example has a type error, so a pass
    # cannot come from a typecheck that did not run.
    root = example(tmp_path, "durations")
    skill = root / "skills" / "duration" / "SKILL.md"
    text = skill.read_text(encoding="utf-8")
    head = "function readTimeout(raw: string | undefined): Duration {"
    assert head in text
    skill.write_text(text.replace(head, head + "\n  const wrong: number = 'not a number';", 1), encoding="utf-8")
    done = Run(mount=root)(verify_image, "check")
    assert "installing TypeScript" not in done.stderr
    assert "error TS2322: Type 'string' is not assignable to type 'number'." in done.stdout, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("Result: blocked by the typecheck")


def test_verify_and_check_pass_in_the_verify_image(verify_image: str, tmp_path: Path) -> None:
    # The demo's result file is written on the host (no model); verify then checks it in the image.
    root = example(tmp_path, "durations", owner=None)
    demo = subprocess.run(
        ["skill-be", "run", "--config", "skill-be.demo.yaml"], cwd=root, capture_output=True, text=True, check=False
    )
    assert demo.returncode == 0, demo.stdout + demo.stderr
    done = Run(mount=root)(verify_image, "verify", "--config", "skill-be.demo.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("Result: pass")
