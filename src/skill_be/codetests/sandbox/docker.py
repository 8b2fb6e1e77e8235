"""The Docker sandbox: each answer's tests in a locked-down container, started through the engine's API.

A slot is one warm container: no network, a read-only root, no new privileges, a seccomp profile,
limits on processes, memory and CPU, and a tmpfs-backed volume at /work (noexec). PID 1 is root and
idle. Each answer gets one exec (START): as root it kills every other process, empties the folders
the last answer and runner could write, and removes every message queue and System V IPC object;
then it starts the answer's process (host.mjs) under ANSWER_UID and becomes the runner's launcher
under RUNNER_UID, both with every capability dropped; the launcher starts the runner (the tests and
the verdicts) under Node's permission model and pair.py's relay to the answer's process.
Neither can trace, signal or read the other, PID 1, or the tests of another scenario: tests/ holds
the helpers, readable by the runner's group only, and each answer's own test file is copied in for
it alone (earlier ones emptied), root's and read-only. When the cleanup cannot finish, or the
container died, the slot gets a new container. Files go in through the archive API, never a bind
mount, so it works the same from inside another container (the GitHub Action's); the Docker socket
and skill-be's environment never go in."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from docker.errors import APIError, DockerException, ImageNotFound, NotFound
from docker.types import Mount

from skill_be import __version__, containers
from skill_be.codetests import runner_flags
from skill_be.codetests.protocol import Request
from skill_be.codetests.sandbox import OpenChannel, SandboxError, Settings, Work, image, languages, pair
from skill_be.codetests.sandbox.payload import RUNS_MODE, TESTS_MODE, Owners, build_payload, test_file_tar
from skill_be.errors import ConfigError

DEFAULT_IMAGE = f"skill-be-sandbox:{__version__}"
LABEL = "skill-be.run"
USER = "0:0"  # PID 1 (idle) and the cleanup before each answer; nothing else in the container is root
ANSWER_UID = 10001  # the answers' processes; nothing else in the container has it
RUNNER_UID = 10002  # the runner (the tests and the verdicts); nothing else has it, nor its group
# Root's, for the first part of each answer's exec alone: kill the other uids' processes, remove their
# files, switch to the answer's and the runner's uids. Both then have none (setpriv drops the bounding
# set; no-new-privileges: no setuid file can give any back).
CAPABILITIES = ["SETUID", "SETGID", "KILL", "DAC_OVERRIDE", "FOWNER"]
WORK = "/work"
# Started under RUNNER_UID: starts the runner under Node's permission model and, on the runner's side
# of the pair, the relay to the answer's process (codetests/runner_flags.py, sandbox/pair.py).
LAUNCH = f"{WORK}/h/launch.mjs"
PAIRS = f"{WORK}/p"  # the answer's, 0711: each answer's pair folder (see pair.py)
RUNNER_HOME = f"{WORK}/r"  # the runner's, 0700: its own temp folder (its FIFOs)
DIRTY = (97, 98)  # the cleanup before a runner could not finish: the container is replaced
IDLE = "trap '' TERM INT HUP; while :; do sleep 2147483647 & wait; done"  # PID 1; its wait reaps orphans
# The one child of PID 1 when the container starts: its idle sleep, spared by the cleanup below.
FIND_IDLE = (
    "for p in /proc/[0-9]*; do read -r s < $p/stat 2>/dev/null || continue; "
    'set -- ${s##*)}; [ "$2" = 1 ] && echo ${p#/proc/}; done; :'
)
# Kill every process but PID 1, its idle sleep and this shell, with builtins only (no fork to race);
# exit 97 if they keep coming.
KILL_ALL = (
    "n=0; while :; do f=0; for p in /proc/[0-9]*; do q=${p#/proc/}; "
    'case $q in 1|$$|"$IDLE") continue;; esac; kill -9 $q 2>/dev/null && f=1; done; '
    "[ $f = 0 ] && break; n=$((n+1)); [ $n -lt 2000 ] || exit 97; done; "
)
IPC_CLEANUP = "rm -f /dev/mqueue/* 2>/dev/null; ipcrm --all 2>/dev/null; "
CLEAN_FOLDERS = (
    f"for d in {WORK}/b/*/w/runs {PAIRS} {RUNNER_HOME}; do "
    'rm -rf -- "$d"/* "$d"/.[!.]* "$d"/..?* 2>/dev/null; [ -z "$(ls -A "$d")" ] || exit 98; done; '
)
# As the answers' uid ($1 its run folder's name, $2 the pair folder, $3 pair.HOST): make this answer's
# run folder in each runs/ and its pair, then start its process on the pair.
ANSWER_START = (
    f'for d in {WORK}/b/*/w/runs; do mkdir -m 700 "$d/$1" || exit 98; done; '
    'p=$2; mkdir -m 711 "$p" && mkfifo -m 666 "$p/in" "$p/out" && : >"$p/ready" || exit 98; '
    f'cd {WORK}/b && exec /bin/sh -c "$3" host "$p" node {WORK}/h/host.mjs'
)


def drop(uid: int) -> str:
    """setpriv to `uid` (and gid), with no supplementary group and no capability left."""
    return f"setpriv --reuid={uid} --regid={uid} --clear-groups --inh-caps=-all --bounding-set=-all"


ANSWER_ENV_ARGS = f"env -i PATH=/usr/local/bin:/usr/bin:/bin HOME={WORK}/b TMPDIR={WORK}/b"
# One exec per answer, root only for its first part (it is out of the answers' reach: another uid,
# which they cannot signal or trace): kill what the last answer and runner left, empty runs/, the
# pairs and the runner's temp folder, remove every message queue and System V IPC object (exit
# 97/98 when that cannot finish: the slot gets a new container); then start the answer's process
# under ANSWER_UID ($1-$3 as ANSWER_START's, $4 ANSWER_START) and become the runner under
# RUNNER_UID, every capability dropped. Afterwards no process but PID 1 is root.
START = KILL_ALL + CLEAN_FOLDERS + IPC_CLEANUP + "@ANSWER@" + "shift 4; exec @RUNNER@ node " + LAUNCH + ' run "$@"'
ANSWER_PART = '(@ENV@ @DROP@ /bin/sh -c "$4" sh "$1" "$2" "$3" </dev/null >/dev/null 2>&1 &); '


def start_script(weaken: frozenset[str], language: str = "typescript") -> str:
    """START as the weakened protections (only tests switch them off) make it; a Python runner's start."""
    answer_uid = RUNNER_UID if "uid" in weaken else ANSWER_UID  # a control: the answer as the runner
    env = "env" if "environ" in weaken else ANSWER_ENV_ARGS  # a control: skill-be's environment given
    answer = "" if "realm" in weaken else ANSWER_PART.replace("@ENV@", env).replace("@DROP@", drop(answer_uid))
    runner = "" if "runner-uid" in weaken else drop(RUNNER_UID)
    script = START.replace("@ANSWER@", answer).replace("@RUNNER@", runner)
    script = script.replace(KILL_ALL, "") if "kill" in weaken else script
    if language == "python":
        script = script.replace(
            f"node {LAUNCH} run", " ".join(languages.runner_argv(language, "python3", f"{WORK}/h", []))
        )
    return script.replace(IPC_CLEANUP, "") if "sweep" in weaken else script


