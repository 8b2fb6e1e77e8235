"""The run directory: `<results>/<start time>/`, one file per output, grading and test result."""

from __future__ import annotations

import atexit
import contextlib
import json
import queue
import re
import threading
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


Files = tuple[Path, list[tuple[str, str]]]  # a folder, and each file's name and text in it


def _write_files(files: Files) -> None:
    folder, texts = files
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in texts:
        (folder / name).write_text(text, encoding="utf-8")


class _Writer:
    """A thread that writes the output files handed to it, in order, so that the event loop never
    waits on the disk between model calls. `flush` returns once everything handed over is written,
    and raises what writing raised."""

    def __init__(self) -> None:
        self._queue: queue.Queue[Files] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._error: OSError | None = None

    def put(self, files: Files) -> None:
        self._raise()
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="skill-be-run-files", daemon=True)
            self._thread.start()
            atexit.register(self._queue.join)  # a command that ends some other way still writes them all
        self._queue.put(files)

    def _work(self) -> None:
        while True:
            files = self._queue.get()
            try:
                if self._error is None:
                    _write_files(files)
            except OSError as e:
                self._error = e
            finally:
                self._queue.task_done()

    def flush(self) -> None:
        if self._thread is not None:
            self._queue.join()
        self._raise()

    def _raise(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error


class RunDir:
    def __init__(self, results: Path, started: datetime, redact: Callable[[str], str]) -> None:
        self.path = results / run_id(started)
        self.redact = redact
        self._writer = _Writer()

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
            self.flush()
            self.path.rmdir()  # only an empty folder goes

    def output_dir(self, skill: str, scenario: str, model: str) -> Path:
        return self.path / skill / scenario / safe_name(model)

    def output_file(self, skill: str, out: Output) -> Path:
        return self.output_dir(skill, out.scenario, out.model) / f"rep-{out.rep}-{out.arm}.md"

    def output_files(self, skill: str, out: Output) -> Files:
        """The answer, every raw grader reply (a retried grading keeps both), and the tests' results:
        the folder, and each file's name and text."""
        stem = f"rep-{out.rep}-{out.arm}"
        texts: list[tuple[str, str]] = []
        if out.text is not None:
            texts.append((f"{stem}.md", self.redact(out.text) + "\n"))
        else:
            texts.append((f"{stem}.error.txt", self.redact(out.error or "") + "\n"))
        for g in out.gradings:
            for attempt, reply in enumerate(g.replies, 1):
                last = attempt == len(g.replies)
                name = f"{stem}.grading-{g.k}.md" if last else f"{stem}.grading-{g.k}.attempt-{attempt}.md"
                texts.append((name, self.redact(reply) + "\n"))
        if out.tests is not None:
            doc = json.dumps(out.tests.to_json(), indent=2, ensure_ascii=False)
            texts.append((f"{stem}.tests.json", self.redact(doc) + "\n"))
        if out.agent is not None:  # an agent run: its transcript and the diff of its work
            transcript = json.dumps(out.agent.get("transcript"), indent=2, ensure_ascii=False)
            texts.append((f"{stem}.transcript.json", self.redact(transcript) + "\n"))
            texts.append((f"{stem}.diff", self.redact(str(out.agent.get("diff") or ""))))
            # the whole record (the files it changed too), for regrade
            texts.append((f"{stem}.agent.json", self.redact(json.dumps(out.agent)) + "\n"))
        return self.output_dir(skill, out.scenario, out.model), texts

    def write_output(self, skill: str, out: Output) -> None:
        """An output's files (`output_files`), written before this returns."""
        _write_files(self.output_files(skill, out))

    def send_output(self, skill: str, out: Output) -> None:
        """The same files as `write_output`, their texts taken now and written by a thread of the run
        folder's own; `flush` (and every report, page and summary.json written) waits for them."""
        self._writer.put(self.output_files(skill, out))

    def flush(self) -> None:
        """Every output sent so far is on disk when this returns."""
        self._writer.flush()

    def write_report(self, skill: str, text: str) -> Path:
        self.flush()  # what the report and summary.json name exists before they do
        path = self.path / f"{skill}.md"
        write_atomic(path, self.redact(text))
        return path

    def write_page(self, name: str, text: str) -> Path:
        self.flush()
        path = self.path / name
        write_atomic(path, self.redact(text))
        return path

    def write_summary(self, doc: Mapping[str, object]) -> Path:
        """summary.json, as `SummaryModel.to_json` would write it (tests/unit/results/test_summary_model.py)."""
        self.flush()
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
