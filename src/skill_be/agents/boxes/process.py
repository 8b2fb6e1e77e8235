"""The `process` agent box (`agent.sandbox: process`): the agent runs on this machine, as the user who
runs skill-be, in a fresh temporary folder (workspace and a private home), with only the launch's
environment. There is no container: the agent's commands can read what that user can read, reach
the network, and see other processes. Checks run the same way, without the key. Chosen by the
user, never a fallback. It is also the one way skill-be launches an agent CLI on this machine (the
trigger calls on agent CLIs run through it): a run is refused when a parent of its folder holds a
skill folder, which a CLI would offer, and a launch may write only inside its own folder.

The record is the operating system's: the CLI's exit status from waiting for it, its output read
until that exit and no further (a process it left holding the pipes adds nothing). Every process
that carries the run's mark in its environment (`SKILL_BE_RUN`) is killed before the workspace is
read, and after each check; a process that drops the mark escapes, as anything run as you may.
Tests switch protections off (`BoxSettings.weaken`): `cut` (the output read until every holder of
the pipes lets go), `kill` (what a run or a check leaves lives on), `argv` (the environment on the
command line of a shell that stays for the run)."""

from __future__ import annotations

import os
import secrets
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePosixPath

from skill_be.agents.boxes import AgentRun, BoxSettings, CheckResult
from skill_be.agents.drivers.base import AgentDriver, AgentSetup, Launch
from skill_be.agents.workspace import Files, WorkspaceError, read_files, write_files
from skill_be.proc import ProcessResult, StartFailed, kill_tagged, resolve_executable, run_sync, run_to_exit

WARNING = (
    "agent.sandbox: process: the agent runs on this machine as you, with your network and your files "
    "in reach; only its environment and working folder are its own"
)
OUTPUT_CAP = 32 << 20
CHECK_OUTPUT = 16384  # characters of a check's output kept (its end)
CHECKS_PATH = "/usr/local/bin:/usr/bin:/bin"
MARK = "SKILL_BE_RUN"  # in the environment of every run and check: what is killed after it
# Where the CLIs look for project skills in the workspace's parents (when it is not a git repository).
SKILL_FOLDERS = (".claude/skills", ".agents/skills", ".pi/skills", ".opencode/skills")


def parent_skills(folder: Path) -> list[str]:
    """Skill folders in the parents of `folder`, which a CLI would offer in both arms."""
    return [str(p / s) for p in folder.parents for s in SKILL_FOLDERS if (p / s).is_dir()]


def write_launch(launch: Launch, root: Path, ws: Path) -> Files:
    """The launch's files, each only inside `root` (WorkspaceError for one outside); those inside the
    workspace are returned (installed, not the agent's work)."""
    installed: Files = {}
    for path, content in launch.files.items():
        p = Path(str(path))
        if not p.resolve().is_relative_to(root.resolve()):
            raise WorkspaceError(f"the driver asked to write {path}, outside the run's folder")
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content)
        if p.is_relative_to(ws):
            installed[p.relative_to(ws).as_posix()] = content
    return installed