def answer_start(language: str, memory_mb: int) -> str:
    """ANSWER_START, with Python's answer process for Python's tests."""
    if language != "python":
        return ANSWER_START
    host = " ".join(languages.host_argv(language, "python3", f"{WORK}/h", memory_mb))
    return ANSWER_START.replace(f"node {WORK}/h/host.mjs", host)


RUNNER_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": RUNNER_HOME, "TMPDIR": RUNNER_HOME}
# Docker's default profile (moby/profiles, seccomp/default.json at cd3bed8) without what model-written
# code never needs: ptrace and reading other processes (process_vm_*, kcmp, pidfd_getfd), io_uring,
# the keyring, unshare and setns, POSIX message queues and System V IPC, every rule that needs a
# capability the sandbox never grants, and sockets other than AF_UNIX, AF_INET, AF_INET6, AF_NETLINK.
SECCOMP = Path(__file__).with_name("seccomp.json")
POLL_S = 0.5


def seccomp_profile(weaken: frozenset[str]) -> str | None:
    """The sandbox's seccomp profile (seccomp.json); None (the engine's own) without."""
    if "seccomp" in weaken:
        return None
    return SECCOMP.read_text(encoding="utf-8")


def hardening(s: Settings) -> containers.Hardening:
    """The slot's container: root for PID 1 and each answer's cleanup alone (CAPABILITIES), no IPC."""
    return containers.Hardening(
        user=USER,
        memory_mb=s.memory_mb,
        cpus=s.cpus,
        pids=-1 if "limits" in s.weaken else s.pids,
        read_only="readonly" not in s.weaken,
        caps=tuple(CAPABILITIES),
        seccomp=seccomp_profile(s.weaken),
        ipc_none=True,
    )


