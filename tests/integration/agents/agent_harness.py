"""Helpers for the agent-driver tests: the scripted agent model (tests/support/agent_model_server.py)
in a loopback-only network namespace, workspaces that are git repositories, and one function that
runs a driver's launch against the real CLI the way a caller on the host would."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from skill_be.agents.drivers import driver
from skill_be.agents.drivers.base import AgentLimits, AgentSetup, Launch, ModelEndpoint, SkillToInstall, Transcript

SUPPORT = Path(__file__).resolve().parents[2] / "support"
sys.path.insert(0, str(SUPPORT))
import agent_model_server as ams  # noqa: E402  (the folder is put on sys.path just above)

IN_NETNS = os.geteuid() == 0  # unshare -n needs root; as root every run is offline but for loopback
CLIS = ("claude", "pi", "opencode", "copilot")  # the tests every CLI with file tools and a skill tool or read passes
# codex has only its shell (test_codex_agent.py has its own run); gemini shows display text, not what
# the model saw, as a tool's result (test_gemini_agent.py has its own run)
ALL_CLIS = (*CLIS, "codex", "gemini")
KEY = "sk-agent-test-key"
SKILL = "tidy-logs"
# Which wire format each CLI is pointed at in these tests (pi, opencode, Copilot CLI and Codex speak the
# OpenAI one here; Gemini CLI only the Gemini API).
PROVIDER = {"claude": "anthropic", "pi": "openai", "opencode": "openai", "copilot": "openai", "codex": "openai",
            "gemini": "gemini"}  # fmt: skip


def cli_bin_dir() -> list[str]:
    found = {name: shutil.which(name) for name in ALL_CLIS}
    for name, path in found.items():
        if path is None:
            pytest.fail(f"{name} is not on PATH: run .ci/steps/30-agent-clis.sh and source .ci/env")
    return [os.path.dirname(p) for p in found.values() if p]


def child_path() -> str:
    """The PATH the CLIs get: their own folder, node's, git's and the system's (rg for opencode)."""
    extra = [os.path.dirname(shutil.which(n) or "/usr/bin/x") for n in ("node", "git", "rg")]
    return ":".join(dict.fromkeys([*cli_bin_dir(), *extra, "/usr/local/bin", "/usr/bin", "/bin"]))


@pytest.fixture(scope="session")
def agent_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    server = ams.AgentServer(str(tmp_path_factory.mktemp("agent-model")), netns=IN_NETNS)
    yield server
    server.stop()


def endpoint(server: Any, cli: str) -> ModelEndpoint:
    provider = PROVIDER[cli]
    url = server.base_url + ("/v1" if provider == "openai" else "")
    return ModelEndpoint(model="agent-mock", provider=provider, base_url=url, api_key=KEY)


def skill(name: str = SKILL, description: str = "Tidy a build log into a table. Use when the user has a build log.",
          body: str = "TIDY-BODY: put each step of the log on its own row.\n") -> SkillToInstall:  # fmt: skip
    text = f"---\nname: {name}\ndescription: {description}\n---\n{body}"
    return SkillToInstall(name=name, description=description, files={"SKILL.md": text.encode(),
                          "scripts/count.sh": b"#!/bin/sh\nwc -l \"$1\"\n"})  # fmt: skip


def git_workspace(path: Path, files: Mapping[str, str], git: bool = True) -> Path:
    path.mkdir(parents=True)
    for rel, text in files.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(text)
    if git:
        env = {"PATH": "/usr/bin:/bin", "HOME": str(path), "GIT_CONFIG_NOSYSTEM": "1"}
        for argv in (
            ["init", "-q"],
            ["add", "-A"],
            ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start", "--allow-empty"],
        ):
            subprocess.run(["git", *argv], cwd=path, env=env, check=True)
    return path


@dataclass
class Run:
    transcript: Transcript
    launch: Launch
    stdout: str
    stderr: str
    returncode: int
    seconds: float


