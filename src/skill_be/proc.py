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


def _exited(pid: int) -> bool:
    """Whether the child has exited, without reaping it: its pid stays taken until it is waited for."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _read_now(fd: int, into: bytearray, limit: int) -> int:
    """Read what a non-blocking pipe holds now: bytes read, 0 for none yet, -1 at its end."""
    try:
        data = os.read(fd, 1 << 16)
    except BlockingIOError:
        return 0
    except OSError:
        return -1
    into += data[: max(0, limit - len(into))]
    return len(data) or -1


def _read_until_exit(
    proc: subprocess.Popen[bytes], bufs: dict[int, bytearray], timeout: float, limit: int, stop: Callable[[], None]
) -> bool:
    """Read the pipes until the child exits (True) or `timeout` (False: `stop`, then its group killed,
    and it is dead); then what they hold. The child is not reaped."""
    import select
    import time

    try:
        exit_fd: int | None = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # not Linux 5.3 or later: look every 50 ms instead
        exit_fd = None
    deadline, reading, finished = time.monotonic() + timeout, set(bufs), True
    try:
        while not _exited(proc.pid):
            left = deadline - time.monotonic()
            if left <= 0:
                finished = False
                stop()
                kill_group(proc.pid)
                os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
                break
            watch = [*reading, *([exit_fd] if exit_fd is not None else [])]
            for fd in select.select(watch, [], [], min(left, 0.05))[0]:
                if fd in reading and _read_now(fd, bufs[fd], limit) < 0:
                    reading.discard(fd)
        for fd in reading:
            while _read_now(fd, bufs[fd], limit) > 0:
                pass
    finally:
        if exit_fd is not None:
            os.close(exit_fd)
    return finished


def run_to_exit(
    argv: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float,
    max_output: int = MAX_OUTPUT,
    stop: Callable[[], None] = lambda: None,
) -> ProcessResult:
    """Run `argv` as run_sync does, but its output ends where the child does: at its exit (or at
    `timeout`, when its group is killed) the pipes are read for what they hold and closed before the
    child is reaped, so a process it left behind holding them adds nothing, and cannot even see the
    child gone before then. `stop` kills what the child started outside its group: at the time limit
    (with the child, before its group), and after its exit once the pipes are closed."""
    try:
        proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=cwd, env=dict(env) if env is not None else None,
                                start_new_session=True)  # fmt: skip
    except OSError as e:
        raise StartFailed(argv[0], e.strerror or str(e)) from None
    assert proc.stdout is not None and proc.stderr is not None
    out, err = bytearray(), bytearray()
    bufs = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    for fd in bufs:
        os.set_blocking(fd, False)
    finished = False
    try:
        finished = _read_until_exit(proc, bufs, timeout, max_output + 1, stop)
    finally:
        proc.stdout.close()
        proc.stderr.close()
        stop()
        kill_group(proc.pid)
        proc.wait()
    truncated = len(out) > max_output or len(err) > max_output
    return ProcessResult(proc.returncode, bytes(out[:max_output]), bytes(err[:max_output]), truncated=truncated,
                         timed_out=not finished)  # fmt: skip


def kill_tagged(name: str, value: str) -> int:
    """SIGKILL every process of this user whose environment has `name=value` (a run's own mark), until
    none is left; how many were killed. A process that drops the mark from its environment escapes."""
    mark, me, killed = f"{name}={value}".encode(), os.getpid(), set[int]()
    for _ in range(1000):
        found: list[int] = []
        for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
            if not entry.isdigit() or int(entry) == me:
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if mark in f.read().split(b"\0"):
                        found.append(int(entry))
            except OSError:  # gone, or another user's
                continue
        if not found:
            break
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
    return len(killed)


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
