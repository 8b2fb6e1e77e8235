"""Child processes and their output, for every part that starts one (adapters, checks, commands):
no shell, a session of its own so the whole process group dies with it, a time limit, an output cap,
and the short text tails error messages quote. Below everything: it imports nothing of skill-be.
(codetests/ runs its sandboxed children through its own supervisor.)"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import asyncio

MAX_OUTPUT = 16 * 1024 * 1024  # bytes kept of each stream; the rest is read and dropped

# Sees each line of output as it arrives ("stdout" or "stderr", the line); True stops the child.
LineWatcher = Callable[[str, bytes], bool]


class ProcessResult(NamedTuple):  # not a dataclass: verify imports this, and dataclass creation costs ~10 ms
    returncode: int  # -9 when it was killed at its time limit
    stdout: bytes
    stderr: bytes
    truncated: bool = False  # a stream went over the output cap
    stopped: bool = False  # a LineWatcher asked for the child to be killed
    timed_out: bool = False  # run_sync only: killed at its time limit


class StartFailed(Exception):
    """The executable could not be started at all (not found, not executable)."""

    def __init__(self, program: str, why: str) -> None:
        super().__init__(f"{program}: {why}")
        self.why = why


def kill_group(pid: int) -> None:
    """SIGKILL the whole process group a child leads: whatever it started dies with it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


CUT = "…"  # the one mark of a cut text, wherever skill-be shortens one (codetests/ keeps its own for now)


def clip(data: bytes | str, limit: int, *, end: bool = False, fold: bool = True) -> str:
    """At most `limit` characters of some text, the start (or with `end`, the end), CUT where it was cut;
    with `fold`, whitespace folded to one line (for an error message)."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    if fold:
        text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return CUT + text[-limit:] if end else text[:limit] + CUT


def tail(data: bytes | str, limit: int = 400) -> str:
    """The end of some output as one line, for an error message."""
    return clip(data, limit, end=True)


def head(data: bytes | str, limit: int = 200) -> str:
    """The start of some output as one line, for an error message."""
    return clip(data, limit)


def split_words(line: str) -> list[str]:
    """A command line's words, split on whitespace; quote a word with spaces in "double" or 'single'
    quotes. No shell. Raises ValueError with the reason (an unclosed quote, an empty line)."""
    try:
        words = shlex.split(line, posix=True)
    except ValueError as e:
        raise ValueError(f"cannot split the command line ({e}); close the quote") from None
    if not words:
        raise ValueError("must not be empty")
    return words


def resolve_executable(word: str, root: Path, path_env: str | None) -> str | None:
    """A word with a slash resolves against `root` (the config's directory); a bare name against PATH."""
    if "/" in word or os.sep in word:
        p = Path(word) if Path(word).is_absolute() else root / word
        return str(p) if p.is_file() and os.access(p, os.X_OK) else None
    return shutil.which(word, path=path_env)


def _cap(data: bytes, limit: int) -> tuple[bytes, bool]:
    return (data, False) if len(data) <= limit else (data[:limit], True)


def run_sync(
    argv: Sequence[str],
    *,
    stdin: bytes = b"",
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float,
    max_output: int = MAX_OUTPUT,
) -> ProcessResult:
    """Run `argv` without a shell in a session of its own and wait. At `timeout` the whole group is
    killed and `timed_out` is set; after a normal exit, whatever it left running is killed too.
    Raises StartFailed when the program cannot start."""
    try:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            start_new_session=True,
        )
    except OSError as e:
        raise StartFailed(argv[0], e.strerror or str(e)) from None
    timed_out = False
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(proc.pid)
        out, err = proc.communicate()
    except BaseException:
        kill_group(proc.pid)
        proc.wait()
        raise
    kill_group(proc.pid)
    out, t1 = _cap(out, max_output)
    err, t2 = _cap(err, max_output)
    return ProcessResult(proc.returncode, out, err, truncated=t1 or t2, timed_out=timed_out)


async def _drain(
    stream: asyncio.StreamReader | None,
    limit: int,
    watch: Callable[[bytes], None] | None = None,
) -> tuple[bytes, bool]:
    if stream is None:
        return b"", False
    chunks: list[bytes] = []
    size = 0
    truncated = False
    pending = b""
    while chunk := await stream.read(65536):
        if watch is not None:
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                watch(line)
        if size < limit:
            keep = chunk[: limit - size]
            chunks.append(keep)
            size += len(keep)
            truncated = truncated or len(keep) < len(chunk)
        else:
            truncated = True
    if watch is not None and pending:
        watch(pending)
    return b"".join(chunks), truncated


async def _feed(proc: asyncio.subprocess.Process, data: bytes) -> None:
    assert proc.stdin is not None
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        proc.stdin.write(data)
        await proc.stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, OSError):
        proc.stdin.close()


async def run_process(
    argv: Sequence[str],
    *,
    stdin: bytes = b"",
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    max_output: int = MAX_OUTPUT,
    watch: LineWatcher | None = None,
) -> ProcessResult:
    """Run `argv` without a shell in its own session. If the awaiting task is cancelled (a timeout,
    SIGINT), the whole process group is killed before the cancellation propagates. `watch` sees every
    output line as it comes; when it returns True the process group is killed and `stopped` is set."""
    import asyncio  # here, not at the top: the synchronous callers (verify's checks) start faster

    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            start_new_session=True,
        )
    except (FileNotFoundError, PermissionError, NotADirectoryError) as e:
        raise StartFailed(argv[0], e.strerror or str(e)) from None
    stopped = False

    def watcher(name: str) -> Callable[[bytes], None] | None:
        if watch is None:
            return None

        def see(line: bytes) -> None:
            nonlocal stopped
            if not stopped and watch(name, line):
                stopped = True
                kill_group(proc.pid)

        return see

    try:
        _, (out, t1), (err, t2) = await asyncio.gather(
            _feed(proc, stdin),
            _drain(proc.stdout, max_output, watcher("stdout")),
            _drain(proc.stderr, max_output, watcher("stderr")),
        )
        code = await proc.wait()
    except BaseException:
        kill_group(proc.pid)
        with contextlib.suppress(Exception):
            await asyncio.shield(proc.wait())
        raise
    # A child that exited may have left grandchildren holding nothing we read; they go too.
    kill_group(proc.pid)
    return ProcessResult(returncode=code, stdout=out, stderr=err, truncated=t1 or t2, stopped=stopped)


def stream_lines(argv: Sequence[str], cwd: Path, env: Mapping[str, str], on_line: Callable[[str, str], None]) -> int:
    """Run a child to its end, handing each line of its output to `on_line` ("stdout" or "stderr", the
    line without its newline) as it arrives; its exit code. For a long command whose output a person
    watches live (the GitHub Action running skill-be): no time limit or cap, and the child stays in
    our session, so a cancelled job's signal reaches it too."""
    import threading

    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
    )

    def pump(name: str, source: IO[str]) -> None:
        for line in source:
            on_line(name, line.rstrip("\n"))

    assert proc.stdout is not None and proc.stderr is not None
    threads = [
        threading.Thread(target=pump, args=("stdout", proc.stdout), daemon=True),
        threading.Thread(target=pump, args=("stderr", proc.stderr), daemon=True),
    ]
    for t in threads:
        t.start()
    code = proc.wait()
    for t in threads:
        t.join()
    return code
