"""The bwrap sandbox: the process runner, with each answer's own process inside bubblewrap.

The runner (the tests and their verdicts) runs as in the process runner; the answer's process
(host.mjs) starts under `bwrap` in new user, pid, network, ipc, uts and cgroup namespaces: the system
(/usr and its links) read-only, the Node harness and the installed packages read-only, its own run
folder the only place it can write, a /proc of its own pid namespace (no view of skill-be, the runner
or any other process), a fresh /tmp, an environment cut to PATH, HOME and TMPDIR, no network, and its
own message queues and System V IPC, gone with it. The tests, other skills' files and the package
list's own files (.npmrc, dotfiles) are not in its view at all. When the runner is stopped (a timeout),
bwrap's --die-with-parent takes the whole pid namespace with it. As root (see separate.py), skill-be
starts the answer's bwrap itself, under the slot's answer uid, with Docker's seccomp profile (bpf.py)
and the process limit, and the runner, under the slot's runner uid, in bwrap namespaces of its own
(runner_argv). No limit on memory or CPU: use Docker for those."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from skill_be.codetests.protocol import Request
from skill_be.codetests.sandbox import SandboxError, Settings, Work, bpf
from skill_be.codetests.sandbox.process import ProcessSandbox, ProcessSlot
from skill_be.errors import ConfigError

PROBE_TIMEOUT_S = 10
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def find() -> str | None:
    return shutil.which("bwrap")


def works(bwrap: str | None = None) -> str | None:
    """None when bwrap is installed and can make its namespaces on this machine; else why not."""
    path = bwrap or find()
    if path is None:
        return "bwrap is not installed (Debian and Ubuntu: apt-get install bubblewrap)"
    argv = [
        path,
        "--unshare-all",
        "--die-with-parent",
        "--ro-bind",
        "/",
        "/",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "true",
    ]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bwrap did not run ({e})"
    if done.returncode != 0:
        detail = " ".join(done.stderr.decode("utf-8", "replace").split())[:200] or f"exit code {done.returncode}"
        return f"bwrap cannot make its namespaces here ({detail})"
    return None


def wrap_argv(
    bwrap: str, node: str, harness_dir: Path, base: Path, packages: Path | None, run_dir: Path, seccomp: int = -1
) -> list[str]:
    """bwrap and its options for one answer's process; the host command follows. `seccomp`: a file
    descriptor holding Docker's profile compiled (bpf.memfd), or -1 for none."""
    # --as-pid-1: no bwrap init inside, so the pid namespace holds the answer's processes and nothing else.
    argv = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--as-pid-1", "--clearenv"]
    if seccomp >= 0:
        argv += ["--seccomp", str(seccomp)]
    argv += ["--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", str(run_dir)]
    argv += ["--setenv", "TMPDIR", str(run_dir)]
    for name in ("LANG", "LC_ALL"):
        if name in os.environ:
            argv += ["--setenv", name, os.environ[name]]
    argv += ["--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for link in SYSTEM_LINKS:
        if os.path.islink(link):
            argv += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            argv += ["--ro-bind", link, link]
    real = Path(os.path.realpath(shutil.which(node) or node))
    if not str(real).startswith("/usr/"):
        prefix = real.parent.parent  # <prefix>/bin/node: the install with its libraries
        argv += ["--ro-bind", str(prefix), str(prefix)]
    argv += ["--ro-bind", str(harness_dir), str(harness_dir)]
    for folder in (base / "node_modules", packages):
        if folder is not None and folder.is_dir():
            argv += ["--ro-bind", str(folder), str(folder)]
            for entry in folder.iterdir():  # npm's own files (.package-lock.json, .bin): not the packages
                if entry.name.startswith("."):
                    hide = ["--tmpfs", str(entry)] if entry.is_dir() else ["--ro-bind", "/dev/null", str(entry)]
                    argv += hide
    argv += ["--bind", str(run_dir), str(run_dir), "--chdir", str(run_dir), "--"]
    return argv


def runner_argv(bwrap: str, node: str, staged: Path, home: Path) -> list[str]:
    """bwrap and its options for the runner and its launcher (as root, under the runner's uid): its own pid,
    network, IPC and mount namespaces, the system and the staged work folders read-only (it reads
    its slot's tests there; the pair's FIFOs open read-write on a read-only mount), its home its
    only writable folder. No view of skill-be, the host's files or any other process."""
    argv = [bwrap, "--unshare-all", "--die-with-parent", "--clearenv"]
    argv += ["--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", str(home)]
    argv += ["--setenv", "TMPDIR", str(home)]
    argv += ["--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    argv += _system_links()
    real = Path(os.path.realpath(shutil.which(node) or node))
    if not str(real).startswith("/usr/"):
        argv += ["--ro-bind", str(real.parent.parent), str(real.parent.parent)]
    argv += ["--ro-bind", str(staged), str(staged), "--bind", str(home), str(home), "--"]
    return argv


def _system_links() -> list[str]:
    argv: list[str] = []
    for link in SYSTEM_LINKS:
        if os.path.islink(link):
            argv += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            argv += ["--ro-bind", link, link]
    return argv


class BwrapSlot(ProcessSlot):
    """Its answers, one at a time, use one run folder, made before the runner starts and removed
    after each answer, so that bwrap (which binds it) can start before the answer comes."""

    sandbox: BwrapSandbox

    def __init__(self, sandbox: ProcessSandbox, settings: Settings, uid: int | None) -> None:
        self.seccomp = -1
        super().__init__(sandbox, settings, uid)
        self.folder = f"slot-{secrets.token_hex(8)}"

    def wrap(self, work: Work) -> list[str]:
        base = self.sandbox.folder_of(work)
        packages = base.parent / "node_modules" if self.sandbox.staged is not None else work.packages
        folder = f"r-{self.files.name}" if self.files is not None else self.folder
        run_dir = base / "runs" / folder
        harness = self.sandbox.runner.parent
        node = self.settings.interpreter
        return wrap_argv(self.sandbox.bwrap, node, harness, base, packages, run_dir, self.seccomp)

    def host_fds(self) -> tuple[int, ...]:
        """As root, the seccomp program for the answer's bwrap (the runner's spawn passes no other fd)."""
        self.seccomp = -1
        if "seccomp" not in self.settings.weaken and "bwrap" not in self.settings.weaken:
            try:
                self.seccomp = bpf.memfd()
            except (bpf.SeccompError, OSError) as e:
                raise SandboxError(f"Docker's seccomp profile could not be compiled for bwrap ({e})") from None
        return () if self.seccomp < 0 else (self.seccomp,)

    def host_command(self, work: Work) -> list[str]:
        if "bwrap" in self.settings.weaken:
            return super().host_command(work)
        return [*self.wrap(work), *super().host_command(work)]

    def runner_netns(self) -> bool:
        return False  # bwrap's own namespaces hold the runner (and the control that switches bwrap off keeps it open)

    def runner_prefix(self) -> list[str]:
        weaken = self.settings.weaken
        if "bwrap" in weaken or "realm" in weaken or self.files is None or self.sandbox.staged is None:
            return []  # (in the runner's realm, the runner writes the answer's file itself)
        return runner_argv(self.sandbox.bwrap, self.settings.interpreter, self.sandbox.staged, self.files.home)

    def early(self) -> list[str]:
        if "bwrap" in self.settings.weaken or self.files is not None:
            return super().early()
        if not self.settings.works or "realm" in self.settings.weaken:
            return []
        work = self.settings.works[0]
        run_dir = self.sandbox.folder_of(work) / "runs" / self.folder
        run_dir.mkdir(mode=0o700, exist_ok=True)
        if self.uid is not None:
            os.chown(run_dir, self.uid, self.uid)
        return [*super().early(), "--wrap", json.dumps(self.wrap(work))]

    def prepare(self, request: Request, work: Work) -> Request:
        if "bwrap" in self.settings.weaken or self.files is not None:
            return super().prepare(request, work)
        req = super().prepare(replace(request, run=self.folder), work)
        return replace(req, wrap=tuple(self.wrap(work)))


class BwrapSandbox(ProcessSandbox):
    name = "bwrap"
    slot_class = BwrapSlot

    def __init__(self, settings: Settings, bwrap: str) -> None:
        super().__init__(settings)
        self.bwrap = bwrap

    def describe(self) -> dict[str, object]:
        if self.settings.language == "python":
            return {"sandbox": "bwrap", "python": self.settings.python, "bwrap": self.bwrap}
        return {"sandbox": "bwrap", "node": self.settings.node, "bwrap": self.bwrap}


def create(settings: Settings, warn: Callable[[str], None]) -> BwrapSandbox:
    bwrap = find()
    problem = works(bwrap)
    if bwrap is None or problem is not None:
        raise ConfigError(
            f"codeTests.sandbox: bwrap, but {problem}; install bubblewrap, or set codeTests.sandbox: docker or process"
        )
    return BwrapSandbox(settings, bwrap)
