"""The runner's own start: its options, and the answer's side it starts and watches.

The runner (runner.py) is also its own launcher. It starts the answer's side before its request
comes: where the sandbox gave the answer a uid of its own and started its process (host.py) on a pair
folder, that side is the relay of `sandbox/pair.py` (`--wrap`, under the runner's own uid); as the
user's own (process, bwrap without root) it is host.py itself, wrapped in bwrap when asked. The
channel is two pipes, seen by that side as fds 3 (from the runner) and 4 (to it). When that side
ends, the runner ends as it did (its exit code, or its signal), so skill-be sees how the answer's
process ended."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import resource
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

BOOT = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
HIGH_FD = 20  # the pipes sit above the fds a child is given


@dataclass
class Options:
    host: tuple[int | None, int] | None = None  # (uid or None, process limit) of the answer's side
    wrap: list[str] = field(default_factory=list)
    weaken: set[str] = field(default_factory=set)
    works: dict[str, str] = field(default_factory=dict)  # work folder -> its installed packages ("" for none)
    memory_mb: int = 0


def parse(argv: list[str]) -> Options:
    opts = Options()
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--host":
            uid = argv[i + 1]
            opts.host = (None if uid == "-" else int(uid), int(argv[i + 2] or 0))
            i += 3
            continue
        if a == "--wrap":
            opts.wrap = [str(x) for x in json.loads(argv[i + 1])]
        elif a == "--weaken":
            opts.weaken |= {w for w in argv[i + 1].split(",") if w}
        elif a == "--memory-mb":
            opts.memory_mb = int(argv[i + 1])
        elif a == "--work":
            opts.works[argv[i + 1]] = argv[i + 2]
            i += 1
        else:
            raise SystemExit(f"unknown option {a}")
        i += 2
    return opts


def _high(fd: int) -> int:
    new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, HIGH_FD)
    os.close(fd)
    return new


class AnswerSide:
    """The process on the other end of the channel, and the runner's ends of its two pipes."""

    def __init__(self, uid: int | None, nproc: int, wrap: list[str], memory_mb: int, home: str) -> None:
        self.spec = (uid, nproc, list(wrap))
        to_r, to_w = (_high(fd) for fd in os.pipe())
        from_r, from_w = (_high(fd) for fd in os.pipe())
        self.rfd, self.wfd = from_r, to_w
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TMPDIR": home}
        for k in ("LANG", "LC_ALL"):
            if k in os.environ:
                env[k] = os.environ[k]
        command = [sys.executable, "-I", "-S", "-B", BOOT, "host", "--memory-mb", str(memory_mb)]
        drop = uid is not None and os.geteuid() == 0

        def child() -> None:
            os.dup2(to_r, 3, inheritable=True)
            os.dup2(from_w, 4, inheritable=True)
            if nproc > 0:
                resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))

        user: dict[str, Any] = {"user": uid, "group": uid, "extra_groups": []} if drop else {}
        self.proc = subprocess.Popen(
            [*wrap, *command],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=None if os.environ.get("SKB_DEBUG") else subprocess.DEVNULL,
            cwd=home,
            env=env,
            preexec_fn=child,
            pass_fds=(3, 4),
            **user,
        )
        self.wrapped = bool(wrap)
        os.close(to_r)
        os.close(from_w)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=1)

    def end_as_it_did(self) -> None:
        """Wait (a moment) for the answer's side, then end this process as it ended. Never returns."""
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.proc.returncode if self.proc.returncode is not None else -signal.SIGKILL
        if self.wrapped and 128 < code < 160:  # a shell or bwrap reports a signal N as 128 + N
            code = -(code - 128)
        sys.stdout.flush()
        if code < 0:
            with contextlib.suppress(OSError, ValueError):  # SIGKILL's cannot be set, and needs none
                signal.signal(-code, signal.SIG_DFL)
            os.kill(os.getpid(), -code)
        os._exit(code if code >= 0 else 1)


def read_request() -> dict[str, Any] | None:
    """One JSON line on stdin: the request (codetests/protocol.py)."""
    data = bytearray()
    while not data.endswith(b"\n"):
        chunk = os.read(0, 1 << 16)
        if not chunk:
            break
        data += chunk
    try:
        req = json.loads(data.decode("utf-8"))
    except ValueError:
        return None
    return req if isinstance(req, dict) else None
