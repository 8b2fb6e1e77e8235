"""`codeTests.sandbox: auto` with an engine that answers but lacks the sandbox image (issue 20): the
code tests fall back to bwrap or the process runner, with a note naming `skill-be sandbox build`;
the image present (control), it stays docker."""

from __future__ import annotations

import pytest

from skill_be.codetests.sandbox.image import DEFAULT_IMAGE
from skill_be.codetests.sandbox_build import auto_kind, fallback_kind
from skill_be.containers import engine_answers


@pytest.fixture(autouse=True)
def _engine() -> None:
    """A missing engine fails these tests (CI starts one: .ci/steps/40-docker.sh); it never skips them."""
    why = engine_answers()
    assert why is None, f"these tests need a Docker engine: {why}"


def test_a_missing_default_image_falls_back_with_the_note() -> None:
    notes: list[str] = []
    kind = auto_kind("skill-be-sandbox:issue-20-never-built", notes.append)
    assert kind == fallback_kind() and kind in ("bwrap", "process")
    (note,) = notes
    assert "has no sandbox image skill-be-sandbox:issue-20-never-built" in note
    assert note.endswith("build it once with: skill-be sandbox build")


def test_the_image_present_keeps_docker() -> None:
    import docker

    client = docker.from_env()
    try:
        client.images.get(DEFAULT_IMAGE)
    except Exception:  # pragma: no cover - CI builds it first (.ci/steps/40-docker.sh)
        pytest.fail(f"{DEFAULT_IMAGE} is not built here; .ci/steps/40-docker.sh builds it")
    finally:
        client.close()
    notes: list[str] = []
    assert auto_kind(DEFAULT_IMAGE, notes.append) == "docker" and notes == []
