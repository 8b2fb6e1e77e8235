"""`agent.sandbox: process`: the agent runs on this machine, as the user who runs skill-be, in a
fresh temporary folder (workspace and a private home), with only the launch's environment. There is
no container: the agent's commands can read what that user can read, reach the network, and see
other processes. Checks run the same way, without the key. Chosen by the user, never a fallback."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from skill_be.agents.base import AgentDriver, AgentSetup
from skill_be.agents.container import CHECKS_ENV, AgentRun, CheckResult
from skill_be.agents.workspace import Files, WorkspaceError, read_files, write_files
from skill_be.proc import StartFailed, run_sync

WARNING = (
    "agent.sandbox: process: the agent runs on this machine as you, with your network and your files "
    "in reach; only its environment and working folder are its own"
)
OUTPUT_CAP = 32 << 20
# Where the CLIs look for project skills in the workspace's parents (when it is not a git repository).
SKILL_FOLDERS = (".claude/skills", ".agents/skills", ".pi/skills", ".opencode/skills")


def parent_skills(folder: Path) -> list[str]:
    """Skill folders in the parents of `folder`, which a CLI would offer in both arms."""
    return [str(p / s) for p in folder.parents for s in SKILL_FOLDERS if (p / s).is_dir()]


class ProcessSandbox:
    def run_agent(self, driver: AgentDriver, setup: AgentSetup, files: Files) -> AgentRun:
        run = AgentRun()
        with tempfile.TemporaryDirectory(prefix="skill-be-agent-") as tmp:
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
            except Exception as e:  # a driver that cannot build its launch: an error of this output
                return AgentRun(error=f"the {driver.name} launch could not be built ({e})")
            for path, content in launch.files.items():
                p = Path(path)
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_bytes(content)
                if p.is_relative_to(ws):
                    run.installed[p.relative_to(ws).as_posix()] = content
            try:
                done = run_sync(launch.argv, cwd=Path(launch.cwd), env=launch.env,
                                timeout=setup.limits.timeout_seconds, max_output=OUTPUT_CAP)  # fmt: skip
            except StartFailed as e:
                return AgentRun(error=str(e))
            run.stdout = done.stdout.decode("utf-8", errors="replace")
            run.stderr = done.stderr.decode("utf-8", errors="replace")
            run.exit = "timeout" if done.timed_out else str(done.returncode)
            try:
                run.workspace = read_files(ws)
            except WorkspaceError as e:
                run.error = str(e)
        return run

    def run_checks(
        self, workspace: Files, check_files: Files, checks: Sequence[tuple[str, str]], timeout: float
    ) -> tuple[list[CheckResult], str | None]:
        rows: list[CheckResult] = []
        with tempfile.TemporaryDirectory(prefix="skill-be-checks-") as tmp:
            root = Path(tmp)
            for sub in ("ws", "checks", "home"):
                (root / sub).mkdir()
            write_files(root / "ws", workspace)
            write_files(root / "checks", check_files)
            # The user's PATH: on this machine the checks use the user's tools (npm, pytest, ...).
            path = os.environ.get("PATH", CHECKS_ENV["PATH"])
            env = {"PATH": path, "HOME": str(root / "home"), "CHECKS": str(root / "checks")}
            for name, command in checks:
                try:
                    done = run_sync(["sh", "-c", command], cwd=root / "ws", env=env, timeout=timeout)
                except StartFailed as e:
                    return rows, str(e)
                out = (done.stdout + done.stderr).decode("utf-8", errors="replace")
                rows.append(CheckResult(name, "timeout" if done.timed_out else str(done.returncode), out[-16384:]))
        return rows, None

    def describe(self) -> dict[str, object]:
        return {"sandbox": "process", "note": WARNING}
