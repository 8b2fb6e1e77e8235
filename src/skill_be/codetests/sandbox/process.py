"""The process runner: each answer's tests in a separate Node process on this machine.

Not a sandbox. The environment is cut to what Node and the OS need, so the user's secrets stay out,
and a timeout kills the runner's whole process group. Run as a user, the code can still read and
write what the user can (other processes' environments included), and use the network. Run as root,
each slot gets two uids of its own, neither root (see separate.py): the runner's (the tests and the
verdicts, under Node's permission model, and its launcher) and the answers' (started by skill-be, its process limit set with setrlimit and checked);
before each answer every process of both is killed and what they left where any user may write is
swept (see identity.sweep_all), and the runner has a network namespace of its own (no network). The
answer's code can still read what every user may, and use the network."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from skill_be.codetests import runner_flags
from skill_be.codetests.protocol import Request
from skill_be.codetests.sandbox import OpenChannel, SandboxError, Settings, Work, identity, languages, pair, separate

NOTE = (
    "note: code tests run the model's code on this machine, in a separate process without your "
    "environment's secrets. It is not a sandbox: the code runs as your user, so it can read and write what "
    "you can, other processes' environments included, and use the network; install bubblewrap (bwrap) or "
    "start a Docker engine to isolate it."
)
NOTE_ROOT = (
    "note: code tests run the model's code on this machine, under a user id of its own, with the tests and "
    "verdicts in a process under another user id and without network, without your environment's secrets and "
    "out of reach of skill-be's processes and the other scenarios' tests. It is not a sandbox: the code can read "
    "every file that every user may read (this project's sources too, where its folders let other users in) and "
    "use the network; install bubblewrap (bwrap) or start a Docker engine to isolate it."
)
# As root where this machine refuses a network namespace (root in a container without CAP_SYS_ADMIN).
NOTE_ROOT_NET = NOTE_ROOT.replace(
    "under another user id and without network,",
    "under another user id (which keeps the network: this machine refuses it a network namespace),",
)
# What Node and the OS need; nothing else of skill-be's environment reaches the answer's code.
POLL_S = 0.5  # how often a reader looks whether another thread stopped its channel
KEPT_VARIABLES = ("PATH", "SYSTEMROOT", "SystemRoot", "WINDIR", "COMSPEC", "PATHEXT", "LANG", "LC_ALL")


def runner_environment(folder: str, environ: dict[str, str] | None = None) -> dict[str, str]:
    env = os.environ if environ is None else environ
    kept = {k: env[k] for k in KEPT_VARIABLES if k in env}
    kept.setdefault("PATH", os.defpath)
    kept["HOME"] = folder
    kept["TMPDIR"] = folder
    return kept


class ProcessChannel:
    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.selector = selectors.DefaultSelector()
        assert proc.stdout is not None and proc.stderr is not None
        self.selector.register(proc.stdout, selectors.EVENT_READ, 1)
        self.selector.register(proc.stderr, selectors.EVENT_READ, 2)
        self.open_streams = 2
        self.stopped = False

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read(self, timeout: float) -> tuple[int, bytes] | None:
        deadline = time.monotonic() + timeout
        while self.open_streams:
            if self.stopped:
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                return 0, b""
            events = self.selector.select(min(left, POLL_S))
            if not events:
                continue
            key, _ = events[0]
            data = os.read(key.fd, 1 << 16)
            if data:
                return int(key.data), data
            self.selector.unregister(key.fileobj)
            self.open_streams -= 1
        return None

    def stop(self) -> None:
        self.stopped = True
        # The runner leads its own session: its group holds whatever the answer started.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError):
                if f is not None:
                    f.close()
        with contextlib.suppress(Exception):
            self.selector.close()

    def status(self) -> str:
        code = self.proc.poll()
        if code is None:
            return "still running"
        if code < 0:
            return f"killed by signal {-code}"
        return f"exit code {code}"

    def start_failed(self) -> bool:
        return False


class ProcessSlot:
    def __init__(self, sandbox: ProcessSandbox, settings: Settings, uid: int | None) -> None:
        self.sandbox = sandbox
        self.settings = settings
        self.uid = uid  # the answers' own uid, when skill-be runs as root; else they run as the user
        self.current: ProcessChannel | None = None
        self.uids: separate.Uids | None = None  # as root: the answers' and the runner's uids
        self.files: separate.SlotFiles | None = None
        self.pair: Path | None = None  # as root: the current answer's pair folder
        self.host_for = ""  # as root: the work key the answer's process was started for
        self.pair_used = False  # a runner was started on the pair: the next one gets a fresh pair
        self.host: subprocess.Popen[bytes] | None = None  # as root: the answer's process, a session leader
        if uid is not None and sandbox.staged is not None:
            self.uids = separate.Uids(answer=uid, runner=sandbox.fresh_uid())
            keys = tuple(w.key for w in settings.works)
            self.files = separate.SlotFiles(sandbox.staged, keys, self.uids, settings.weaken, settings.language)

    def open(self) -> OpenChannel:
        if self.sandbox.closed:
            raise SandboxError("the process runner is closed")
        works = self.settings.works
        folder = self.base(works[0]) if works else os.getcwd()
        env = runner_environment(folder)
        user: dict[str, object] = {}
        if self.uids is not None and self.files is not None:
            if self.pair is None or self.pair_used:
                self._fresh()
                if works and "realm" not in self.settings.weaken:
                    self._start_host(works[0])
            self.pair_used = True
            env = runner_environment(str(self.files.home))
            env["HOME"] = env["TMPDIR"] = str(self.files.home)
            uid = None if "runner-uid" in self.settings.weaken else self.uids.runner
            user = {"preexec_fn": separate.become_runner(uid, self.runner_netns())}
        harness = str(self.sandbox.runner.parent)
        s = self.settings
        try:
            proc = subprocess.Popen(
                [*self.runner_prefix(), *languages.runner_argv(s.language, s.interpreter, harness, self.options())],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=folder,
                env=env,
                start_new_session=True,
                **user,  # type: ignore[call-overload]
            )
        except (OSError, subprocess.SubprocessError) as e:
            raise SandboxError(f"the test process could not start ({self.settings.interpreter}: {e})") from None
        self.current = ProcessChannel(proc)
        return self.current

    def options(self) -> list[str]:
        """launch.mjs's options: what the runner may read (codetests/runner_flags.py), then early()'s."""
        staged = self.sandbox.staged is not None
        # As root, the runner's tests are its slot's copy (separate.SlotFiles), not the work's tests/.
        tests = f"s-{self.files.name}" if self.files is not None else "tests"
        paths = [
            runner_flags.RunnerPaths(
                self.base(w),
                str(self.sandbox.folder_of(w).parent / "node_modules")
                if staged
                else (str(w.packages) if w.packages else None),
                tests,
            )
            for w in self.settings.works
        ]
        s = self.settings
        return [*languages.runner_options(s.language, paths, s.weaken, s.memory_mb), *self.early()]

    def _fresh(self) -> None:
        """Nothing of the last answer or runner left: their processes killed (the slot moves to fresh
        uids when one outlives every kill), their files swept, the answer's run folders made anew."""
        assert self.uids is not None and self.files is not None
        # A killed orphan stays a zombie until PID 1 reaps it, and counts against its uid's process
        # limit until then: a slot whose uids have any moves to fresh ones too.
        # The ones known first (unreaped children of ours: their pids cannot have been reused), so
        # that the scans below mostly find them gone.
        for proc in (self.host, self.current.proc if self.current is not None else None):
            if proc is not None and proc.poll() is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
        self.host = None
        survivors = not identity.kill_all_clean(self.uids.answer, self.uids.runner)
        if "sweep" not in self.settings.weaken:
            identity.sweep_all((self.uids.answer, self.uids.runner), self.sandbox.staged)
        self.files.clean()
        if survivors:
            # Something outlived every kill (a fork race on a loaded machine), or is not reaped yet:
            # the next answer must not share a uid with it.
            self.uids = separate.Uids(answer=self.sandbox.fresh_uid(), runner=self.sandbox.fresh_uid())
            self.uid = self.uids.answer
            self.files.own(self.uids)
        self.files.run_folders(self.uids.answer)

    def runner_prefix(self) -> list[str]:
        """What the runner starts under (bwrap as root: its namespaces)."""
        return []

    def runner_netns(self) -> bool:
        """As root: the runner (its launcher) in a network namespace of its own (bwrap gives it one)."""
        return self.sandbox.runner_net

    def host_fds(self) -> tuple[int, ...]:
        """File descriptors the answer's process start needs (bwrap's seccomp program); closed after."""
        return ()

    def host_command(self, work: Work) -> list[str]:
        """The answer's process: Node and host.mjs, or Python and host.py (bwrap wraps it)."""
        s = self.settings
        return languages.host_argv(s.language, s.interpreter, str(self.sandbox.runner.parent), s.memory_mb)

    def _start_host(self, work: Work) -> None:
        assert self.uids is not None and self.files is not None and self.sandbox.staged is not None
        self.pair = separate.make_pair(self.sandbox.staged, self.uids)
        self.files.pairs.append(self.pair)
        self.pair_used = False
        env = runner_environment(str(self.files.base(work.key) / "runs"))
        cwd = str(self.files.base(work.key) / "runs")
        nproc = 0 if "limits" in self.settings.weaken else self.settings.pids
        own_ipc = "sweep" not in self.settings.weaken  # a control switches both off
        fds = self.host_fds()
        try:
            command = self.host_command(work)
            self.host = separate.start_host(command, self.pair, self.uids.answer, nproc, cwd, env, own_ipc, fds)
        finally:
            for fd in fds:
                os.close(fd)
        self.host_for = work.key

    def early(self) -> list[str]:
        """The runner's options to start the answer's process before the request comes."""
        if "realm" in self.settings.weaken:
            return []
        if self.pair is not None:
            return ["--host", "-", "0", "--wrap", json.dumps(pair.relay_wrap(str(self.pair)))]
        nproc = self.settings.pids if self.uid is not None else 0
        return ["--host", "-" if self.uid is None else str(self.uid), str(nproc)]

    def base(self, work: Work) -> str:
        return str(self.sandbox.folder_of(work))

    def prepare(self, request: Request, work: Work) -> Request:
        weaken = self.settings.weaken
        if self.files is not None and self.uids is not None:
            test = self.files.give_test(work.key, request.test)
            if "realm" in weaken:
                return replace(request, base=self.base(work), test=test, in_realm=True)
            if self.pair is None:
                self._fresh()
                self._start_host(work)
            elif self.host_for != work.key:
                identity.kill_all(self.uids.answer)  # bwrap binds the work's own packages: a new one
                self._start_host(work)
            run = f"r-{self.files.name}"
            wrap = tuple(pair.relay_wrap(str(self.pair)))
            return replace(request, base=self.base(work), test=test, run=run, uid=None, nproc=0, wrap=wrap)
        nproc = self.settings.pids if self.uid is not None else 0  # a per-uid limit needs a uid of its own
        return replace(request, base=self.base(work), uid=self.uid, nproc=nproc, in_realm="realm" in weaken)

    def finished(self, work: Work, run: str) -> None:
        if self.uids is not None:
            # What the answer and its runner started, detached or not, dies in the next open(), which
            # comes at once (the pool opens the slot's next runner now) or at close().
            self.pair = None
        elif self.uid is not None:
            survivors = not identity.kill_all(self.uid)
            runs = self.sandbox.folder_of(work) / "runs"
            identity.sweep(self.uid, (runs, *map(Path, identity.SHARED_PLACES)))
            if survivors:
                self.uid = self.sandbox.fresh_uid()
        shutil.rmtree(self.sandbox.folder_of(work) / "runs" / run, ignore_errors=True)

    def retire(self) -> None:
        pass

    def close(self) -> None:
        if self.current is not None:
            self.current.stop()
        if self.uids is not None:
            identity.kill_all(self.uids.answer, self.uids.runner)
            identity.sweep_all((self.uids.answer, self.uids.runner), self.sandbox.staged)
        elif self.uid is not None:
            identity.kill_all(self.uid)


