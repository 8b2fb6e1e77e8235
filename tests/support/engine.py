"""In-process engine fixtures: skills built as data and scripted adapters, so tests drive
`Engine.run_skill` directly (no CLI, no files, no child process)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from skill_be.adapters.base import Answer, CallContext
from skill_be.engine.arms import DEFAULT_ARMS, Arm
from skill_be.engine.calls import LIVE, CallHook, Model
from skill_be.engine.limiter import PriorityLimiter
from skill_be.engine.runner import Engine, Settings, UnitFilter, every_unit
from skill_be.project.config import GateConfig
from skill_be.project.evals import EvalFile, Scenario
from skill_be.project.loader import Skill
from skill_be.project.skills import SkillDoc

SKILL_TEXT = "Use allocate(amount, ratios) for money splits."
TEMPLATE = "{{skill}}\n\n{{task}}"

Reply = Callable[[str, int], str | Exception]  # (prompt, the adapter's call number, 1-based) -> reply


def scenario(sid: str, criteria: Sequence[str] = ("Uses allocate",), critical: bool = False) -> Scenario:
    return Scenario(sid, f"Task {sid}: split 10 in three.", critical, tuple(criteria), None)


def skill(name: str = "money", scenarios: Sequence[Scenario] = (), text: str = SKILL_TEXT) -> Skill:
    folder = Path("/nonexistent") / name  # never read: the engine gets data
    doc = SkillDoc(text, name, None, None, ())
    evals = EvalFile(folder / "evals.json", tuple(scenarios) or (scenario("split"),))
    return Skill(name, folder, folder / "SKILL.md", doc, folder / "evals.json", evals, {}, None)


class Scripted:
    """An adapter whose reply is a function of the prompt and its call count; an Exception is raised."""

    def __init__(self, reply: Reply, described: Mapping[str, object] | None = None) -> None:
        self.reply = reply
        self.calls: list[str] = []
        self.described = dict(described or {"adapter": "scripted"})

    async def preflight(self) -> None:
        return None

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        self.calls.append(prompt)
        out = self.reply(prompt, len(self.calls))
        if isinstance(out, BaseException):
            raise out
        return Answer(out)

    def describe(self) -> Mapping[str, object]:
        return self.described


def verdicts(*yes: bool) -> str:
    """A grader reply: reasons, then the VERDICTS block."""
    lines = "\n".join(f"{i}: {'YES' if v else 'NO'}" for i, v in enumerate(yes, 1))
    return f"Looked at it.\nVERDICTS:\n{lines}\n"


def settings(
    reps: int = 1,
    gradings: int = 1,
    timeout: int = 30,
    gate: GateConfig | None = None,
    top_up: bool = False,
    evidence: str | None = None,
) -> Settings:
    return Settings(reps, gradings, timeout, Path("."), TEMPLATE, None, gate or GateConfig(), top_up, evidence=evidence)


def quoted(*pairs: tuple[bool, str]) -> str:
    """A grader reply in the evidence format: each criterion's verdict with its quote."""
    lines = "\n".join(f'{i}: {"YES" if v else "NO"} "{q}"' for i, (v, q) in enumerate(pairs, 1))
    return f"Looked at it.\nVERDICTS:\n{lines}\n"


def engine(
    models: Sequence[Model],
    grader: Model | None,
    s: Settings,
    *,
    hook: CallHook = LIVE,
    units: UnitFilter = every_unit,
    arms: Sequence[Arm] = DEFAULT_ARMS,
    concurrency: int = 4,
) -> Engine:
    return Engine(models, grader, PriorityLimiter(concurrency), s, hook=hook, units=units, arms=arms)
