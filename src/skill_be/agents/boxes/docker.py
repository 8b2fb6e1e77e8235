"""The `docker` agent box: each agent run in a container of its own, and the checks afterwards in another.

Both start from skill-be's image (it has the CLIs, Node 22, Python and git) with a read-only root,
every capability dropped, no new privileges, memory, CPU and pid limits, an empty environment, and
no Docker socket (the container module's `create`). PID 1 and the supervisor (box_main.py, run with
`python3 -c` in one exec per run) are root with three capabilities given back (SETUID, SETGID, KILL);
the CLI, everything the agent starts and every check run under the agents' uid (65534) with none.
The supervisor takes the record (the CLI's exit, its output cut at its exit, each check's exit and
output) and kills every process of that uid before it answers: the record comes back on the exec's
own output, never through a file the agent can write. The provider's key reaches the supervisor in
the exec's environment, never on a command line. `/work` is a tmpfs-backed volume (a huge file fills
it and fails there, not on the host's disk) that holds the workspace (`/work/ws`) and the CLI's
private home (`/work/home`); everything goes in and out through the archive API, so this works from
inside a container too (the GitHub action's sibling containers). The agent container has no network:
its only way out is the egress proxy's sockets, mounted read-only (egress.py), which this box starts
and closes. The checks container has no network, no key, and never the agent's home.

An agent scenario with an `environment` runs in its own image, built on skill-be's (agents/environment.py):
`in_image` gives this box with that image, every protection the same.

Tests switch protections off (`BoxSettings.weaken`) to show each one's attack: `network` (a bridge
network), `kill` (processes left by the CLI or a check live on), `record` (the old way: the
supervisor under the agents' uid, its record in files under /work), `argv` (the environment on the
supervisor's command line).
"""

from __future__ import annotations

import base64
import contextlib
import json
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

from skill_be import containers
from skill_be.agents.boxes import AgentRun, BoxSettings, CheckResult
from skill_be.agents.boxes.egress import SOCKETS, EgressPlan, EgressProxy, plan_for
from skill_be.agents.drivers.base import AgentDriver, AgentSetup, Launch
from skill_be.agents.workspace import MAX_WORKSPACE, Files, WorkspaceError, from_tar, to_tar
from skill_be.errors import ConfigError

WORK = PurePosixPath("/work")
WORKSPACE = WORK / "ws"
HOME = WORK / "home"
CHECKS = WORK / "checks"
OUT = WORK / ".skill-be" / "out"  # the old way's record (a test's control only)
SUPERVISOR = Path(__file__).with_name("box_main.py")
PYTHON = "/usr/bin/python3"
ROOT = "0:0"  # PID 1 and the supervisor
SUPERVISOR_CAPS = ("SETUID", "SETGID", "KILL")  # to start the agents' processes under their uid, and kill them
AGENT_UID = 65534
USER = f"{AGENT_UID}:{AGENT_UID}"  # the CLI, what the agent starts, the checks
LEGACY_WINDOW = 0.5  # the old way: how long a process left behind has, at the least, before the record is read
MAX_STDOUT = 32 << 20
CHECKS_ENV = {"PATH": "/opt/skill-be/bin:/opt/agent-clis/bin:/usr/local/bin:/usr/bin:/bin", "HOME": str(HOME)}
IMAGE_PATH = "/opt/agent-clis/bin:/opt/skill-be/bin:/usr/local/bin:/usr/bin:/bin"  # the CLIs in skill-be's image
GRACE_SECONDS = 30.0
LABEL = "skill-be.box"  # this box's own id, on everything it makes