def setup_for(server: Any, cli: str, prompt: str = "Here is my build log: step1 ok; step2 ok. Tidy it.",
              skills: Sequence[SkillToInstall] = (), max_turns: int = 10,
              tools: Sequence[str] | None = None, max_tokens: int | None = None) -> AgentSetup:  # fmt: skip
    limits = AgentLimits(max_turns=max_turns, timeout_seconds=90, max_tokens=max_tokens)
    return AgentSetup(prompt=prompt, endpoint=endpoint(server, cli), skills=tuple(skills), tools=tools, limits=limits)


def write_files(launch: Launch, allowed: Sequence[Path]) -> None:
    for path, data in launch.files.items():
        p = Path(str(path))
        assert any(p.is_relative_to(a) for a in allowed), f"{p} is outside the home and the workspace"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


def run_agent(server: Any, cli: str, setup: AgentSetup, workspace: Path, home: Path, timeout: float = 90,
              tamper: Callable[[list[str], dict[str, str]], None] | None = None) -> Run:  # fmt: skip
    """Prepare, write the launch's files, run the real CLI (in the server's namespace) and then each
    follow-up turn of the launch while the one before exited 0, as the boxes do; parse all of stdout."""
    home.mkdir(parents=True, exist_ok=True)
    d = driver(cli, path=child_path())
    launch = d.prepare(setup, PurePosixPath(workspace), PurePosixPath(home))
    write_files(launch, [home, workspace])
    env = dict(launch.env)
    turns = [list(launch.argv), *map(list, launch.then)]
    if tamper is not None:  # the controls switch a protection off here
        for argv in turns:
            tamper(argv, env)
    start = time.monotonic()
    out, err, code = "", "", 0
    for argv in turns:
        if code != 0:
            break
        argv = [shutil.which(argv[0], path=env["PATH"]) or argv[0], *argv[1:]]
        if IN_NETNS:
            argv = ["/usr/bin/nsenter", "--target", str(server.proc.pid), "--net", "--", *argv]
        o, e, code = _run_one(cli, argv, launch, env, timeout - (time.monotonic() - start))
        out, err = out + o, err + e
    return Run(d.parse(out, setup), launch, out, err, code, time.monotonic() - start)


def _run_one(cli: str, argv: list[str], launch: Launch, env: dict[str, str], timeout: float) -> tuple[str, str, int]:
    proc = subprocess.Popen(argv, cwd=str(launch.cwd), env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
    try:
        out, err = proc.communicate(timeout=max(timeout, 1))
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{cli} did not finish within {timeout} s: {err.decode()[-2000:]}")
    return out.decode("utf-8", errors="replace"), err.decode("utf-8", "replace"), proc.returncode


def bodies(server: Any) -> str:
    return "\n".join(r["body"] for r in server.model_calls())


PARENT_MARKERS = {
    "CLAUDE.md": "MARKER-parent-claude-md",
    "AGENTS.md": "MARKER-parent-agents-md",
    ".claude/skills/parent-claude/SKILL.md": "MARKER-parent-claude-skill",
    ".agents/skills/parent-agents/SKILL.md": "MARKER-parent-agents-skill",
    ".pi/skills/parent-pi/SKILL.md": "MARKER-parent-pi-skill",
    ".opencode/skills/parent-opencode/SKILL.md": "MARKER-parent-opencode-skill",
    "GEMINI.md": "MARKER-parent-gemini-md",
    ".gemini/skills/parent-gemini/SKILL.md": "MARKER-parent-gemini-skill",
}


def plant_parent(parent: Path) -> None:
    """Context files and skills in the folder above the workspace, each with a marker."""
    for rel, marker in PARENT_MARKERS.items():
        path = parent / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith("SKILL.md"):
            name = path.parent.name
            path.write_text(f"---\nname: {name}\ndescription: {marker} use it always\n---\n{marker}\n")
        else:
            path.write_text(f"Always say {marker}.\n")
