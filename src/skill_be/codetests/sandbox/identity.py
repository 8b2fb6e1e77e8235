"""The user an answer runs as when skill-be runs as root: a uid and gid of its own, nobody else's.

Root's processes (skill-be, the runner that keeps the verdicts) are out of reach of another uid: it
cannot read their /proc/<pid>/environ or memory, nor ptrace or signal them. Each slot gets its own uid,
so two answers running side by side cannot reach each other either, and after an answer every
process of its uid is killed, detached ones included."""

from __future__ import annotations

import contextlib
import ctypes
import grp
import os
import pwd
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

HIGH = (200_000, 900_000)  # far from the ranges distributions hand out to people and services
LOW = (30_000, 59_000)  # for a user namespace that maps only the first 65536 ids


def _mapped(uid: int, table: str) -> bool:
    try:
        lines = Path(f"/proc/self/{table}").read_text().split("\n")
    except OSError:
        return uid < 65_534
    for line in lines:
        parts = line.split()
        if len(parts) == 3 and int(parts[0]) <= uid < int(parts[0]) + int(parts[2]):
            return True
    return False


def _ids_in_use() -> set[int]:
    """The uids and gids of every process on the machine (as far as /proc shows them)."""
    used: set[int] = set()
    for status in Path("/proc").glob("[0-9]*/status"):
        with contextlib.suppress(OSError):
            for line in status.read_text().splitlines():
                if line.startswith(("Uid:", "Gid:")):
                    used.update(int(x) for x in line.split()[1:])
    return used


def _free(uid: int, in_use: set[int]) -> bool:
    if uid in in_use or not (_mapped(uid, "uid_map") and _mapped(uid, "gid_map")):
        return False
    try:
        pwd.getpwuid(uid)
        return False
    except KeyError:
        pass
    try:
        grp.getgrgid(uid)
        return False
    except KeyError:
        return True


def allocate(taken: set[int]) -> int:
    """A uid (also the gid) that no account, group, running process or `taken` has; added to `taken`.

    RuntimeError when none is found."""
    in_use = _ids_in_use()
    for low, high in (HIGH, LOW):
        for _ in range(200):
            uid = random.randrange(low, high)
            if uid not in taken and _free(uid, in_use):
                taken.add(uid)
                return uid
    raise RuntimeError("no free uid was found for the answers")


def scan(*uids: int) -> tuple[list[int], list[int]]:
    """The live processes of any of `uids`, and their zombies (dead, waiting for their parent to reap
    them, but still counted against their uid's process limit)."""
    live: list[int] = []
    zombies: list[int] = []
    for status in Path("/proc").glob("[0-9]*/status"):
        with contextlib.suppress(OSError, ValueError):
            text = status.read_text()
            at = text.index("\nUid:")
            line = text[at + 1 : text.index("\n", at + 1)]
            # Real, effective, saved and filesystem uid: a process holding the uid in any of
            # them can be signalled by, or signal, the answers.
            if any(int(x) in uids for x in line.split()[1:]):
                (zombies if "\nState:\tZ" in text else live).append(int(status.parent.name))
    return live, zombies


def processes_of(*uids: int, zombies: bool = False) -> list[int]:
    """The live processes of any of `uids`, or with `zombies`, their zombies."""
    return scan(*uids)[1 if zombies else 0]


# Where any user may write, on most systems: what an answer leaves there is removed after it, and
# in every world-writable folder below them (other users' included), DEPTH levels down.
SHARED_PLACES = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue", "/run/lock", "/var/lock", "/run/shm")
DEPTH = 4
SYSV = {"shm": "-m", "msg": "-q", "sem": "-s"}  # /proc/sysvipc/<kind>: ipcrm's option for it


def sweep(uid: int, places: tuple[Path, ...]) -> None:
    """Remove every entry `uid` owns directly in each of `places` (the answers' shared folders)."""
    for place in places:
        try:
            entries = list(os.scandir(place))
        except OSError:
            continue
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_uid != uid:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)


REAP_WAIT_S = 0.3


def kill_all_clean(*uids: int, give_up_s: float = 5.0) -> bool:
    """Kill every process of `uids` until none is left: True when none is, nor any zombie of theirs."""
    deadline = time.monotonic() + give_up_s
    reaped_by = time.monotonic() + REAP_WAIT_S  # what was just killed is a zombie for a moment
    while True:
        live, zombies = scan(*uids)
        for pid in zombies:  # ours to reap when skill-be is their subreaper (become_subreaper)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)
        if zombies and not live:
            live, zombies = scan(*uids)
        if not live and (not zombies or time.monotonic() > reaped_by):
            return not zombies
        if time.monotonic() > deadline:
            return False
        for pid in live:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)


def kill_all(*uids: int, give_up_s: float = 5.0) -> bool:
    """Kill every process of `uids` until none is left; False when some survived `give_up_s`."""
    deadline = time.monotonic() + give_up_s
    while pids := processes_of(*uids):
        if time.monotonic() > deadline:
            return False
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)
    return True


def _open_folders(place: Path, depth: int, skip: Path | None) -> list[Path]:
    """`place` and the world-writable folders below it (not through links), `depth` levels down."""
    found = [place]
    if depth <= 0:
        return found
    try:
        entries = list(os.scandir(place))
    except OSError:
        return found
    for entry in entries:
        with contextlib.suppress(OSError):
            if not entry.is_dir(follow_symlinks=False) or (skip is not None and Path(entry.path) == skip):
                continue
            if entry.stat(follow_symlinks=False).st_mode & 0o002:
                found += _open_folders(Path(entry.path), depth - 1, skip)
    return found


def sysv_objects(uids: tuple[int, ...]) -> list[tuple[str, str]]:
    """System V IPC objects that one of `uids` owns or made: (ipcrm option, id)."""
    found: list[tuple[str, str]] = []
    for kind, option in SYSV.items():
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
        except OSError:
            continue
        if not lines:
            continue
        head = lines[0].split()
        at = [head.index(c) for c in ("uid", "cuid") if c in head]
        for line in lines[1:]:
            cols = line.split()
            if len(cols) == len(head) and any(int(cols[i]) in uids for i in at):
                found.append((option, cols[1]))
    return found


def sweep_all(uids: tuple[int, ...], staged: Path | None) -> None:
    """What `uids` left anywhere they could write: their entries in the shared places and in every
    world-writable folder below them, in the staged work folders' runs/, and their System V IPC."""
    places: list[Path] = []
    for place in SHARED_PLACES:
        if os.path.isdir(place) and not os.path.islink(place):
            places += _open_folders(Path(place), DEPTH, staged)
    if staged is not None:
        places += list(staged.glob("b/*/w/runs"))
    for uid in uids:
        sweep(uid, tuple(places))
    for option, ident in sysv_objects(uids):
        with contextlib.suppress(OSError):
            subprocess.run(["ipcrm", option, ident], capture_output=True, check=False, timeout=10)


PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> None:
    """Orphans of this process's descendants (an answer's detached processes) become its children,
    so that kill_all_clean reaps them at once instead of waiting for PID 1 (which may be slow, and
    until it reaps them they count against the answers' uid's process limit). Linux only; no-op
    where it is refused."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
