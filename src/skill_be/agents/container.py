"""Each agent run in a container of its own, and the checks afterwards in another.

Both start from skill-be's image (it has the CLIs, Node 22, Python and git), as a non-root user
(65534), with a read-only root, every capability dropped, no new privileges, memory, CPU and pid
limits, an empty environment besides what the launch names, and no Docker socket. `/work` is a
tmpfs-backed volume (a huge file fills it and fails there, not on the host's disk) that holds the
workspace (`/work/ws`), the CLI's private home (`/work/home`) and skill-be's files
(`/work/.skill-be`); everything goes in and out through the archive API, so this works from inside
a container too (the GitHub action's sibling containers). The agent container has no network: its
only way out is the egress proxy's sockets, mounted read-only (egress.py). The checks container has
no network, no key, and never the agent's home.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from skill_be.agents.base import AgentDriver, AgentSetup, Launch, ModelEndpoint
from skill_be.agents.egress import SOCKETS, EgressPlan, EgressProxy
from skill_be.agents.workspace import MAX_WORKSPACE, Files, WorkspaceError, from_tar, to_tar

WORK = PurePosixPath("/work")
WORKSPACE = WORK / "ws"
HOME = WORK / "home"
CHECKS = WORK / "checks"
OUT = WORK / ".skill-be" / "out"
BOX_MAIN = Path(__file__).with_name("box_main.py")
USER = "65534:65534"
MAX_STDOUT = 32 << 20
CHECKS_ENV = {"PATH": "/opt/skill-be/bin:/opt/agent-clis/bin:/usr/local/bin:/usr/bin:/bin", "HOME": str(HOME)}


@dataclass(frozen=True)
class BoxLimits:
    memory_mb: int = 2048
    cpus: float = 2.0
    pids: int = 512
    disk_mb: int = 512  # the /work volume (workspace, home, transcript)
    tmp_mb: int = 256


@dataclass
class AgentRun:
    """What came back from one agent container."""

    stdout: str = ""
    stderr: str = ""
    exit: str = ""  # the CLI's exit code, "timeout", or "" when it never ran
    workspace: Files | None = None
    error: str | None = None  # skill-be's side: the container or the copy failed
    killed: list[str] = field(default_factory=list)
    installed: Files = field(
        default_factory=dict
    )  # launch files inside the workspace (the skill): not the agent's work


@dataclass(frozen=True)
class CheckResult:
    name: str
    exit: str
    output: str
    cut: int = 0


def docker_client() -> Any:
    """The Docker engine, or DockerMissing with the one line the user reads."""
    try:
        import docker

        client = docker.from_env(timeout=300)
        client.ping()
        return client
    except Exception as e:
        raise DockerMissing(
            "agent scenarios run each agent in a Docker container, and Docker is not reachable "
            f"({str(e).splitlines()[0] if str(e) else type(e).__name__}); start Docker, or set agent.sandbox: process "
            "in the scenario to run the agent on this machine without isolation"
        ) from None


class DockerMissing(Exception):
    pass


class DockerBoxes:
    """Starts the agent and checks containers of one run."""

    def __init__(
        self,
        client: Any,
        image: str,
        limits: BoxLimits = BoxLimits(),
        egress: EgressProxy | None = None,
        network_mode: str = "none",  # tests switch the protection off ("bridge") to show the attack works
    ) -> None:
        self.client = client
        self.image = image
        self.limits = limits
        self.egress = egress
        self.network_mode = network_mode
        self._removals: list[Any] = []
        self._spares: dict[bool, Any] = {}  # with_egress -> Future of a started, empty container
        self._pool: Any = None
        self._lock = threading.Lock()
        self._active: set[Any] = set()  # containers in use: killed by close() (an interrupted run)

    def _create(self, volume: Any, with_egress: bool) -> Any:
        lim = self.limits
        volumes = {volume.name: {"bind": str(WORK), "mode": "rw"}}
        if with_egress and self.egress is not None and self.egress.volume is not None:
            volumes[self.egress.volume.name] = {"bind": SOCKETS, "mode": "ro"}  # ro: no agent can replace a socket
        return self.client.containers.create(
            self.image,
            entrypoint=["sleep", "infinity"],
            command=[],
            user=USER,
            init=True,
            network_mode=self.network_mode,
            read_only=True,
            tmpfs={"/tmp": f"size={lim.tmp_mb}m,mode=1777"},
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            pids_limit=lim.pids,
            mem_limit=f"{lim.memory_mb}m",
            memswap_limit=f"{lim.memory_mb}m",
            nano_cpus=int(lim.cpus * 1e9),
            volumes=volumes,
            environment={},
            working_dir=str(WORK),
            labels={"skill-be": "agent"},
        )

    def _volume(self) -> Any:
        opts = f"size={self.limits.disk_mb}m,uid=65534,gid=65534"
        return self.client.volumes.create(
            driver="local", driver_opts={"type": "tmpfs", "device": "tmpfs", "o": opts}, labels={"skill-be": "agent"}
        )

    def _fresh(self, with_egress: bool) -> tuple[Any, Any]:
        volume = self._volume()
        box = None
        try:
            box = self._create(volume, with_egress)
            box.start()
        except BaseException:
            self._drop(box, volume)
            raise
        return box, volume

    def _started(self, with_egress: bool) -> tuple[Any, Any]:
        """A started, empty container: the spare started during the previous run when there is one
        (container start is most of skill-be's own time per run), and a new spare for the next."""
        from concurrent.futures import ThreadPoolExecutor

        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(2, thread_name_prefix="skill-be-spare")
            spare = self._spares.pop(with_egress, None)
            self._spares[with_egress] = self._pool.submit(self._fresh, with_egress)
        if spare is not None:
            try:
                got: tuple[Any, Any] = spare.result()
                return got
            except Exception:  # the spare failed to start: start one now, which says why
                pass
        return self._fresh(with_egress)

    def _box(self, files: Mapping[str, bytes], with_egress: bool) -> tuple[Any, Any]:
        box, volume = self._started(with_egress)
        with self._lock:
            self._active.add(box)
        try:
            # put_archive only after start(): before it, the tmpfs volume is not mounted yet.
            body = {**files, ".skill-be/box_main.py": BOX_MAIN.read_bytes(), ".skill-be/out/.keep": b""}
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
        removes them), remove the spares and wait for every removal."""
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

    def run_agent(self, launch: Launch, workspace: Files, plan: EgressPlan, timeout: float) -> AgentRun:
        """Write the launch's files and the workspace, run the CLI until it ends or `timeout`, copy the
        workspace and the CLI's output back. Every failure is an `error` of this run, never raised."""
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
            box, volume = self._box(files, with_egress=True)
            spec = {
                "mode": "agent",
                "argv": list(launch.argv),
                "cwd": str(launch.cwd),
                "env": {**launch.env, **plan.env()},
                "timeout": timeout,
                "relays": plan.relays(),
                "out": str(OUT),
            }
            _exec(box, spec, timeout)
            out = from_tar(box.get_archive(str(OUT))[0], "out", MAX_STDOUT)
            run.stdout = out.get("stdout", b"").decode("utf-8", errors="replace")
            run.stderr = out.get("stderr", b"").decode("utf-8", errors="replace")
            run.exit = out.get("exit", b"").decode() or "killed"
            try:
                run.workspace = from_tar(box.get_archive(str(WORKSPACE))[0], "ws", MAX_WORKSPACE)
            except WorkspaceError as e:
                run.error = str(e)
            box.reload()
            if box.attrs.get("State", {}).get("OOMKilled"):
                run.killed.append("out of memory")
        except Exception as e:  # Docker or the copy failed: an error of this output
            run.error = (
                run.error or f"the agent container failed: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
            )
        finally:
            self._drop(box, volume)
        return run

    def run_checks(
        self, workspace: Files, check_files: Files, checks: Sequence[tuple[str, str]], timeout: float
    ) -> tuple[list[CheckResult], str | None]:
        """Each check command in a fresh container (no network, no key), in the finished workspace."""
        box = volume = None
        try:
            files = {
                **{f"ws/{k}": v for k, v in workspace.items()},
                **{f"checks/{k}": v for k, v in check_files.items()},
            }
            files["home/.keep"] = b""
            box, volume = self._box(files, with_egress=False)
            spec = {
                "mode": "checks",
                "checks": [list(c) for c in checks],
                "cwd": str(WORKSPACE),
                "env": {**CHECKS_ENV, "CHECKS": str(CHECKS)},
                "timeout": timeout,
                "out": str(OUT),
            }
            _exec(box, spec, timeout * max(1, len(checks)))
            out = from_tar(box.get_archive(str(OUT))[0], "out", MAX_STDOUT)
            rows = json.loads(out.get("checks.json", b"[]"))
            return [CheckResult(r["name"], str(r["exit"]), r["output"], int(r.get("cut", 0))) for r in rows], None
        except Exception as e:  # the checks container failed: an error of this output
            return [], f"the checks container failed: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
        finally:
            self._drop(box, volume)


