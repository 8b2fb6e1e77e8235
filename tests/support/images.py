"""The skill-be and sandbox images for the tests that run them: built, or found up to date, by the
same CI step that builds them (.ci/steps/40-docker.sh); a build that fails fails the test."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from skill_be import __version__

REPO = Path(__file__).resolve().parents[2]
IMAGE = f"skill-be:{__version__}"


def built_image() -> str:
    done = subprocess.run(
        ["bash", ".ci/steps/40-docker.sh"], cwd=REPO, capture_output=True, text=True, timeout=1800, check=False
    )
    if done.returncode != 0:
        pytest.fail(f"the images could not be built or found (.ci/steps/40-docker.sh):\n{done.stdout}\n{done.stderr}")
    return IMAGE
