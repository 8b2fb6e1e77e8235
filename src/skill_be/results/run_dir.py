"""The run directory: `<results>/<start time>/`, one file per output, grading and test result."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from skill_be.engine.observations import Output
from skill_be.results.atomic import write_atomic

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def run_id(started: datetime) -> str:
    """The start time in UTC as a folder name: 2026-10-31T16-20-05-112Z."""
    t = started.astimezone(UTC)
    return t.strftime("%Y-%m-%dT%H-%M-%S-") + f"{t.microsecond // 1000:03d}Z"


def safe_name(label: str) -> str:
    return _UNSAFE.sub("_", label).strip("._") or "model"


class RunDir:
    def __init__(self, results: Path, started: datetime, redact: Callable[[str], str]) -> None:
        self.path = results / run_id(started)
        self.redact = redact

    def create(self) -> None:
        """A new folder; a run started in the same millisecond as another gets a suffix."""
        base = self.path
        for n in range(2, 100):
            try:
                self.path.mkdir(parents=True, exist_ok=False)
                return
            except FileExistsError:
                self.path = base.with_name(f"{base.name}-{n}")
        self.path.mkdir(parents=True, exist_ok=False)

    def drop_if_empty(self) -> None:
        """Remove the folder when nothing was written in it (a run stopped before its first output)."""
        with contextlib.suppress(OSError):
            self.path.rmdir()  # only an empty folder goes

    def output_dir(self, skill: str, scenario: str, model: str) -> Path:
        return self.path / skill / scenario / safe_name(model)

    def output_file(self, skill: str, out: Output) -> Path:
        return self.output_dir(skill, out.scenario, out.model) / f"rep-{out.rep}-{out.arm}.md"

    def write_output(self, skill: str, out: Output) -> None:
        """The answer, every raw grader reply (a retried grading keeps both), and the tests' results."""
        folder = self.output_dir(skill, out.scenario, out.model)
        folder.mkdir(parents=True, exist_ok=True)
        stem = f"rep-{out.rep}-{out.arm}"
        if out.text is not None:
            (folder / f"{stem}.md").write_text(self.redact(out.text) + "\n", encoding="utf-8")
        else:
            (folder / f"{stem}.error.txt").write_text(self.redact(out.error or "") + "\n", encoding="utf-8")
        for g in out.gradings:
            for attempt, reply in enumerate(g.replies, 1):
                last = attempt == len(g.replies)
                name = f"{stem}.grading-{g.k}.md" if last else f"{stem}.grading-{g.k}.attempt-{attempt}.md"
                (folder / name).write_text(self.redact(reply) + "\n", encoding="utf-8")
        if out.tests is not None:
            doc = json.dumps(out.tests.to_json(), indent=2, ensure_ascii=False)
            (folder / f"{stem}.tests.json").write_text(self.redact(doc) + "\n", encoding="utf-8")
        if out.agent is not None:  # an agent run: its transcript and the diff of its work
            transcript = json.dumps(out.agent.get("transcript"), indent=2, ensure_ascii=False)
            (folder / f"{stem}.transcript.json").write_text(self.redact(transcript) + "\n", encoding="utf-8")
            (folder / f"{stem}.diff").write_text(self.redact(str(out.agent.get("diff") or "")), encoding="utf-8")
            # the whole record (the files it changed too), for regrade
            (folder / f"{stem}.agent.json").write_text(self.redact(json.dumps(out.agent)) + "\n", encoding="utf-8")

    def write_report(self, skill: str, text: str) -> Path:
        path = self.path / f"{skill}.md"
        write_atomic(path, self.redact(text))
        return path

    def write_page(self, name: str, text: str) -> Path:
        path = self.path / name
        write_atomic(path, self.redact(text))
        return path

    def write_summary(self, doc: Mapping[str, object]) -> Path:
        """summary.json, as `SummaryModel.to_json` would write it (tests/unit/results/test_summary_model.py)."""
        path = self.path / "summary.json"
        write_atomic(path, self.redact(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n")
        return path


def run_folders(results: Path) -> list[Path]:
    """The run folders under the results folder that have a summary.json, oldest first (their names
    are their start times)."""
    if not results.is_dir():
        return []
    return sorted(p for p in results.glob("*") if (p / "summary.json").is_file())


def latest_run(results: Path, what: str, config: Path | None = None) -> Path:
    """The newest run folder; none is one line naming the folder and the fix (`config`: the one the
    command read, so the fix names it)."""
    from skill_be.errors import ConfigError
    from skill_be.paths import command_line, shown

    runs = run_folders(results)
    if not runs:
        raise ConfigError(
            f'{shown(results)}: no earlier run to {what} (no summary.json); run "{command_line("run", config)}" first'
        )
    return runs[-1]
