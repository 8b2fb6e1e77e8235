"""What an agent scenario starts from, read from the user's files before the engine runs: each agent
scenario's workspace (the `from` files and the inline ones, a git repository when it says so) and
its `checkFiles`, each skill folder an arm shows (this branch's, or the skill at another commit), and
the config's neighbours. The engine's agent seam gets these as data and reads no file itself."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from skill_be.agents.drivers.base import SkillToInstall
from skill_be.agents.skills import read_skill
from skill_be.agents.workspace import Files, WorkspaceError, check_files, git_repo, start_files
from skill_be.project.loader import Skill

Read = Files | str  # the files, or why they could not be read (an error of each output that needs them)


@dataclass(frozen=True)
class AgentInputs:
    workspaces: Mapping[tuple[str, str], Read] = field(default_factory=dict)  # (skill, scenario id) ->
    check_files: Mapping[tuple[str, str], Read] = field(default_factory=dict)  # (skill, scenario id) ->
    skills: Mapping[str, SkillToInstall] = field(default_factory=dict)  # a skill's folder (str) -> as installed
    neighbours: Sequence[tuple[str, SkillToInstall]] = ()  # (folder name, skill): in both arms

    def skill(self, skill: Skill) -> SkillToInstall:
        return self.skills[str(skill.dir)]


def skill_to_install(skill: Skill) -> SkillToInstall:
    """The whole skill folder, as a user installs it."""
    return read_skill(skill.dir, skill.doc.name, skill.doc.description or "")


def read_inputs(
    skills: Sequence[Skill], shown: Iterable[Skill], neighbours: Sequence[tuple[str, SkillToInstall]] = ()
) -> AgentInputs:
    """The inputs of `skills`' agent scenarios; `shown` are the skill versions the arms show."""
    workspaces: dict[tuple[str, str], Read] = {}
    checks: dict[tuple[str, str], Read] = {}
    for skill in skills:
        for sc in skill.evals.scenarios:
            if sc.agent is None:
                continue
            key = (skill.name, sc.id)
            try:
                files = start_files(sc.agent)
                workspaces[key] = git_repo(files) if sc.agent.git else files
            except (OSError, WorkspaceError) as e:
                workspaces[key] = f"the workspace could not be built ({e})"
            try:
                checks[key] = check_files(sc.agent)
            except OSError as e:
                checks[key] = f"the check files could not be read ({e})"
    installs = {str(s.dir): skill_to_install(s) for s in shown}
    return AgentInputs(workspaces, checks, installs, tuple(neighbours))