class ProcessSandbox:
    name = "process"
    slot_class = ProcessSlot

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.closed = False
        self.lock = threading.Lock()
        self.uids: set[int] = set()
        # As root, the answers run under uids of their own, from a copy of the work folders that those
        # uids can reach (the project's folder may be closed to them, as /root is).
        self.drop = os.name == "posix" and os.geteuid() == 0 and "uid" not in settings.weaken
        self.runner_net = False
        self.staged: Path | None = None
        self.runner = settings.harness_dir / languages.RUNNER_FILE[settings.language]
        if self.drop:
            from skill_be.codetests.sandbox import payload

            tests = (0, 0, 0o755) if "tests" in settings.weaken else (0, 0, 0o700)  # slots get copies
            owners = payload.Owners(tests=tests, runs=(0, 0, payload.RUNS_MODE), dotfiles="dotfiles" in settings.weaken)
            self.staged = payload.stage(settings.works, owners, settings.harness_dir)
            self.runner = self.staged / "h" / languages.RUNNER_FILE[settings.language]
            _reachable(settings.interpreter)
            identity.become_subreaper()
        # As root, the runner gets no network (`runner-net`: a test's control keeps it).
        self.runner_net = self.drop and "runner-net" not in settings.weaken and separate.can_own_network()

    def folder_of(self, work: Work) -> Path:
        return self.staged / "b" / work.key / "w" if self.staged is not None else work.folder

    def new_slot(self) -> ProcessSlot:
        return self.slot_class(self, self.settings, self.fresh_uid() if self.drop else None)

    def fresh_uid(self) -> int:
        """Another unused uid for a slot whose old one still has live processes (killed at close)."""
        with self.lock:
            try:
                return identity.allocate(self.uids)
            except RuntimeError as e:
                raise SandboxError(str(e)) from None

    def describe(self) -> dict[str, object]:
        if self.settings.language == "python":
            return {"sandbox": "process", "python": self.settings.python}
        return {"sandbox": "process", "node": self.settings.node}

    def close(self) -> list[str]:
        self.closed = True
        for uid in self.uids:
            identity.kill_all(uid)
        if self.staged is not None:
            shutil.rmtree(self.staged, ignore_errors=True)
        return []


def _reachable(node: str) -> None:
    """The answers' uid must be able to run Node (or Python): every folder above it open to other users."""
    path = Path(shutil.which(node) or node)
    closed = [p for p in path.parents if p.exists() and not p.stat().st_mode & 0o001]
    if closed or (path.exists() and not path.stat().st_mode & 0o001):
        raise SandboxError(
            f"{path} cannot be run by another user ({closed[0] if closed else path} is closed to them), and the "
            "process runner runs the answers as a user of their own when skill-be runs as root; install Node "
            "where every user can run it"
        )


def create(settings: Settings, warn: Callable[[str], None]) -> ProcessSandbox:
    sandbox = ProcessSandbox(settings)
    if not sandbox.drop:
        warn(NOTE)
    else:
        warn(NOTE_ROOT if sandbox.runner_net or "runner-net" in settings.weaken else NOTE_ROOT_NET)
    return sandbox
