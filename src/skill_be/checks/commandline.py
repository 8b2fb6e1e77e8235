"""Running a check's `command`: split like the command adapter, no shell, a time limit, the group killed."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from skill_be.project.config import Config
from skill_be.project.where import Where

TIMEOUT = 60  # seconds: per block for the typecheck, per run for coverage


def command_argv(config: Config, command: str, where: Where) -> list[str]:
    """The argv to start, or a ConfigError naming the key when the program is not there."""
    from skill_be.adapters.command import resolve_executable, split_command

    argv = split_command(command, where)
    exe = resolve_executable(argv[0], config.root, os.environ.get("PATH"))
    if exe is None:
        raise where.error(
            f'cannot start "{argv[0]}" (not found); install it, or fix the command line '
            "(it runs without a shell, in the config's directory)"
        )
    return [exe, *argv[1:]]


def run_bounded(
    argv: Sequence[str], *, stdin: str, cwd: Path, env: Mapping[str, str], timeout: float = TIMEOUT
) -> tuple[int | None, bytes, bytes]:
    """Run without a shell in a session of its own. On timeout the whole group is killed and the
    code is None. Raises OSError when the program cannot start."""
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=dict(env),
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(stdin.encode("utf-8"), timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        out, err = proc.communicate()
        return None, out, err
    _kill_group(proc.pid)  # whatever it left running goes with it
    return proc.returncode, out, err


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
