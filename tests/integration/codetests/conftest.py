"""A code-test project on disk and a way to drive a CodeTestSession from synchronous tests."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from skill_be.codetests.session import CodeTestSession
from skill_be.project.loader import load_project

T = TypeVar("T")

PROBE_TEST = """\
import assert from 'node:assert/strict';
import { test } from '@ngwes/skill-be/testing';

test('probe', async ({ result }) => {
  assert.equal(await result(), 'contained');
});

test('after', ({ result }) => {
  assert.equal(typeof result, 'function');
});
"""
CONTAINED = "```ts\nexport const result = async (): Promise<string> => 'contained';\n```"


class CodeProject:
    """skills/<skill>/SKILL.md, evals/<skill>.json with one output contract per test file, skill-tests/."""

    def __init__(self, root: Path, skill: str = "probe") -> None:
        self.root = root
        self.skill = skill
        self.config = root / "skill-be.yaml"
        self.extra: list[str] = []
        self.write(f"skills/{skill}/SKILL.md", f"---\nname: {skill}\n---\n# {skill}\n")

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def scenarios(self, tests: dict[str, str], output: dict[str, str] | None = None, language: str = "") -> None:
        """One scenario per test file; `language="python"` makes them Python's (test_<id>.py)."""
        contract = output or {"result": "the function under test"}
        if language:
            contract = {"language": language, **contract}
        scenarios = [{"id": sid, "prompt": f"Write {sid}.", "output": contract} for sid in tests]
        self.write(f"evals/{self.skill}.json", json.dumps({"skill": self.skill, "scenarios": scenarios}, indent=2))
        for sid, text in tests.items():
            name = f"test_{sid}.py" if language == "python" else f"{sid}.test.ts"
            self.write(f"skill-tests/{self.skill}/{name}", text)

    def save_config(self, code_tests: dict[str, object] | None = None, concurrency: int = 2) -> Path:
        lines = [
            "skills: ./skills",
            "evals: ./evals",
            "tests: ./skill-tests",
            f"concurrency: {concurrency}",
            "model:\n  adapter: command\n  id: m\n  run: python3 model.py",
            "grader:\n  adapter: command\n  id: g\n  run: python3 grader.py",
        ]
        if code_tests:
            lines.append("codeTests:")
            for key, value in code_tests.items():
                lines.append(f"  {key}: {json.dumps(value)}")
        self.config.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return self.config


class Listener:
    """A TCP server on the host's loopback that counts the connections it accepts."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()


class Driver:
    """One event loop for a session's whole life: its compiler process belongs to that loop."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.warnings: list[str] = []

    def __call__(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(coro)

    def open(self, config: Path, keep_deps: bool = False, weaken: frozenset[str] = frozenset()) -> CodeTestSession:
        project = load_project(config)
        return self(CodeTestSession.open(project, keep_deps=keep_deps, warn=self.warnings.append, weaken=weaken))

    def close(self) -> None:
        self.loop.close()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CodeProject:
    p = CodeProject(tmp_path / "proj")
    monkeypatch.chdir(p.root)  # messages show paths relative to the current folder, as for a user
    return p


@pytest.fixture
def drive() -> Iterator[Driver]:
    d = Driver()
    yield d
    d.close()


def ts(code: str) -> str:
    """A model reply whose code block is `code`."""
    return f"Here is the code.\n\n```ts\n{code}\n```\n"


def py(code: str) -> str:
    """A model reply whose Python code block is `code`."""
    return f"Here is the code.\n\n```python\n{code}\n```\n"
