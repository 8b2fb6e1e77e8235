"""The process runner as root (and bwrap as root): the runner and the answer under two uids of their own.

skill-be (root) starts both processes itself: first the answer's (host.mjs, under the slot's answer
uid, with the process limit set by setrlimit before it runs and checked in /proc after), on a fresh
pair folder (see pair.py), then the runner's launcher, under the slot's runner uid, which starts
the runner under Node's permission model and the relay to the answer's process, in a network
namespace of its own (no network). Neither uid is root and neither is the other: a runner the
answer took over reads no environment or memory of skill-be (root's), no test but its own
scenario's (each slot has a copy of the tests' helpers that only its runner's group reads, and gets
the answer's test file, and no other, per answer), cannot write a test file (root's), and reaches
no address."""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import secrets
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from skill_be.codetests.sandbox import SandboxError, pair, payload

LIMITS_FILE = "/proc/{pid}/limits"


@dataclass
class Uids:
    answer: int
    runner: int


CLONE_NEWIPC = 0x08000000
CLONE_NEWNET = 0x40000000


def become(uid: int, nproc: int, own_ipc: bool) -> Callable[[], None]:
    """In the child, before it runs anything: a System V IPC and POSIX message-queue namespace of its
    own where the kernel allows it (gone with its last process, so nothing it makes there outlives it),
    its limits (processes of
    the answer's uid, no core dump), then the answer's uid and gid, with no other group."""

    def apply() -> None:
        if own_ipc:
            # Refused without CAP_SYS_ADMIN (skill-be as root in a container): the sweep's ipcrm of
            # the answer's uid then covers System V IPC, and /dev/mqueue where it is mounted.
            ctypes.CDLL(None, use_errno=True).unshare(CLONE_NEWIPC)
        if nproc > 0:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)

    return apply


def become_runner(uid: int | None, own_net: bool) -> Callable[[], None]:
    """In the runner's launcher, before it runs anything: a network namespace of its own where
    `own_net` (nothing in it but a loopback that is down: no address reaches anything, the host's
    loopback included), then the runner's uid and gid with no other group (None: it stays root, a
    test's control)."""

    def apply() -> None:
        if own_net and ctypes.CDLL(None, use_errno=True).unshare(CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "the runner's network namespace could not be made")
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)

    return apply


