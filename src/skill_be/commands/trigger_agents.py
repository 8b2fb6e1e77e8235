"""Trigger evals on the agent CLIs (claude-cli, pi-cli, opencode-cli), through agent mode's drivers
(src/skill_be/agents/): the skill and its neighbours installed where the CLI discovers them, an
empty workspace, a small turn limit (`triggerTurns`), and the choice read from the transcript: the
first offered skill loaded within the first `triggerTurns` turns (agents often look around first).

The launch runs on this machine in a fresh temporary folder (workspace and private home); agent
mode's sandbox runner can take its place through `Launcher` once it exists.
"""

from __future__ import annotations

import importlib
import os
import re
import tempfile
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path, PurePosixPath

from skill_be.adapters.base import AdapterStartError, CallContext, CallError, Usage
from skill_be.adapters.choice import Choice, Chooser, Offered
from skill_be.adapters.credentials import api_key
from skill_be.agents.base import AgentDriver, AgentLimits, AgentSetup, Launch, ModelEndpoint, SkillToInstall
from skill_be.proc import resolve_executable, run_process, tail
from skill_be.project.config import AdapterEntry

# adapter name -> the module of its agent-mode driver (`create() -> AgentDriver`, or `DRIVER`)
DRIVERS: Mapping[str, str] = {
    "claude-cli": "skill_be.agents.claude",
    "pi-cli": "skill_be.agents.pi",
    "opencode-cli": "skill_be.agents.opencode",
}
PROVIDERS = {"claude-cli": "anthropic"}
# A trigger call needs no write, edit or shell: the agent may look around (read) and load a skill
# (claude's Skill and opencode's skill tools are always on), so no skill's scripts run on this machine.
TOOLS: Mapping[str, tuple[str, ...]] = {
    "claude-cli": ("Read",),
    "pi-cli": ("read",),
    "opencode-cli": ("read",),
}  # the others name theirs in the entry (`provider`)

Launcher = Callable[[Launch, Path, float], Awaitable[str]]  # (launch, its folder, seconds) -> stdout


BINS = {"claude-cli": "claude", "pi-cli": "pi", "opencode-cli": "opencode"}


def load_driver(adapter: str, modules: Mapping[str, str] = DRIVERS, **options: str) -> AgentDriver:
    """The driver of an agent CLI adapter; `options` (bin, path) go to its `create` when it takes them."""
    try:
        module = importlib.import_module(modules[adapter])
    except ImportError:
        raise AdapterStartError(
            f"trigger evals on {adapter} run the CLI in agent mode, and this build has no agent-mode driver "
            f"({modules[adapter]})"
        ) from None
    create = getattr(module, "create", None)
    if not callable(create):
        found: AgentDriver = module.DRIVER
        return found
    try:
        driver: AgentDriver = create(**options)
    except TypeError:  # a driver whose create takes no options
        driver = create()
    return driver


def with_description(skill_md: str, description: str) -> str:
    """SKILL.md with its front matter's description replaced (a quoted one-line value)."""
    lines = skill_md.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return skill_md
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        return skill_md
    quoted = '"' + description.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'
    head = lines[1:end]
    i = next((k for k, line in enumerate(head) if re.match(r"description\s*:", line)), None)
    if i is None:
        head.append(f"description: {quoted}")
    else:
        j = i + 1
        while j < len(head) and (head[j].startswith((" ", "\t")) or not head[j].strip()):
            j += 1  # the continuation lines of a folded or multi-line value
        head[i:j] = [f"description: {quoted}"]
    return "\n".join([lines[0], *head, *lines[end:]])


def skill_files(folder: Path, description: str | None = None) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and not p.is_symlink():
            files[p.relative_to(folder).as_posix()] = p.read_bytes()
    if description is not None and "SKILL.md" in files:
        files["SKILL.md"] = with_description(files["SKILL.md"].decode("utf-8"), description).encode("utf-8")
    return files