class DockerChannel:
    """One exec of the runner; its attached socket carries stdin in and multiplexed output out."""

    def __init__(self, client: Any, exec_id: str, sock: Any) -> None:
        self.client = client
        self.exec_id = exec_id
        self.holder = sock  # keeps the HTTP response (and so the connection) alive
        self.sock: socket.socket = getattr(sock, "_sock", sock)
        self.buf = bytearray()
        self.eof = False
        self.stopped = False
        self.code: int | None = None

    def send(self, data: bytes) -> None:
        self.sock.settimeout(30)
        self.sock.sendall(data)

    def _frame(self) -> tuple[int, bytes] | None:
        if len(self.buf) < 8:
            return None
        stream, length = struct.unpack(">BxxxL", bytes(self.buf[:8]))
        if len(self.buf) < 8 + length:
            return None
        data = bytes(self.buf[8 : 8 + length])
        del self.buf[: 8 + length]
        return stream, data

    def read(self, timeout: float) -> tuple[int, bytes] | None:
        deadline = time.monotonic() + timeout
        while True:
            frame = self._frame()
            if frame is not None:
                return frame
            if self.eof:
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                return 0, b""
            if self.stopped:
                return None
            try:
                self.sock.settimeout(min(left, POLL_S))
                data = self.sock.recv(1 << 16)
            except TimeoutError:
                continue
            except OSError:
                data = b""
            if not data:
                self.eof = True
            self.buf += data

    def stop(self) -> None:
        # Closing the socket does not end the exec: the next runner's start kills what is left.
        # shutdown() first: it wakes a thread blocked reading this socket, which close() does not;
        # and the reader looks at `stopped` at least every POLL_S, should the wake-up not come.
        self.stopped = True
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.sock.close()
        with contextlib.suppress(Exception):
            self.holder.close()

    def _exit_code(self) -> int | None:
        if self.code is None:
            for _ in range(20):
                try:
                    info = self.client.api.exec_inspect(self.exec_id)
                except DockerException:
                    return None
                if not info.get("Running"):
                    self.code = info.get("ExitCode")
                    break
                time.sleep(0.05)
        return self.code

    def status(self) -> str:
        code = self._exit_code()
        if code is None:
            return "still running"
        if code in (137, 139):
            return f"killed, exit code {code}: out of memory, or a limit of the sandbox"
        return f"exit code {code}"

    def start_failed(self) -> bool:
        return self._exit_code() in (*DIRTY, 126, 127)