def can_own_network() -> bool:
    """Whether this machine lets skill-be (as root) give a process a network namespace of its own;
    refused without CAP_SYS_ADMIN (root in a container that lacks it)."""
    try:
        done = subprocess.run(
            ["true"], preexec_fn=become_runner(None, True), capture_output=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def check_limits(pid: int, nproc: int) -> str | None:
    """None when /proc shows the process limit on `pid`; else what it shows."""
    if nproc <= 0:
        return None
    try:
        text = Path(LIMITS_FILE.format(pid=pid)).read_text()
    except OSError as e:
        return f"its limits could not be read ({e.strerror})"
    for line in text.splitlines():
        if line.startswith("Max processes"):
            soft, hard = line.split()[2:4]
            return None if soft == hard == str(nproc) else f"its process limit is {soft}/{hard}, not {nproc}"
    return "its process limit is not shown"


def make_pair(root: Path, uids: Uids) -> Path:
    """A fresh pair folder: only the answer's uid (owner) and the runner's group (group) may enter."""
    folder = root / f"p-{secrets.token_hex(8)}"
    folder.mkdir(mode=0o700)
    os.chown(folder, uids.answer, uids.runner)
    os.chmod(folder, 0o2710)  # setgid: the status the answer's side writes is the runner's group's
    for name in ("in", "out"):
        os.mkfifo(folder / name, 0o600)
        os.chown(folder / name, uids.answer, uids.runner)
        os.chmod(folder / name, 0o660)
    (folder / "ready").touch(0o644)
    return folder


def start_host(
    command: list[str],
    pair_folder: Path,
    uid: int,
    nproc: int,
    cwd: str,
    env: dict[str, str],
    own_ipc: bool = True,
    fds: tuple[int, ...] = (),
) -> subprocess.Popen[bytes]:
    """The answer's process, under `uid`, in a session of its own. SandboxError if it cannot
    start or its limit did not take."""
    try:
        proc = subprocess.Popen(
            pair.host_command(str(pair_folder), command),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=cwd,
            env=env,
            preexec_fn=become(uid, nproc, own_ipc),
            start_new_session=True,
            pass_fds=fds,
        )
    except OSError as e:
        raise SandboxError(f"the answer's process could not start ({e})") from None
    problem = check_limits(proc.pid, nproc)
    if problem is not None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        raise SandboxError(f"the answer's process started without its limits: {problem}")
    return proc  # reaped when the slot kills what the answer left (identity.kill_all_clean)


class SlotFiles:
    """A slot's folders in the staged work folders: its runner's home, its copy of the tests' helpers
    (root's, readable by its runner's group only) and the answer's run folder in each runs/."""

    def __init__(
        self, staged: Path, keys: tuple[str, ...], uids: Uids, weaken: frozenset[str], language: str = "typescript"
    ) -> None:
        self.staged = staged
        self.keys = keys
        self.language = language
        self.name = secrets.token_hex(8)
        self.uids = uids
        self.given: dict[str, Path] = {}  # work key -> the test file given to the current answer
        self.pairs: list[Path] = []  # the pair folders made for this slot, removed by clean()
        self.home = staged / f"r-{self.name}"
        self.home.mkdir(mode=0o700)
        self.tests_mode = 0o755 if "tests" in weaken else 0o750
        self.every_test = "test-files" in weaken  # a control: every scenario's test file in the copy
        for key in keys:
            self._copy_helpers(key)
        self.own(uids)

    def base(self, key: str) -> Path:
        return self.staged / "b" / key / "w"

    def tests_of(self, key: str) -> Path:
        return self.base(key) / f"s-{self.name}"

    def _copy_helpers(self, key: str) -> None:
        src = self.base(key) / "tests"
        dest = self.tests_of(key) / "tests"

        def test_files(folder: str, names: list[str]) -> set[str]:
            """The scenarios' own test files (given per answer, see give_test), for copytree to skip."""
            rel = Path(folder).relative_to(src)
            return {n for n in names if payload.is_test_file(Path("tests", rel, n), self.language)}

        shutil.copytree(src, dest, ignore=None if self.every_test else test_files, copy_function=shutil.copyfile)
        for folder, _, _ in os.walk(dest):
            os.chmod(folder, 0o755)

    def own(self, uids: Uids) -> None:
        """The runner's home and tests copy to (new) uids."""
        self.uids = uids
        os.chown(self.home, uids.runner, uids.runner)
        for key in self.keys:
            os.chown(self.tests_of(key), 0, uids.runner)
            os.chmod(self.tests_of(key), self.tests_mode)

    def give_test(self, key: str, test: str) -> str:
        """This answer's test file in the slot's copy, the last one's removed; its path from the base."""
        old = self.given.pop(key, None)
        if old is not None and not self.every_test:
            old.unlink(missing_ok=True)
        target = self.tests_of(key) / test
        shutil.copyfile(self.base(key) / test, target)
        os.chmod(target, 0o644)
        self.given[key] = target
        return f"s-{self.name}/{test}"

    def run_folders(self, answer_uid: int) -> str:
        """The answer's run folder, fresh in each runs/ (its name)."""
        name = f"r-{self.name}"
        for key in self.keys:
            folder = self.base(key) / "runs" / name
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(mode=0o700)
            os.chown(folder, answer_uid, answer_uid)
        return name

    def clean(self) -> None:
        for key in self.keys:
            shutil.rmtree(self.base(key) / "runs" / f"r-{self.name}", ignore_errors=True)
        for folder in self.pairs:  # this slot's own: other slots remove theirs at the same time
            shutil.rmtree(folder, ignore_errors=True)
        self.pairs.clear()
        for entry in self.home.iterdir():
            shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else entry.unlink(missing_ok=True)
