"""codetests/sandbox_build.py: the Dockerfile the package ships is skill-be's own node and sandbox
stages, the build context holds what they copy, and a failed build is one line."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from skill_be import __version__
from skill_be.codetests.sandbox_build import HERE, build, build_args, context
from skill_be.errors import SkillBeError

REPO = Path(__file__).resolve().parents[3]


def stages(text: str) -> str:
    """From the BASE argument to the end of the sandbox stage, without comments."""
    start = text.index("ARG BASE=")
    end = text.index("# ---- typescript") if "# ---- typescript" in text else len(text)
    return "\n".join(line for line in text[start:end].splitlines() if not line.startswith("#")).strip()


def test_the_shipped_dockerfile_is_the_repositorys_node_and_sandbox_stages() -> None:
    shipped = (HERE / "Dockerfile.txt").read_text(encoding="utf-8")
    assert stages(shipped) == stages((REPO / "Dockerfile").read_text(encoding="utf-8"))
    assert (HERE / "with-ca.sh.txt").read_bytes() == (REPO / "docker" / "with-ca.sh").read_bytes()
    copied = re.findall(r"^COPY (?!--from)(\S+)", shipped, re.MULTILINE)
    assert copied == ["docker/with-ca.sh"]


def test_the_context_holds_what_the_stages_copy(tmp_path: Path) -> None:
    context(tmp_path)
    assert (tmp_path / "Dockerfile").read_text().startswith("# skill-be's sandbox image")
    script = tmp_path / "docker" / "with-ca.sh"
    assert script.stat().st_mode & 0o111
    assert build_args("b", "pem") == {"BASE": "b", "EXTRA_CA_CERTS": "pem", "SKILL_BE_VERSION": __version__}


class FakeApi:
    def __init__(self, chunks: list[dict[str, Any]]) -> None:
        self.chunks = chunks
        self.kwargs: dict[str, Any] = {}

    def build(self, **kwargs: Any) -> list[dict[str, Any]]:
        self.kwargs = kwargs
        assert (Path(kwargs["path"]) / "Dockerfile").is_file()
        return self.chunks


class FakeClient:
    def __init__(self, chunks: list[dict[str, Any]]) -> None:
        self.api = FakeApi(chunks)


def test_build_streams_the_log_and_targets_the_sandbox_stage() -> None:
    client = FakeClient([{"stream": "Step 1/9\n"}, {"stream": "Successfully tagged x\n"}])
    lines: list[str] = []
    build("skill-be-sandbox:t", "base:1", "", lines.append, client)
    assert lines == ["Step 1/9", "Successfully tagged x"]
    kw = client.api.kwargs
    assert (kw["target"], kw["tag"], kw["forcerm"]) == ("sandbox", "skill-be-sandbox:t", True)


def test_a_failed_build_is_one_line() -> None:
    client = FakeClient([{"stream": "Step 1/9\n"}, {"error": "pull access denied for debian\n  (no registry)"}])
    with pytest.raises(SkillBeError, match=r"^sandbox build: docker build failed: pull access denied for debian \(no"):
        build("t", "debian:bookworm-slim", "", lambda _: None, client)