class DockerSlot:
    def __init__(self, sandbox: DockerSandbox, n: int) -> None:
        self.sandbox = sandbox
        self.n = n
        self.generation = 0
        self.container: Any = None
        self.volume: Any = None
        self.current: DockerChannel | None = None
        self.channels: list[DockerChannel] = []
        self.token: str | None = None  # names this answer's run folder and pair folder
        self.opened: str | None = None  # the token of the runner started last
        self.written: dict[str, set[str]] = {}  # work key -> the test files given to this container
        self.idle_pid = ""
        self.pending: tuple[Work, str] | None = None  # the prepared answer's test file, until it is done

    def _create(self) -> None:
        s = self.sandbox.settings
        client = self.sandbox.client
        payload, size = self.sandbox.payload()
        self.generation += 1
        self.written = {}
        name = f"skill-be-{s.run_id}-{self.n}-{self.generation}"
        labels = {LABEL: s.run_id, "skill-be.version": __version__}
        size_mb = size // (1 << 20) + max(64, s.memory_mb)
        try:
            self.volume = containers.tmpfs_volume(client, size_mb, labels, mode="0755", noexec=True, name=name)
            self.container = containers.create(
                client,
                s.image,
                hardening(s),
                entrypoint=[""],  # the image's own ENTRYPOINT (the skill-be image has one) must not wrap IDLE
                command=["sh", "-c", IDLE],
                name=name,
                working_dir=WORK,
                mounts=[Mount(target=WORK, source=name, type="volume")],
                labels=labels,
            )
            self.container.start()
            # After start(): the archive API cannot write into the tmpfs volume of a stopped container.
            if not self.container.put_archive(WORK, payload):
                raise SandboxError("the Docker sandbox refused the test files")
            found = self.container.exec_run(["sh", "-c", FIND_IDLE], user=USER).output.decode().split()
            if len(found) != 1:
                raise SandboxError(f"the Docker sandbox's idle process was not found ({' '.join(found) or 'none'})")
            self.idle_pid = found[0]
            if self.pending is not None:  # a new container for an answer already prepared
                self._give_test(*self.pending)
        except ImageNotFound:
            raise SandboxError(image_missing(s.image)) from None
        except (APIError, DockerException) as e:
            self.retire()
            raise SandboxError(f"the Docker sandbox could not start ({containers.short(e)})") from None

    def _exec(self, cmd: list[str], user: str, env: dict[str, str], attach: bool) -> Any:
        api = self.sandbox.client.api
        exec_id = api.exec_create(
            self.container.id, cmd, stdin=attach, stdout=attach, stderr=attach, user=user, environment=env, workdir=WORK
        )["Id"]
        return exec_id, api.exec_start(exec_id, socket=attach, detach=not attach)

    def _ensure(self) -> None:
        if self.container is None:
            # Under the sandbox's lock, so that no container is made after close() swept them.
            with self.sandbox.lock:
                if self.sandbox.closed:
                    raise SandboxError("the Docker sandbox is closed")
                self._create()

    def open(self) -> OpenChannel:
        self._ensure()
        if self.token is None or self.token == self.opened:
            self.token = secrets.token_hex(8)
        self.opened = token = self.token
        weaken = self.sandbox.settings.weaken
        env = {**RUNNER_ENV, "IDLE": self.idle_pid}
        if "environ" in weaken:
            env = {**os.environ, **env}  # a control only: skill-be's environment given to the answer
        s = self.sandbox.settings
        answer = [f"r-{token}", f"{PAIRS}/{token}", pair.HOST, answer_start(s.language, s.memory_mb)]
        argv = ["sh", "-c", start_script(weaken, s.language), "sh", *answer, *self.early()]
        try:
            exec_id, sock = self._exec(argv, USER, env, attach=True)
        except (APIError, DockerException) as e:
            raise SandboxError(
                f"the test process could not start in the Docker sandbox ({containers.short(e)})"
            ) from None
        self.current = DockerChannel(self.sandbox.client, exec_id, sock)
        self.channels.append(self.current)
        del self.channels[:-4]  # the older ones were stopped when their answer ended
        return self.current

    def _wrap(self) -> list[str]:
        return pair.relay_wrap(f"{PAIRS}/{self.token}")

    def early(self) -> list[str]:
        """launch.mjs's options: what the runner may read, and the relay to the answer's process, which
        the launcher starts before the request comes."""
        weaken = self.sandbox.settings.weaken
        paths = [
            runner_flags.RunnerPaths(self.base(w), f"{WORK}/b/{w.key}/node_modules")
            for w in self.sandbox.settings.works
        ]
        s = self.sandbox.settings
        options = languages.runner_options(s.language, paths, weaken, s.memory_mb)
        if "realm" in weaken:
            return options
        return [*options, "--host", "-", "0", "--wrap", json.dumps(self._wrap())]

    def base(self, work: Work) -> str:
        return f"{WORK}/b/{work.key}/w"

    def prepare(self, request: Request, work: Work) -> Request:
        weaken = self.sandbox.settings.weaken
        if self.token is None:
            self.token = secrets.token_hex(8)
        self.pending = (work, request.test)
        self._give_test(work, request.test)
        if "realm" in weaken:
            return replace(request, base=self.base(work), in_realm=True)
        return replace(
            request, base=self.base(work), run=f"r-{self.token}", uid=None, nproc=0, wrap=tuple(self._wrap())
        )

    def _give_test(self, work: Work, test: str) -> None:
        """This answer's test file into the container, the ones earlier answers had emptied: the runner
        reads the test of its own scenario and no other."""
        if self.container is None:
            self._ensure()
        written = self.written.setdefault(work.key, set())
        if written == {test} and "runner-uid" not in self.sandbox.settings.weaken:
            return  # there as given (root's, and no runner may write it) and alone: nothing to copy
        blank = tuple(sorted(written - {test}))
        mode = 0o644 if "tests" in self.sandbox.settings.weaken else 0o640
        data = test_file_tar(work, test, "", (0, RUNNER_UID), blank, mode)
        try:
            ok = self.container.put_archive(self.base(work), data)
        except (APIError, DockerException) as e:
            raise SandboxError(f"the Docker sandbox refused the answer's test file ({containers.short(e)})") from None
        if not ok:
            raise SandboxError("the Docker sandbox refused the answer's test file")
        written.clear()  # the others are empty now
        written.add(test)

    def finished(self, work: Work, run: str) -> None:
        self.pending = None
        self.token = None  # the next start kills what this answer left and empties its folders

    def retire(self) -> None:
        container, volume = self.container, self.volume
        self.container = self.volume = None
        self.sandbox.remove(container, volume)

    def close(self) -> None:
        for channel in self.channels:
            channel.stop()
        self.retire()


