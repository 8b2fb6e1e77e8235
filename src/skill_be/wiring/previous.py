"""`run --against REF` (or `compare.against: REF` in the config): the previous version of each skill
as a third arm, `previous`, and what the run says about it.

Before any call: the skills as they were at REF are read with git into a temporary folder
(results/previous.py) and sorted into three kinds. A skill unchanged since REF (the same fingerprint)
takes its with-skill answers as its previous arm's: no model call. A changed skill runs the previous
arm, with the old SKILL.md (and, for agent scenarios, the old folder), on the scenarios whose prompt,
criteria, output contract and tests are as they were; the others are "not comparable". A skill that
did not exist at REF has no previous arm, and says so.

After each skill: its lines with skill against previous (results/previous.py `previous_change`), each with its
interval; `gate.previous` on them (block, warn or off, the same rule the action applies against the
base branch); a report section and summary.json's `previous` key.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from skill_be.engine.arms import DEFAULT_ARMS, Arm
from skill_be.engine.changes import Comparison, SkillChange
from skill_be.engine.gate import rule_outcomes, with_rules
from skill_be.engine.previous import Then, previous_arm
from skill_be.engine.prompts import PREVIOUS
from skill_be.engine.runner import SkillRun
from skill_be.errors import SkillBeError, UsageError
from skill_be.paths import shown
from skill_be.project.loader import Project
from skill_be.reports.previous import previous_json, previous_section
from skill_be.results.git_files import GitError
from skill_be.results.previous import ABSENT, UNCHANGED, PreviousSkills, comparable, materialise, previous_change
from skill_be.wiring.run_files import Extras


class PreviousVersion:
    """The previous arm of one run: built before the first call, consulted after each skill."""

    def __init__(self, project: Project, previous: PreviousSkills) -> None:
        self.project = project
        self.previous = previous
        self.short = previous.commit[:7]
        self.label = f"{previous.ref} ({self.short})" if not previous.commit.startswith(previous.ref) else self.short
        self.then: dict[str, Then] = {}
        for s in project.skills:
            p = previous.skills[s.name]
            if p.status == ABSENT:
                self.then[s.name] = Then(None, False)
            elif p.status == UNCHANGED:
                self.then[s.name] = Then(p.skill, True)
            else:
                self.then[s.name] = Then(p.skill, False, comparable(s, p.skill))
        self.changes: dict[str, SkillChange] = {}

    @property
    def arms(self) -> tuple[Arm, ...]:
        return (*DEFAULT_ARMS, previous_arm(self.then))

    def plan_lines(self) -> list[str]:
        """What the previous arm will do, said before the first call."""
        out = [f"Previous version: {self.label} (run --against)."]
        for s in self.project.skills:
            t = self.then[s.name]
            if t.skill is None:
                out.append(f"  {s.name}: did not exist at {self.short}: no previous arm")
            elif t.unchanged:
                out.append(f"  {s.name}: unchanged since {self.short}: its with-skill answers are the previous arm's")
            else:
                n, total = len(t.comparable), len(s.evals.scenarios)
                out.append(f"  {s.name}: changed since {self.short}: the previous arm runs {n} of {total} scenario(s)")
        return out

    def judge(self, run: SkillRun) -> SkillRun:
        """The skill's comparison with its previous version, and `gate.previous` on it."""
        name = run.skill.name
        t = self.then[name]
        labels = list(dict.fromkeys(o.model for o in run.outputs))  # the models, in the run's order
        change = previous_change(run.skill, t.skill, run.lines, labels, run.outputs, run.gate.ready, self.short)
        self.changes[name] = change
        gate = self.project.config.gate
        # gate.minDelta was decided by the engine's gate on this run: only gate.previous here
        rule = rule_outcomes([name], {name: change}, {}, gate, f"the previous version ({self.short})")
        o = rule.get(name)
        if o is not None:
            run.gate = with_rules(run.gate, o.blocks, o.warnings)
        return run

    def extras(self, run: SkillRun) -> tuple[list[str], dict[str, object]]:
        change = self.changes.get(run.skill.name)
        if change is None:
            return [], {}
        t = self.then[run.skill.name]
        reused = sum(1 for o in run.outputs if o.arm == PREVIOUS and "reusedFrom" in o.meta)
        made = sum(1 for o in run.outputs if o.arm == PREVIOUS and "reusedFrom" not in o.meta)
        c = self.comparison()
        return previous_section(change, c, self.label, t.unchanged, made, reused), {
            "previous": previous_json(change, c, made, reused)
        }

    def comparison(self) -> Comparison:
        return Comparison(self.previous.commit, f"previous version at {self.label}", dict(self.changes))


@contextmanager
def previous_version(project: Project, ref: str | None) -> Iterator[PreviousVersion | None]:
    """The previous arm for `ref` (None: no previous arm), its temporary folder removed afterwards.
    UsageError (exit 2) when git cannot read REF."""
    if not ref:
        yield None
        return
    folder = Path(tempfile.mkdtemp(prefix="skill-be-previous-"))
    try:
        try:
            previous = materialise(project, ref, folder)
        except GitError as e:
            raise UsageError(f"{shown(project.config.path)}: run --against {ref}: {e}", "run") from None
        except SkillBeError as e:  # the skills at REF do not load under this branch's config
            raise UsageError(
                f"run --against {ref}: the skills as they were there could not be read ({e}); "
                "compare against a later commit, or run without --against",
                "run",
            ) from None
        yield PreviousVersion(project, previous)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def merged_extras(*parts: Extras) -> Extras:
    """Report lines and summary keys from several sources, in order."""

    def extras(run: SkillRun) -> tuple[list[str], dict[str, object]]:
        lines: list[str] = []
        keys: dict[str, object] = {}
        for part in parts:
            more, more_keys = part(run)
            lines += more
            keys.update(more_keys)
        return lines, keys

    return extras