GRACE_SECONDS = 30.0


def _exec(box: Any, spec: Mapping[str, object], timeout: float) -> None:
    """box_main.py under the container's user; it keeps the time limit itself, and should it not
    return (killed, stuck), the container is killed a grace period later, which ends the exec."""
    import threading

    guard = threading.Timer(timeout + GRACE_SECONDS, box.kill)
    guard.daemon = True
    guard.start()
    try:
        box.exec_run(["python3", str(WORK / ".skill-be/box_main.py"), json.dumps(spec)], user=USER)
    finally:
        guard.cancel()


class DockerSandbox:
    """Agent runs in containers behind the egress proxy; checks in fresh containers (engine/agent.py's
    AgentSandbox)."""

    def __init__(self, boxes: DockerBoxes, plan: EgressPlan) -> None:
        self.boxes = boxes
        self.plan = plan

    def run_agent(self, driver: AgentDriver, setup: AgentSetup, files: Files) -> AgentRun:
        inside = replace(setup, endpoint=self.plan.rewrite(setup.endpoint))
        try:
            launch = driver.prepare(inside, WORKSPACE, HOME)
        except Exception as e:  # a driver that cannot build its launch: an error of this output
            return AgentRun(error=f"the {driver.name} launch could not be built ({e})")
        return self.boxes.run_agent(launch, files, self.plan, setup.limits.timeout_seconds)

    def run_checks(
        self, workspace: Files, check_files: Files, checks: Sequence[tuple[str, str]], timeout: float
    ) -> tuple[list[CheckResult], str | None]:
        return self.boxes.run_checks(workspace, check_files, checks, timeout)

    def close(self) -> None:
        self.boxes.close()

    def describe(self) -> dict[str, object]:
        lim = self.boxes.limits
        return {
            "sandbox": "docker",
            "image": self.boxes.image,
            "user": USER,
            "network": "none; egress proxy to "
            + ", ".join([*self.plan.allow, *(f"{t.host}:{t.port}" for t in self.plan.tunnels)]),
            "memoryMb": lim.memory_mb,
            "cpus": lim.cpus,
            "pids": lim.pids,
            "diskMb": lim.disk_mb,
        }


def open_docker(
    image: str, endpoints: Sequence[ModelEndpoint], limits: BoxLimits = BoxLimits()
) -> tuple[DockerSandbox, EgressProxy]:
    """The sandbox of one run and its egress proxy (started); close the proxy when the run ends.
    DockerMissing when there is no engine."""
    from skill_be.agents.egress import plan_for

    client = docker_client()
    try:
        client.images.get(image)
    except Exception:
        raise DockerMissing(
            f"agent scenarios run in skill-be's image {image}, which Docker does not have; build it "
            f"(docker build -t {image} .) or set agent.sandbox: process"
        ) from None
    plan = plan_for(endpoints)
    proxy = EgressProxy(client, image, plan)
    proxy.start()
    return DockerSandbox(DockerBoxes(client, image, limits, proxy), plan), proxy