def owners(weaken: frozenset[str]) -> Owners:
    """tests/ readable by the runners' group only, its test files given per answer; runs/ and the pairs
    the answers'; the runner's own temp folder its own."""
    tests = (0, 0, 0o755) if "tests" in weaken else (0, RUNNER_UID, TESTS_MODE)
    dot = "dotfiles" in weaken
    if "realm" in weaken:  # the runner writes the answer itself: the old layout
        dirs: tuple[tuple[str, int, int, int], ...] = (("r", RUNNER_UID, RUNNER_UID, 0o700),)
        return Owners(tests=tests, runs=(0, 0, RUNS_MODE), dirs=dirs, dotfiles=dot)
    runner = 0 if "runner-uid" in weaken else RUNNER_UID
    answer = RUNNER_UID if "uid" in weaken else ANSWER_UID
    dirs = (("p", answer, answer, 0o711), ("r", runner, runner, 0o700))
    every = "test-files" in weaken
    return Owners(tests=tests, runs=(answer, answer, 0o711), dirs=dirs, test_files=every, dotfiles=dot)


def image_missing(name: str) -> str:
    return image.missing(name)


class DockerSandbox:
    name = "docker"

    def __init__(self, settings: Settings, client: Any) -> None:
        self.settings = settings
        self.client = client
        self.lock = threading.RLock()
        self.closed = False
        self._payload: tuple[bytes, int] | None = None
        self.slots = 0
        self.warnings: list[str] = []

    def payload(self) -> tuple[bytes, int]:
        with self.lock:
            if self._payload is None:
                works, harness = self.settings.works, self.settings.harness_dir
                self._payload = build_payload(works, owners(self.settings.weaken), harness)
            return self._payload

    def new_slot(self) -> DockerSlot:
        with self.lock:
            self.slots += 1
            n = self.slots
        return DockerSlot(self, n)

    def remove(self, container: Any, volume: Any) -> None:
        for kind, thing in (("container", container), ("volume", volume)):
            if thing is None:
                continue
            try:
                thing.remove(force=True)
            except NotFound:
                pass
            except DockerException as e:
                self.warnings.append(f"warning: could not remove Docker {kind} {thing.name} ({containers.short(e)})")

    def describe(self) -> dict[str, object]:
        s = self.settings
        return {"sandbox": "docker", "image": s.image, "memoryMb": s.memory_mb, "cpus": s.cpus, "pids": s.pids}

    def close(self) -> list[str]:
        """Everything labelled with this session's run id, whatever slot made it."""
        with self.lock:
            self.closed = True
        selector = {"label": f"{LABEL}={self.settings.run_id}"}
        try:
            for c in self.client.containers.list(all=True, filters=selector):
                self.remove(c, None)
            for v in self.client.volumes.list(filters=selector):
                self.remove(None, v)
        except DockerException as e:
            self.warnings.append(
                f"warning: could not list the Docker sandbox's containers to remove them ({containers.short(e)})"
            )
        with contextlib.suppress(Exception):
            self.client.close()
        return self.warnings


def create(settings: Settings, warn: Callable[[str], None]) -> DockerSandbox:
    """A client and the image checked; the containers come with the slots."""
    try:
        client = containers.client(pool_size=32)
        client.ping()
    except DockerException as e:
        raise ConfigError(
            f"codeTests.sandbox: docker, but no Docker engine answers ({containers.short(e)}); {image.no_engine_fix()}, "
            "or set codeTests.sandbox: process"
        ) from None
    try:
        settings = replace(settings, image=image.resolve(client, settings.image))
    except ConfigError:
        client.close()
        raise
    return DockerSandbox(settings, client)
