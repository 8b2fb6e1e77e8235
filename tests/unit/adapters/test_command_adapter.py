"""The command adapter finds its program once, and says the same as before when it is gone."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from skill_be.adapters import command
from skill_be.adapters.base import AdapterEnv, AdapterStartError, CallContext
from skill_be.project.config import AdapterEntry
from skill_be.project.where import Where


def _adapter(root: Path, run: str) -> command.CommandAdapter:
    entry = AdapterEntry("command", "m", {"adapter": "command", "id": "m", "run": run}, Where("skill-be.yaml", "model"))
    return command.CommandAdapter(entry, AdapterEnv(root=root, environ=dict(os.environ)))


def _script(path: Path, answer: str) -> None:
    path.write_text(f"#!/bin/sh\ncat >/dev/null\necho {answer}\n")
    path.chmod(0o755)


def test_the_program_is_looked_up_on_the_first_call_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _script(tmp_path / "model.sh", "first")
    adapter = _adapter(tmp_path, "./model.sh")
    looked: list[str] = []
    real = command.resolve_executable

    def counting(word: str, root: Path, path_env: str | None) -> str | None:
        looked.append(word)
        return real(word, root, path_env)

    monkeypatch.setattr(command, "resolve_executable", counting)
    ctx = CallContext(timeout_seconds=30, cwd=tmp_path)

    async def three() -> list[str]:
        return [(await adapter.complete("p", ctx)).text for _ in range(3)]

    assert asyncio.run(three()) == ["first"] * 3
    assert looked == ["./model.sh"]  # control: a fresh adapter looks it up again
    asyncio.run(_adapter(tmp_path, "./model.sh").complete("p", ctx))
    assert looked == ["./model.sh", "./model.sh"]


def test_a_program_gone_after_the_first_call_is_the_same_start_error(tmp_path: Path) -> None:
    _script(tmp_path / "model.sh", "ok")
    ctx = CallContext(timeout_seconds=30, cwd=tmp_path)
    adapter = _adapter(tmp_path, "./model.sh")
    assert asyncio.run(adapter.complete("p", ctx)).text == "ok"  # control: it answers while it is there
    (tmp_path / "model.sh").unlink()
    with pytest.raises(AdapterStartError) as gone:
        asyncio.run(adapter.complete("p", ctx))
    with pytest.raises(AdapterStartError) as never:  # what a first call says for a missing program
        asyncio.run(_adapter(tmp_path, "./model.sh").complete("p", ctx))
    assert str(gone.value) == str(never.value)
    assert '"./model.sh" (not found)' in str(gone.value)
    _script(tmp_path / "model.sh", "back")  # found again once it is back
    assert asyncio.run(adapter.complete("p", ctx)).text == "back"