class ProcessBox:
    """Agent runs and checks on this machine (AgentBox)."""

    name = "process"

    def __init__(self, settings: BoxSettings | None = None) -> None:
        self.settings = settings or BoxSettings()

    @property
    def _leftovers_live(self) -> bool:
        """With "kill" switched off (a control only) a leftover may still be writing in a folder as it is removed."""
        return "kill" in self.settings.weaken

    def driver_options(self, executable: Callable[[], str]) -> dict[str, str]:
        return {"bin": executable(), "path": os.environ.get("PATH", "")}  # the adapter's CLI and the user's PATH

    def run_agent(self, driver: AgentDriver, setup: AgentSetup, files: Files) -> AgentRun:
        with tempfile.TemporaryDirectory(prefix="skill-be-agent-", ignore_cleanup_errors=self._leftovers_live) as tmp:
            root = Path(tmp)
            ws, home = root / "ws", root / "home"
            ws.mkdir()
            home.mkdir()
            found = parent_skills(ws)
            if found:  # the arms would no longer differ only by the skill under test
                return AgentRun(error=f"skills in a parent of the workspace would be offered: {', '.join(found)}")
            write_files(ws, files)
            try:
                launch = driver.prepare(setup, PurePosixPath(ws), PurePosixPath(home))
                installed = write_launch(launch, root, ws)
            except Exception as e:  # a driver that cannot build its launch: an error of this output
                return AgentRun(error=f"the {driver.name} launch could not be built ({e})")
            run = self._run(launch, setup.limits.timeout_seconds)
            run.installed = installed
            if run.error is None:
                try:
                    run.workspace = read_files(ws)
                except WorkspaceError as e:
                    run.error = str(e)
        return run

    def _child(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float, cap: int) -> ProcessResult:
        """One child to its exit or time limit, and every process that carries its mark killed after."""
        weaken = self.settings.weaken
        mark = secrets.token_hex(8)
        env = {**env, MARK: mark}
        if "argv" in weaken:  # the old way, a control only: the environment on the command line
            argv = ["sh", "-c", 'env "$@"; exit $?', "sh", *(f"{k}={v}" for k, v in env.items()), *argv]

        def kill() -> None:
            if "kill" not in weaken:
                kill_tagged(MARK, mark)

        if "cut" in weaken:  # a control only: the output read until every holder of the pipes lets go
            done = run_sync(argv, cwd=cwd, env=env, timeout=timeout, max_output=cap)
            kill()
            return done
        return run_to_exit(argv, cwd=cwd, env=env, timeout=timeout, max_output=cap, stop=kill)

    def _run(self, launch: Launch, timeout: float) -> AgentRun:
        cwd = Path(str(launch.cwd))
        exe = resolve_executable(launch.argv[0], cwd, launch.env.get("PATH"))
        if exe is None:
            return AgentRun(error=f'cannot start "{launch.argv[0]}": not found on PATH', start_failed=True)
        deadline = time.monotonic() + timeout
        run = AgentRun()
        for argv in [launch.argv, *launch.then]:  # the follow-up turns (the same program) while each exits 0
            if run.exit not in ("", "0"):
                break
            left = deadline - time.monotonic()
            if left <= 0:
                run.exit = "timeout"
                break
            try:
                done = self._child([exe, *argv[1:]], cwd, launch.env, left, OUTPUT_CAP)
            except StartFailed as e:
                return AgentRun(error=str(e), start_failed=True)
            run.stdout += done.stdout.decode("utf-8", errors="replace")
            run.stderr += done.stderr.decode("utf-8", errors="replace")
            run.exit = "timeout" if done.timed_out else str(done.returncode)
        return run

    def run_checks(
        self, workspace: Files, check_files: Files, checks: Sequence[tuple[str, str]], timeout: float
    ) -> tuple[list[CheckResult], str | None]:
        rows: list[CheckResult] = []
        with tempfile.TemporaryDirectory(prefix="skill-be-checks-", ignore_cleanup_errors=self._leftovers_live) as tmp:
            root = Path(tmp)
            for sub in ("ws", "checks", "home"):
                (root / sub).mkdir()
            write_files(root / "ws", workspace)
            write_files(root / "checks", check_files)
            # The user's PATH: on this machine the checks use the user's tools (npm, pytest, ...).
            path = os.environ.get("PATH", CHECKS_PATH)
            env = {"PATH": path, "HOME": str(root / "home"), "CHECKS": str(root / "checks")}
            for name, command in checks:
                try:
                    done = self._child(["sh", "-c", command], root / "ws", env, timeout, OUTPUT_CAP)
                except StartFailed as e:
                    return rows, str(e)
                out = (done.stdout + done.stderr).decode("utf-8", errors="replace")
                exit_ = "timeout" if done.timed_out else str(done.returncode)
                rows.append(CheckResult(name, exit_, out[-CHECK_OUTPUT:]))
        return rows, None

    def describe(self) -> dict[str, object]:
        return {"sandbox": "process", "note": WARNING}

    def close(self) -> None:
        """Nothing outlives a run's temporary folder."""


def create(settings: BoxSettings, warn: Callable[[str], None]) -> ProcessBox:
    warn(WARNING)
    return ProcessBox(settings)