class DockerBox:
    """Starts the agent and checks containers of one run (AgentBox)."""

    name = "docker"

    def __init__(self, engine: Any, settings: BoxSettings, proxy: EgressProxy | None, plan: EgressPlan) -> None:
        self.client = engine
        self.settings = settings
        self.image = settings.image
        self.limits = settings.limits
        self.egress = proxy
        self.plan = plan
        self.id = secrets.token_hex(6)
        self._removals: list[threading.Thread] = []
        self._spares: dict[tuple[bool, str], Future[tuple[Any, Any]]] = {}  # (with_egress, image) -> a started one
        self._pool: Any = None
        self._lock = threading.Lock()
        self._active: set[Any] = set()  # containers in use: killed by close() (an interrupted run)

    @property
    def labels(self) -> dict[str, str]:
        return {"skill-be": "agent", LABEL: self.id}

    def driver_options(self, executable: Callable[[], str]) -> dict[str, str]:
        return {"path": IMAGE_PATH}  # the image's CLI, wherever this machine has its own

    def _hardening(self) -> containers.Hardening:
        lim = self.limits
        network = "bridge" if "network" in self.settings.weaken else "none"  # a control: a network given
        return containers.Hardening(
            user=ROOT, memory_mb=lim.memory_mb, cpus=lim.cpus, pids=lim.pids, network=network, init=True,
            caps=SUPERVISOR_CAPS, tmpfs={"/tmp": f"size={lim.tmp_mb}m,mode=1777"},
        )  # fmt: skip

    def _create(self, volume: Any, with_egress: bool, image: str) -> Any:
        volumes = {volume.name: {"bind": str(WORK), "mode": "rw"}}
        if with_egress and self.egress is not None and self.egress.volume is not None:
            volumes[self.egress.volume.name] = {"bind": SOCKETS, "mode": "ro"}  # ro: no agent can replace a socket
        return containers.create(
            self.client, image, self._hardening(), entrypoint=["sleep", "infinity"], command=[],
            volumes=volumes, working_dir=str(WORK), labels=self.labels,
        )  # fmt: skip

    def _fresh(self, with_egress: bool, image: str) -> tuple[Any, Any]:
        volume = containers.tmpfs_volume(self.client, self.limits.disk_mb, self.labels, uid=65534)
        box = None
        try:
            box = self._create(volume, with_egress, image)
            box.start()
        except BaseException:
            self._drop(box, volume)
            raise
        return box, volume

    def _started(self, with_egress: bool, image: str) -> tuple[Any, Any]:
        """A started, empty container: the spare started during the previous run when there is one
        (container start is most of skill-be's own time per run), and a new spare for the next."""
        from concurrent.futures import ThreadPoolExecutor

        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(2, thread_name_prefix="skill-be-spare")
            spare = self._spares.pop((with_egress, image), None)
            self._spares[(with_egress, image)] = self._pool.submit(self._fresh, with_egress, image)
        if spare is not None:
            try:
                return spare.result()
            except Exception:  # the spare failed to start: start one now, which says why
                pass
        return self._fresh(with_egress, image)

    def _box(self, files: Mapping[str, bytes], with_egress: bool, image: str | None = None) -> tuple[Any, Any]:
        box, volume = self._started(with_egress, image or self.image)
        with self._lock:
            self._active.add(box)
        try:
            # put_archive only after start(): before it, the tmpfs volume is not mounted yet.
            body = {**files, ".skill-be/out/.keep": b""} if "record" in self.settings.weaken else files
            if not box.put_archive(str(WORK), to_tar(body, folders=("ws", "home"))):
                raise WorkspaceError("could not copy the workspace into the container")
        except BaseException:
            self._drop(box, volume)
            raise
        return box, volume

    def _drop(self, box: Any, volume: Any) -> None:
        """Remove the container and its volume after the results are in, off the run's clock (about
        0.15 s); `close` waits for every removal."""
        with self._lock:
            self._active.discard(box)

        def remove() -> None:
            for thing in (box, volume):
                try:
                    if thing is not None:
                        thing.remove(force=True)
                except Exception:  # already gone
                    pass

        t = threading.Thread(target=remove, name="skill-be-agent-remove")
        t.start()
        self._removals = [r for r in self._removals if r.is_alive()] + [t]

    def close(self) -> None:
        """Kill the containers still in use (an interrupted run: their exec returns, their thread
        removes them), remove the spares, wait for every removal, then stop the egress proxy."""
        with self._lock:
            spares, self._spares = list(self._spares.values()), {}
            active = list(self._active)
        for box in active:
            with contextlib.suppress(Exception):  # already gone
                box.kill()
        for spare in spares:
            with contextlib.suppress(Exception):  # a spare that never started: nothing to remove
                self._drop(*spare.result())
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        for t in self._removals:
            t.join()
        self._removals = []
        if self.egress is not None:
            self.egress.close()
            self.egress = None

    def in_image(self, image: str) -> ImageBox:
        """This box with its agent and checks containers made from `image` (an environment's, built on
        this box's image): the same protections, proxy and limits; closed with this box."""
        return ImageBox(self, image)

    def run_agent(self, driver: AgentDriver, setup: AgentSetup, files: Files, image: str | None = None) -> AgentRun:
        inside = replace(setup, endpoint=self.plan.rewrite(setup.endpoint))
        try:
            launch = driver.prepare(inside, WORKSPACE, HOME)
        except Exception as e:  # a driver that cannot build its launch: an error of this output
            return AgentRun(error=f"the {driver.name} launch could not be built ({e})")
        return self._run(launch, files, setup.limits.timeout_seconds, image)

    def _run(self, launch: Launch, workspace: Files, timeout: float, image: str | None = None) -> AgentRun:
        """Write the launch's files and the workspace, run the CLI until it ends or `timeout`, copy the
        workspace back; the record from the supervisor. Every failure is an `error` of this run."""
        run = AgentRun()
        box = volume = None
        try:
            files = {f"ws/{k}": v for k, v in workspace.items()}
            for path, content in launch.files.items():
                if not path.is_relative_to(WORK):
                    raise WorkspaceError(f"the driver wrote {path}, outside {WORK}")
                files[str(path.relative_to(WORK))] = content
                if path.is_relative_to(launch.cwd):
                    run.installed[str(path.relative_to(launch.cwd))] = content
            box, volume = self._box(files, with_egress=True, image=image)
            spec = {"mode": "agent", "argv": list(launch.argv), "cwd": str(launch.cwd), "timeout": timeout,
                    "relays": self.plan.relays(), "cap": MAX_STDOUT, "then": [list(t) for t in launch.then]}  # fmt: skip
            record = self._supervise(box, spec, {**launch.env, **self.plan.env()}, timeout)
            _take_record(run, record)
            try:
                run.workspace = from_tar(box.get_archive(str(WORKSPACE))[0], "ws", MAX_WORKSPACE)
            except WorkspaceError as e:
                run.error = run.error or str(e)
            box.reload()
            if box.attrs.get("State", {}).get("OOMKilled"):
                run.killed.append("out of memory")
        except Exception as e:  # Docker or the copy failed: an error of this output
            run.error = run.error or f"the agent container failed: {containers.short(e)}"
        finally:
            self._drop(box, volume)
        return run

    def run_checks(
        self,
        workspace: Files,
        check_files: Files,
        checks: Sequence[tuple[str, str]],
        timeout: float,
        image: str | None = None,
    ) -> tuple[list[CheckResult], str | None]:
        """Each check command under the agents' uid in a fresh container (no network, no key), in the
        finished workspace; every process it left killed before the next starts."""
        box = volume = None
        try:
            files = {
                **{f"ws/{k}": v for k, v in workspace.items()},
                **{f"checks/{k}": v for k, v in check_files.items()},
            }
            files["home/.keep"] = b""
            box, volume = self._box(files, with_egress=False, image=image)
            spec = {"mode": "checks", "checks": [list(c) for c in checks], "cwd": str(WORKSPACE), "timeout": timeout}
            rows = self._supervise(box, spec, {**CHECKS_ENV, "CHECKS": str(CHECKS)}, timeout * max(1, len(checks)))
            if not isinstance(rows, list) or not all(r.get("clean", True) for r in rows):
                return [], "the checks' processes could not all be stopped"
            return [CheckResult(r["name"], str(r["exit"]), r["output"], int(r.get("cut", 0))) for r in rows], None
        except Exception as e:  # the checks container failed: an error of this output
            return [], f"the checks container failed: {containers.short(e)}"
        finally:
            self._drop(box, volume)

    def _supervise(self, box: Any, spec: dict[str, Any], env: Mapping[str, str], timeout: float) -> Any:
        """box_main.py's answer: from its exec's own output, as root. The weakened ways (tests only)
        are the old ones: a program under the agents' uid whose record is in files they can write, or
        the environment on its command line."""
        weaken = self.settings.weaken
        user = ROOT
        spec = {**spec, "uid": AGENT_UID, "kill": "kill" not in weaken, "env_keys": sorted(env)}
        if "record" in weaken:
            user, spec = USER, {**spec, "uid": None, "kill": False, "files": str(OUT)}
        if "argv" in weaken:
            spec["env"] = dict(env)
        out = _exec(box, [PYTHON, "-c", SUPERVISOR.read_text(encoding="utf-8"), json.dumps(spec)], user, env, timeout)
        if "record" not in weaken:
            return json.loads(out)
        time.sleep(LEGACY_WINDOW)
        files = from_tar(box.get_archive(str(OUT))[0], "out", MAX_STDOUT + (1 << 20))
        if spec["mode"] == "checks":
            return json.loads(files.get("checks.json", b"[]"))
        return {"exit": files.get("exit", b"").decode(), "stdout": base64.b64encode(files.get("stdout", b"")).decode(),
                "stderr": base64.b64encode(files.get("stderr", b"")).decode(), "over": False, "clean": True}  # fmt: skip

    def describe(self) -> dict[str, object]:
        lim = self.limits
        return {
            "sandbox": "docker",
            "image": self.image,
            "user": USER,
            "network": "none; egress proxy to "
            + ", ".join([*self.plan.allow, *(f"{t.host}:{t.port}" for t in self.plan.tunnels)]),
            "memoryMb": lim.memory_mb,
            "cpus": lim.cpus,
            "pids": lim.pids,
            "diskMb": lim.disk_mb,
        }


