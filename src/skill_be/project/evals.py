"""Eval files: `<evals>/<skill>.json`, the scenarios of one skill."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from skill_be.paths import shown
from skill_be.project.assertions import Assertion, Budget, assertion_from, budget_from
from skill_be.project.files import read_text
from skill_be.project.jsonfile import load_json
from skill_be.project.places import Places
from skill_be.project.rules import JS_RESERVED, MAX_DESCRIPTION, valid_file_name

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = [
    "JS_RESERVED",
    "MAX_DESCRIPTION",
    "EvalFile",
    "Scenario",
    "eval_from",
    "load_eval",
    "load_evals_json",
    "valid_file_name",
]


class Scenario(NamedTuple):
    id: str
    prompt: str
    critical: bool
    criteria: tuple[str, ...]
    output: tuple[tuple[str, str], ...] | None  # (export name, description) in the file's order
    assertions: tuple[Assertion, ...] = ()  # graded without a model
    budget: Budget | None = None  # the scenario's limits, the skill's filled in
    judge_context: str | None = None  # what the grader sees beside the answer (evals.json expected_output)

    @property
    def has_tests(self) -> bool:
        return self.output is not None


class EvalFile(NamedTuple):
    path: Path
    scenarios: tuple[Scenario, ...]
    places: Places | None = None  # where each key is in the file, for errors found after loading

    def at(self, scenario_id: str, key: str = "") -> str:
        """`evals/x.json:9:17`: the file, the line and column of a scenario (or one of its keys)."""
        i = next((n for n, s in enumerate(self.scenarios) if s.id == scenario_id), None)
        loc: list[str | int] = ["scenarios"] if i is None else ["scenarios", i, *([key] if key else [])]
        place = self.places.find(loc) if self.places is not None else None
        return f"{shown(self.path)}:{place[0]}:{place[1]}" if place else shown(self.path)

    def scenario(self, scenario_id: str) -> Scenario | None:
        return next((s for s in self.scenarios if s.id == scenario_id), None)


def load_eval(path: Path) -> EvalFile:
    name = shown(path)
    text = read_text(path, what="eval file")
    return eval_from(load_json(text, name), path, Places(text, "json"))


def load_evals_json(path: Path, skill_dir: Path) -> EvalFile:
    """An agentskills.io `evals/evals.json`, through the documented mapping (project/agentskills.py)."""
    import json

    from skill_be.project.agentskills import converted

    data = converted(path, skill_dir)
    return eval_from(data, path, Places(json.dumps(data, indent=2), "json"))


def eval_from(data: object, path: Path, places: Places) -> EvalFile:
    """The eval file's records from its data, validated by the model (errors name `path`)."""
    name = shown(path)
    from skill_be.project.validation import checked, path_text

    def label(loc: Sequence[str | int], key: str | None) -> str:
        """`scenarios[0] (id "split").criteria[1]`: a scenario with a valid id is named by it, except in
        errors about the id itself or about the scenario's keys."""
        text = path_text(loc)
        if len(loc) < 2 or loc[0] != "scenarios" or not isinstance(loc[1], int):
            return text
        if (len(loc) == 2 and key is not None) or (len(loc) > 2 and loc[2] == "id"):
            return text
        sid = _valid_id(data, loc[1])
        if sid is None:
            return text
        head = path_text(loc[:2])
        return f'{head} (id "{sid}")' + text[len(head) :]

    d = checked("eval", _model, data, name, places, label)
    scenarios = tuple(
        Scenario(
            id=s["id"],
            prompt=s["prompt"],
            critical=s.get("critical", False),
            criteria=tuple(s.get("criteria", ())),
            output=tuple(s["output"].items()) if "output" in s else None,
            assertions=tuple(assertion_from(a) for a in s.get("assertions", ())),
            budget=_budget(s.get("budget"), d.get("budget")),
            judge_context=s.get("expectedOutput"),
        )
        for s in d["scenarios"]
    )
    return EvalFile(path=path, scenarios=scenarios, places=places)


def _budget(own: dict[str, object] | None, skill: dict[str, object] | None) -> Budget | None:
    mine, theirs = budget_from(own), budget_from(skill)
    return mine.merged(theirs) if mine else theirs


def _model() -> type[BaseModel]:
    from skill_be.project.models import EvalFileModel

    return EvalFileModel


def _valid_id(data: object, i: int) -> str | None:
    try:
        sid = data["scenarios"][i]["id"]  # type: ignore[index]
    except (KeyError, IndexError, TypeError):
        return None
    return sid if isinstance(sid, str) and sid.strip() and valid_file_name(sid) else None
