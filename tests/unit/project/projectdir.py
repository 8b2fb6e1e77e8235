"""A small project on disk, built per test (the `project` fixture lives in conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

CONFIG = """\
skills: ./skills
evals: ./evals
model:
  adapter: command
  id: m
  run: ./model.sh
grader:
  adapter: command
  id: g
  run: ./grader.sh
"""


class ProjectDir:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.config = root / "skill-be.yaml"
        self.config.write_text(CONFIG, encoding="utf-8")
        (root / "skills").mkdir()
        (root / "evals").mkdir()

    def write(self, rel: str, text: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    def add_config(self, extra: str) -> None:
        self.config.write_text(self.config.read_text(encoding="utf-8") + extra, encoding="utf-8")

    def skill(self, name: str, scenarios: list[dict[str, object]] | None = None, md: str | None = None) -> None:
        self.write(
            f"skills/{name}/SKILL.md",
            md if md is not None else f"---\nname: {name}\ndescription: Test skill {name}.\n---\n# {name}\n",
        )
        if scenarios is not None:
            self.write(f"evals/{name}.json", json.dumps({"scenarios": scenarios}, indent=2))


def judge(sid: str = "a") -> dict[str, object]:
    return {"id": sid, "prompt": "Do it.", "criteria": ["Does it"]}


def coded(sid: str = "t") -> dict[str, object]:
    return {"id": sid, "prompt": "Write it.", "output": {"result": "the function"}}
