"""Running a child process for an adapter or a check: stdin in, output out, killed with all it started."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

MAX_OUTPUT = 16 * 1024 * 1024  # bytes kept of each stream; the rest is read and dropped

# Sees each line of output as it arrives ("stdout" or "stderr", the line); True stops the child.
LineWatcher = Callable[[str, bytes], bool]


@dataclass(frozen=True)
class ProcessResult:
    returncode: int
    stdout: bytes
    stderr: bytes
    truncated: bool = False
    stopped: bool = False  # a LineWatcher asked for the child to be killed


class StartFailed(Exception):
    """The executable could not be started at all (not found, not executable)."""


def kill_group(proc: asyncio.subprocess.Process) -> None:
    """SIGKILL the child's whole process group: whatever it started dies with it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


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
        raise StartFailed(f"{argv[0]}: {e.strerror or e}") from None
    stopped = False

    def watcher(name: str) -> Callable[[bytes], None] | None:
        if watch is None:
            return None

        def see(line: bytes) -> None:
            nonlocal stopped
            if not stopped and watch(name, line):
                stopped = True
                kill_group(proc)

        return see

    try:
        _, (out, t1), (err, t2) = await asyncio.gather(
            _feed(proc, stdin),
            _drain(proc.stdout, max_output, watcher("stdout")),
            _drain(proc.stderr, max_output, watcher("stderr")),
        )
        code = await proc.wait()
    except BaseException:
        kill_group(proc)
        with contextlib.suppress(Exception):
            await asyncio.shield(proc.wait())
        raise
    # A child that exited may have left grandchildren holding nothing we read; they go too.
    kill_group(proc)
    return ProcessResult(returncode=code, stdout=out, stderr=err, truncated=t1 or t2, stopped=stopped)


def tail(data: bytes, limit: int = 400) -> str:
    """The end of a stream as one line, for an error message."""
    text = data.decode("utf-8", errors="replace").strip()
    text = " ".join(text.split())
    return text if len(text) <= limit else "…" + text[-limit:]
