"""Starts skill-be inside its image, from entrypoint.sh: `launch.py ARG...` runs `skill-be ARG...`.

Before a command that reads a project (run, verify, check, triage, regrade, merge, cache) it
checks what a container gets wrong and skill-be cannot see: no project mounted, a folder it cannot
read, a config outside the mounted folder, a Docker socket it cannot open. Each is one line on
stderr and exit code 2.

Then it runs skill-be as its child, in a session of its own, forwards SIGINT, SIGTERM, SIGHUP and
SIGQUIT to it, and exits with skill-be's code (128 + N when signal N ended it). Why not exec: the
container's PID 1 gets no default action for a signal it has no handler for, and skill-be handles
SIGTERM only while `run` works, so `docker stop` during a `check` would wait 10 s for SIGKILL
instead of ending it with 143. Help, version, `schema` and no command are exec'd.

Running as root (the default of `docker run`, and what a GitHub docker action does) in a working
folder that another user owns, the files skill-be writes there would belong to root on the host,
and the user could not delete `.skill-be/` without sudo. So when skill-be ends, the launcher gives
every path under the mounted folder that root created or changed during the run to the folder's
owner. skill-be itself stays root, so the process runner can still drop the model's code to a uid
of its own. SKILL_BE_CHOWN=0 keeps root's files as they are.

Standard library only (it runs with python -I -S)."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Sequence

PROJECT_COMMANDS = frozenset({"run", "verify", "check", "triage", "regrade", "merge", "cache"})
SANDBOX_COMMANDS = frozenset({"run", "triage", "regrade"})  # the ones that may start code tests
WRITES_NOTHING = frozenset({"schema"})  # every other command may write into the project
RUN_EXAMPLE = 'docker run --rm -v "$PWD:/src" -w /src IMAGE verify'
SKIP = frozenset({".git"})  # never written by skill-be, and can be large
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def command_of(args: Sequence[str]) -> tuple[str | None, str | None, bool]:
    """The command, the --config value, and whether help was asked for."""
    command: str | None = None
    config: str | None = None
    wants_help = False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--config" and i + 1 < len(args):
            config = args[i + 1]
            i += 2
            continue
        if a.startswith("--config="):
            config = a.split("=", 1)[1]
        elif a in ("-h", "--help", "--version"):
            wants_help = True
        elif not a.startswith("-") and command is None:
            command = a
        i += 1
    return command, config, wants_help


def _unescape(field: str) -> str:
    # mountinfo writes space, tab, newline and backslash as octal escapes
    for esc, ch in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(esc, ch)
    return field


def mount_of(path: str, mountinfo: str = "/proc/self/mountinfo") -> str | None:
    """The deepest mount point other than / that holds `path`; None when only the image's root does."""
    best: str | None = None
    try:
        with open(mountinfo, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split(" ")
        if len(fields) < 5:
            continue
        point = _unescape(fields[4])
        if point == "/" or point.startswith(("/proc", "/sys", "/dev", "/etc/")):
            continue
        if (path == point or path.startswith(point.rstrip("/") + "/")) and (best is None or len(point) > len(best)):
            best = point
    return best


def project_problem(cwd: str, config: str | None) -> str | None:
    """Why the working folder cannot be the project's, as one line; None when it can."""
    uid = os.geteuid()
    if cwd == "/":
        return f"no project: the working folder is /; mount your project and work in it: {RUN_EXAMPLE}"
    try:
        entries = os.listdir(cwd)
    except OSError as e:
        return (
            f"cannot read the working folder {cwd} as uid {uid} ({e.strerror}); make it readable to that "
            "uid, run without --user, or on an SELinux host add :z to the -v option"
        )
    mount = mount_of(cwd)
    if mount is None and not entries:
        return f"no project in {cwd}: nothing is mounted there and it is empty; mount your project: {RUN_EXAMPLE}"
    if config is not None and config.strip() and mount is not None:
        path = os.path.normpath(os.path.join(cwd, os.path.expanduser(config)))
        if path != mount and not path.startswith(mount.rstrip("/") + "/"):
            return (
                f"--config {config}: {path} is outside the mounted folder {mount}; skill-be reads the project "
                f"and writes its results next to the config, so give a path inside {mount}"
            )
    return None


def socket_problem(environ: dict[str, str] | os._Environ[str]) -> str | None:
    """A Docker socket that is there but that this user cannot open, as one line; None otherwise."""
    host = environ.get("DOCKER_HOST", "")
    if host and not host.startswith("unix://"):
        return None
    sock = host[len("unix://") :] if host else "/var/run/docker.sock"
    try:
        st = os.stat(sock)
    except OSError:
        return None  # no socket: `auto` runs the code tests in the process runner
    if not stat.S_ISSOCK(st.st_mode) or os.access(sock, os.R_OK | os.W_OK):
        return None
    return (
        f"the Docker socket {sock} is mounted, but uid {os.geteuid()} cannot open it (owner {st.st_uid}:"
        f"{st.st_gid}, mode {stat.S_IMODE(st.st_mode):o}); run the container as root (no --user), or add "
        f"--group-add {st.st_gid}, or leave the socket out to run the code tests without Docker"
    )


def give_back(top: str, uid: int, gid: int, since: float) -> None:
    """Give every path under `top` that root created or changed since `since` to uid:gid."""
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d not in SKIP]
        for name in (folder, *(os.path.join(folder, f) for f in files), *(os.path.join(folder, d) for d in dirs)):
            try:
                st = os.lstat(name)
                if st.st_uid == 0 and st.st_ctime >= since:
                    os.lchown(name, uid, gid)
            except OSError:
                continue  # gone already, or a read-only mount: nothing to give back


def run_child(args: Sequence[str], give_to: tuple[str, int, int] | None) -> int:
    """Run skill-be as a child, pass the signals on, and return its exit code as a shell would.

    `give_to` (top, uid, gid): afterwards, hand what root wrote under `top` to uid:gid."""
    # ctime has a coarse clock on some file systems: a second of slack only reaches files that root
    # wrote in the second before skill-be started, which nobody else did in this container.
    since = time.time() - 1
    # A session of its own: a terminal's Ctrl-C reaches the launcher's group only, and is forwarded
    # once, the same as a `docker kill -s INT` without a terminal.
    child = subprocess.Popen(["skill-be", *args], start_new_session=True)

    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):  # it has just exited
            child.send_signal(signum)

    for signum in FORWARDED:
        signal.signal(signum, forward)
    code = child.wait()
    for signum in FORWARDED:
        signal.signal(signum, signal.SIG_IGN)  # the files are handed over, whatever arrives now
    if give_to is not None:
        give_back(*give_to, since)
    return code if code >= 0 else 128 - code


def main(args: Sequence[str]) -> int:
    command, config, wants_help = command_of(args)
    if command is None or wants_help:
        os.execvp("skill-be", ["skill-be", *args])
    cwd = os.getcwd()
    if command in PROJECT_COMMANDS:
        problem = project_problem(cwd, config)
        if problem is None and command in SANDBOX_COMMANDS:
            problem = socket_problem(os.environ)
        if problem is not None:
            print(f"skill-be: {problem}", file=sys.stderr)
            return 2
    if command in WRITES_NOTHING:
        os.execvp("skill-be", ["skill-be", *args])
    give_to = None
    if os.geteuid() == 0 and os.environ.get("SKILL_BE_CHOWN", "1") != "0":
        st = os.stat(cwd)
        if st.st_uid != 0:
            give_to = (mount_of(cwd) or cwd, st.st_uid, st.st_gid)
    return run_child(args, give_to)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