class ImageBox:
    """A DockerBox whose containers are made from another image (an environment's; AgentBox)."""

    name = "docker"

    def __init__(self, box: DockerBox, image: str) -> None:
        self.box = box
        self.image = image

    def driver_options(self, executable: Callable[[], str]) -> dict[str, str]:
        return self.box.driver_options(executable)

    def run_agent(self, driver: AgentDriver, setup: AgentSetup, files: Files) -> AgentRun:
        return self.box.run_agent(driver, setup, files, self.image)

    def run_checks(
        self, workspace: Files, check_files: Files, checks: Sequence[tuple[str, str]], timeout: float
    ) -> tuple[list[CheckResult], str | None]:
        return self.box.run_checks(workspace, check_files, checks, timeout, self.image)

    def describe(self) -> dict[str, object]:
        return {**self.box.describe(), "image": self.image}

    def close(self) -> None:
        """The box it views closes what it made."""


def _exec(box: Any, argv: list[str], user: str, env: Mapping[str, str], timeout: float) -> bytes:
    """One exec's stdout. The supervisor keeps the time limit itself, and should it not return
    (killed, stuck), the container is killed a grace period later, which ends the exec."""
    guard = threading.Timer(timeout + GRACE_SECONDS, box.kill)
    guard.daemon = True
    guard.start()
    try:
        done = box.exec_run(argv, user=user, environment=dict(env), demux=True)
    finally:
        guard.cancel()
    stdout, stderr = done.output or (None, None)
    if done.exit_code != 0:
        words = (stderr or b"").decode("utf-8", errors="replace").strip().splitlines()[-1:] or [
            f"exit {done.exit_code}"
        ]
        raise RuntimeError(f"the supervisor stopped: {words[0][:300]}")
    return stdout or b""


