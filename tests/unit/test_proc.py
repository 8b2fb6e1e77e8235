"""skill_be.proc: the one way adapters and checks start a child process, with real children."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.support.processes import alive

from skill_be.proc import (
    CUT,
    StartFailed,
    clip,
    head,
    kill_group,
    resolve_executable,
    run_process,
    run_sync,
    split_words,
    tail,
)

# Starts a grandchild that sleeps (holding none of our pipes), writes its pid, then sleeps or exits.
SPAWNER = """
import subprocess, sys, time
quiet = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], **quiet)
open(sys.argv[1], "w").write(str(child.pid))
if sys.argv[2] == "sleep":
    time.sleep(600)
"""


def gone(pid: int) -> bool:
    for _ in range(50):
        if not alive(pid):
            return True
        time.sleep(0.1)
    return False


def test_run_sync_passes_stdin_and_returns_both_streams() -> None:
    code = "import sys; d = sys.stdin.read(); print(d.upper()); print('err', file=sys.stderr); sys.exit(3)"
    done = run_sync([sys.executable, "-c", code], stdin=b"hello", timeout=30)
    assert (done.returncode, done.stdout, done.stderr) == (3, b"HELLO\n", b"err\n")
    assert not done.timed_out and not done.truncated


def test_run_sync_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    done = run_sync([sys.executable, "-c", SPAWNER, str(pid_file), "sleep"], timeout=1.5)
    assert done.timed_out
    assert gone(int(pid_file.read_text()))


@pytest.mark.parametrize("mode", ["sleep", "exit"])
def test_without_the_group_kill_the_grandchild_survives(tmp_path: Path, mode: str) -> None:
    """The control: a plain subprocess.run (a timeout, or a normal exit) leaves the grandchild alive."""
    pid_file = tmp_path / "pid"
    try:
        subprocess.run([sys.executable, "-c", SPAWNER, str(pid_file), mode], timeout=1.5, start_new_session=True)
    except subprocess.TimeoutExpired:
        assert mode == "sleep"
    pid = int(pid_file.read_text())
    try:
        assert alive(pid)
    finally:
        os.kill(pid, 9)


def test_run_sync_kills_what_a_child_leaves_running_after_it_exits(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    done = run_sync([sys.executable, "-c", SPAWNER, str(pid_file), "exit"], timeout=30)
    assert done.returncode == 0 and not done.timed_out
    assert gone(int(pid_file.read_text()))


def test_run_sync_caps_the_output() -> None:
    done = run_sync([sys.executable, "-c", "print('x' * 5000)"], timeout=30, max_output=100)
    assert done.truncated and done.stdout == b"x" * 100


def test_a_program_that_cannot_start_is_start_failed(tmp_path: Path) -> None:
    with pytest.raises(StartFailed) as e:
        run_sync([str(tmp_path / "nope")], timeout=5)
    assert e.value.why == "No such file or directory"
    with pytest.raises(StartFailed):
        asyncio.run(run_process([str(tmp_path / "nope")]))


def test_run_process_cancelled_kills_the_whole_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"

    async def go() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(run_process([sys.executable, "-c", SPAWNER, str(pid_file), "sleep"]), 1.5)

    asyncio.run(go())
    assert gone(int(pid_file.read_text()))


def test_run_process_watcher_stops_the_child() -> None:
    code = "import time\nfor i in range(100):\n    print(i, flush=True)\n    time.sleep(0.05)\n"
    seen: list[bytes] = []

    def watch(stream: str, line: bytes) -> bool:
        seen.append(line)
        return line == b"3"

    done = asyncio.run(run_process([sys.executable, "-c", code], watch=watch))
    assert done.stopped and done.returncode == -9
    assert seen[:4] == [b"0", b"1", b"2", b"3"] and len(seen) < 50


def test_run_process_caps_the_output_and_feeds_stdin() -> None:
    code = "import sys; sys.stdout.write(sys.stdin.read() * 1000)"
    done = asyncio.run(run_process([sys.executable, "-c", code], stdin=b"ab", max_output=10))
    assert done.truncated and done.stdout == b"ab" * 5


def test_kill_group_of_a_finished_process_is_quiet() -> None:
    p = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    p.wait()
    kill_group(p.pid)


@pytest.mark.parametrize(
    ("data", "limit", "expected"),
    [
        (b"  one\n two\t\tthree  ", 400, "one two three"),
        ("abc def", 400, "abc def"),
        ("x" * 10 + " tail-end", 8, "…tail-end"),
        (b"\xff\xfeok", 400, "\ufffd\ufffdok"),
        ("", 400, ""),
    ],
)
def test_tail_folds_whitespace_and_marks_a_cut(data: bytes | str, limit: int, expected: str) -> None:
    assert tail(data, limit) == expected


def test_resolve_executable(tmp_path: Path) -> None:
    script = tmp_path / "bin" / "tool"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    assert resolve_executable("./bin/tool", tmp_path, "") is None  # not executable yet
    script.chmod(0o755)
    assert resolve_executable("./bin/tool", tmp_path, "") == str(tmp_path / "bin" / "tool")
    assert resolve_executable(str(script), Path("/"), "") == str(script)
    assert resolve_executable("tool", Path("/"), str(script.parent)) == str(script)  # a bare name: PATH
    assert resolve_executable("tool", tmp_path, "") is None  # never the current folder


def test_split_words() -> None:
    assert split_words("python3 'my script.py' --x \"a b\"") == ["python3", "my script.py", "--x", "a b"]
    with pytest.raises(ValueError, match="close the quote"):
        split_words("python3 'open")
    with pytest.raises(ValueError, match="must not be empty"):
        split_words("   ")


def test_head_folds_whitespace_and_keeps_the_start() -> None:
    assert head(b"<html>\n  <body>  oops", 12) == "<html> <body" + CUT
    assert head("short", 200) == "short"


def test_one_cut_mark_at_either_end() -> None:
    assert tail("a b c d e f", 3) == CUT + "e f"
    assert clip("line one\nline two", 8, fold=False) == "line one" + CUT  # newlines kept when asked
    assert clip("exactly", 7) == "exactly"  # the control: nothing cut, no mark
