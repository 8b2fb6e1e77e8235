from __future__ import annotations

import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from skill_be.engine.observations import Grading, Output
from skill_be.results import run_dir as run_dir_module
from skill_be.results.run_dir import RunDir, run_id, safe_name


def test_run_id_is_the_start_time_in_utc_with_milliseconds() -> None:
    assert run_id(datetime(2026, 10, 31, 16, 20, 5, 112_999, tzinfo=UTC)) == "2026-10-31T16-20-05-112Z"


def test_a_second_run_in_the_same_millisecond_gets_its_own_folder(tmp_path: Path) -> None:
    t = datetime(2026, 10, 31, 16, 20, 5, tzinfo=UTC)
    a, b = RunDir(tmp_path, t, str), RunDir(tmp_path, t, str)
    a.create()
    b.create()
    assert a.path.name == "2026-10-31T16-20-05-000Z" and b.path.name == "2026-10-31T16-20-05-000Z-2"


def test_model_labels_become_safe_folder_names() -> None:
    assert safe_name("claude-cli:claude-sonnet-4-5") == "claude-cli_claude-sonnet-4-5"
    assert safe_name("./adapter.py:x") == "adapter.py_x"


def _outputs() -> list[Output]:
    """An answer with a retried grading, a failed generation, and an agent run's record."""

    class Tests:
        results: tuple[object, ...] = ()
        error = None

        def to_json(self) -> dict[str, object]:
            return {"results": [{"name": "t1", "passed": True}], "note": "é"}

    answer = Output(scenario="s1", model="cli:m", rep=1, arm="with-skill", text="Use KEY-1234 here.")
    answer.gradings = [
        Grading(k=1, replies=["garbled", "VERDICTS:\n1: YES"]),
        Grading(k=2, replies=["VERDICTS:\n1: NO"]),
    ]
    answer.tests = Tests()  # type: ignore[assignment]
    failed = Output(scenario="s1", model="cli:m", rep=2, arm="baseline", error="timed out KEY-1234")
    agent = Output(scenario="s2", model="cli:m", rep=1, arm="baseline", text="done")
    agent.agent = {"transcript": [{"turn": 1}], "diff": "+x\n", "files": {"a.py": "x"}}
    return [answer, failed, agent]


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _redact(text: str) -> str:
    return text.replace("KEY-1234", "***")


def test_outputs_sent_to_the_writer_thread_are_the_files_written_directly(tmp_path: Path) -> None:
    t = datetime(2026, 10, 31, 16, 20, 5, tzinfo=UTC)
    direct, sent = RunDir(tmp_path / "direct", t, _redact), RunDir(tmp_path / "sent", t, _redact)
    for out in _outputs():
        direct.write_output("money", out)
        sent.send_output("money", out)
    sent.flush()
    files = _tree(direct.path)
    assert len(files) == 10 and b"KEY-1234" not in b"".join(files.values())
    assert _tree(sent.path) == files
    # control: one reply changed gives another tree, so the comparison can fail
    other = RunDir(tmp_path / "other", t, _redact)
    changed = _outputs()
    changed[0].gradings[1].replies = ["VERDICTS:\n1: YES"]
    for out in changed:
        other.send_output("money", out)
    other.flush()
    assert _tree(other.path) != files


def test_a_summary_waits_for_the_outputs_sent_before_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = threading.Event()
    write = run_dir_module._write_files

    def slow(files: run_dir_module.Files) -> None:
        gate.wait(10)
        write(files)

    monkeypatch.setattr(run_dir_module, "_write_files", slow)
    run = RunDir(tmp_path, datetime(2026, 10, 31, 16, 20, 5, tzinfo=UTC), str)
    run.create()
    out = _outputs()[0]
    run.send_output("money", out)
    answer = run.output_file("money", out)
    assert not answer.exists()  # control: sent is not yet written
    threading.Timer(0.05, gate.set).start()
    summary = run.write_summary({"skills": {}})
    assert summary.is_file() and answer.read_text(encoding="utf-8") == "Use KEY-1234 here.\n"


def test_a_failed_write_is_raised_when_the_run_flushes(tmp_path: Path) -> None:
    t = datetime(2026, 10, 31, 16, 20, 5, tzinfo=UTC)
    blocked = RunDir(tmp_path, t, str)
    blocked.path.parent.mkdir(parents=True, exist_ok=True)
    blocked.path.write_text("a file where the run folder should be")
    blocked.send_output("money", _outputs()[0])
    with pytest.raises(OSError):
        blocked.flush()
    fine = RunDir(tmp_path / "fine", t, str)  # control: a folder that can be written raises nothing
    fine.send_output("money", _outputs()[0])
    fine.flush()
    assert fine.output_file("money", _outputs()[0]).is_file()


def _slow_writes(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    write = run_dir_module._write_files

    def slow(files: run_dir_module.Files) -> None:
        time.sleep(seconds)
        write(files)

    monkeypatch.setattr(run_dir_module, "_write_files", slow)


def test_a_stopped_run_keeps_its_folder_once_an_output_was_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _slow_writes(monkeypatch, 0.2)
    t = datetime(2026, 10, 31, 16, 20, 5, tzinfo=UTC)
    run, empty = RunDir(tmp_path / "a", t, str), RunDir(tmp_path / "b", t, str)
    run.create()
    empty.create()
    out = _outputs()[0]
    run.send_output("money", out)
    run.drop_if_empty()  # Ctrl-C: the answer sent is written, so the folder stays
    empty.drop_if_empty()  # control: a folder nothing was sent to goes
    assert run.output_file("money", out).is_file() and not empty.path.exists()


SEND_AND_EXIT = """
import sys, time
from datetime import UTC, datetime
from pathlib import Path
from skill_be.engine.observations import Output
from skill_be.results import run_dir
write = run_dir._write_files
def slow(files):
    time.sleep(0.3)
    write(files)
run_dir._write_files = slow
run = run_dir.RunDir(Path(sys.argv[1]), datetime(2026, 1, 1, tzinfo=UTC), str)
run.send_output("money", Output(scenario="s", model="m", rep=1, arm="baseline", text="kept"))
if sys.argv[2] == "control":
    import atexit
    atexit.unregister(run._writer._queue.join)
raise SystemExit(0)  # no flush: a command that ends some other way
"""


def test_a_command_that_ends_without_a_flush_still_writes_what_it_sent(tmp_path: Path) -> None:
    def answer(how: str) -> Path:
        subprocess.run([sys.executable, "-c", SEND_AND_EXIT, str(tmp_path / how), how], check=True, timeout=60)
        return tmp_path / how / "2026-01-01T00-00-00-000Z" / "money" / "s" / "m" / "rep-1-baseline.md"

    assert answer("exit").read_text(encoding="utf-8") == "kept\n"
    assert not answer("control").exists()  # without the exit hook the thread dies with the process