def _take_record(run: AgentRun, record: Mapping[str, Any]) -> None:
    """The supervisor's record of the CLI: its exit, its output cut at that exit."""
    run.stdout = base64.b64decode(record.get("stdout") or "").decode("utf-8", errors="replace")
    run.stderr = base64.b64decode(record.get("stderr") or "").decode("utf-8", errors="replace")
    run.exit = str(record.get("exit") or "") or "killed"
    if record.get("over"):
        run.error = f"the CLI's output went over {MAX_STDOUT >> 20} MB"
    elif not record.get("clean", True):
        run.error = "the agent's processes could not all be stopped"


def docker_missing(e: BaseException) -> ConfigError:
    return ConfigError(
        "agent scenarios run each agent in a Docker container, and Docker is not reachable "
        f"({str(e).splitlines()[0] if str(e) else type(e).__name__}); start Docker, or set agent.sandbox: process "
        "in the scenario to run the agent on this machine without isolation"
    )


def connect() -> Any:
    """The Docker engine, or the one line the user reads (ConfigError)."""
    try:
        engine = containers.client(timeout=300)
        engine.ping()
        return engine
    except Exception as e:
        raise docker_missing(e) from None


def create(settings: BoxSettings, warn: Callable[[str], None]) -> DockerBox:
    """The box of one run, its image checked and its egress proxy started when agents will run in it
    (`settings.endpoints`); ConfigError when there is no engine or no image."""
    engine = connect()
    try:
        engine.images.get(settings.image)
    except Exception:
        raise ConfigError(
            f"agent scenarios run in skill-be's image {settings.image}, which Docker does not have; build it "
            f"(docker build -t {settings.image} .) or set agent.sandbox: process"
        ) from None
    plan = plan_for(settings.endpoints) if settings.endpoints else EgressPlan()
    box = DockerBox(engine, settings, None, plan)
    if settings.endpoints:
        proxy = EgressProxy(engine, settings.image, plan, {LABEL: box.id})
        proxy.start()
        box.egress = proxy
    return box