async def host_launch(launch: Launch, folder: Path, seconds: float) -> str:
    """Write the launch's files (only inside `folder`) and run it there; its stdout."""
    for path, data in launch.files.items():
        target = Path(str(path))
        if not target.resolve().is_relative_to(folder.resolve()):
            raise CallError(f"the driver asked to write {path}, outside the trigger call's folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    exe = resolve_executable(launch.argv[0], folder, launch.env.get("PATH"))
    if exe is None:
        raise AdapterStartError(f'cannot start "{launch.argv[0]}" for a trigger call: not found on PATH')
    result = await run_process([exe, *launch.argv[1:]], cwd=Path(str(launch.cwd)), env=dict(launch.env))
    if result.returncode != 0 and not result.stdout.strip():
        raise CallError(f"exit code {result.returncode}: {tail(result.stderr)}")
    return result.stdout.decode("utf-8", errors="replace")


async def _git_init(workspace: Path) -> None:
    """A git repository stops Claude Code from reading project skills of the folders above the
    workspace (agents/claude.py); without git the workspace stays a plain folder."""
    git = resolve_executable("git", workspace, os.environ.get("PATH"))
    if git is not None:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(workspace), "GIT_CONFIG_NOSYSTEM": "1"}
        await run_process([git, "init", "-q"], cwd=workspace, env=env)


class AgentChooser:
    """Chooser for an agent CLI: one agent run per query and rep."""

    def __init__(
        self,
        driver: AgentDriver,
        endpoint: ModelEndpoint,
        turns: int,
        files: Mapping[str, Mapping[str, bytes]],  # offered skill name -> its files
        launcher: Launcher = host_launch,
        tools: Sequence[str] | None = None,
    ) -> None:
        self.tools = tools
        self.driver = driver
        self.endpoint = endpoint
        self.turns = turns
        self.files = files
        self.launcher = launcher

    async def choose(self, query: str, offered: Sequence[Offered], ctx: CallContext) -> Choice:
        skills = [SkillToInstall(o.name, o.description, self.files.get(o.name, {})) for o in offered]
        limits = AgentLimits(max_turns=self.turns, timeout_seconds=ctx.timeout_seconds)
        setup = AgentSetup(prompt=query, endpoint=self.endpoint, skills=skills, tools=self.tools, limits=limits)
        with tempfile.TemporaryDirectory(prefix="skill-be-trigger-") as tmp:
            folder = Path(tmp)
            (folder / "workspace").mkdir()
            (folder / "home").mkdir()
            await _git_init(folder / "workspace")
            launch = self.driver.prepare(setup, PurePosixPath(tmp, "workspace"), PurePosixPath(tmp, "home"))
            stdout = await self.launcher(launch, folder, ctx.timeout_seconds)
        t = self.driver.parse(stdout, setup)
        names = {o.name for o in offered}
        loaded = sorted((turn, name) for name, turn in t.skills_loaded.items() if name in names and turn <= self.turns)
        if not loaded and t.error and t.turns == 0:
            raise CallError(f"the agent made no turn: {t.error}")
        chosen = loaded[0][1] if loaded else None
        reply = f"loaded {chosen} on turn {loaded[0][0]}" if loaded else f"no skill loaded in {t.turns} turns"
        return Choice(chosen, Usage(t.input_tokens, t.output_tokens), reply)


def agent_choosers(
    entries: Sequence[tuple[str, AdapterEntry]],
    environ: Mapping[str, str],
    turns: int,
    files: Mapping[str, Mapping[str, bytes]],
    modules: Mapping[str, str] = DRIVERS,
    launcher: Launcher = host_launch,
    warn: Callable[[str], None] = lambda _: None,
) -> dict[str, Chooser]:
    """A chooser for each (label, entry) whose adapter is an agent CLI. Without its driver in this
    build, the model is asked with the documented prompt block instead, and a warning says so."""
    out: dict[str, Chooser] = {}
    for label, e in entries:
        if e.adapter not in modules:
            continue
        path = environ.get("PATH", "")
        name = str(e.settings.get("bin") or BINS.get(e.adapter, e.adapter))
        exe = resolve_executable(name, Path.cwd(), path) or name
        try:
            driver = load_driver(e.adapter, modules, bin=exe, path=path)
        except AdapterStartError as err:
            warn(
                f"warning: {label}: {err}; its trigger calls ask with the prompt block instead (docs/trigger-evals.md)"
            )
            continue
        provider = str(e.settings.get("provider") or PROVIDERS.get(e.adapter, "anthropic"))
        base = e.settings.get("baseUrl")
        endpoint = ModelEndpoint(e.id, provider, str(base) if base else None, api_key(e, environ))
        out[label] = AgentChooser(driver, endpoint, turns, files, launcher, TOOLS.get(e.adapter))
    return out
