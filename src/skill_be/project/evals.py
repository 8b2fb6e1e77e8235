"""Eval files: `<evals>/<skill>.json`, the scenarios of one skill."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.assertions import Assertion, Budget, assertion_from, budget_from, budget_lines
from skill_be.project.files import read_text
from skill_be.project.jsonfile import load_json
from skill_be.project.places import Places
from skill_be.project.rules import DEFAULT_LANGUAGE, JS_RESERVED, MAX_DESCRIPTION, output_language, valid_file_name
from skill_be.project.triggers import Triggers, read_triggers

if TYPE_CHECKING:
    from pydantic import BaseModel

    from skill_be.project.agent_models import AgentScenario
    from skill_be.project.attachments import Attachment
    from skill_be.project.references import Reference

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
    agent: AgentScenario | None = None  # mode: agent (project/agent_models.py); None: one-shot
    assertions: tuple[Assertion, ...] = ()  # graded without a model
    budget: Budget | None = None  # the scenario's limits, the skill's filled in
    judge_context: str | None = None  # what the grader sees beside the answer (evals.json expected_output)
    graded: bool = True  # False: `graded: false`, run for review with no line (engine/gate.py Gate.ungraded)
    attachments: tuple[Attachment, ...] = ()  # files the model gets as content (project/attachments.py)
    language: str = DEFAULT_LANGUAGE  # of the answer's code and the tests: `output.language` (rules.LANGUAGES)
    references: tuple[Reference, ...] = ()  # answers with known results (project/references.py)

    @property
    def scored(self) -> tuple[str, ...]:
        """Every line graded as a criterion: the judge's criteria, then the assertions and budget limits
        graded without a model (engine/assertions.py), in that order."""
        if not self.assertions and self.budget is None:
            return self.criteria
        return (*self.criteria, *(a.label for a in self.assertions), *budget_lines(self.budget))

    @property
    def has_tests(self) -> bool:
        return self.output is not None


class EvalFile(NamedTuple):
    path: Path
    scenarios: tuple[Scenario, ...]
    places: Places | None = None  # where each key is in the file, for errors found after loading
    triggers: Triggers | None = None  # trigger evals (project/trigger_models.py)
    notes: tuple[str, ...] = ()  # warnings of reading it (evals.json: what is not read), printed by load_project

    def place(self, loc: Sequence[str | int]) -> str:
        """`evals/x.json:12:5`: the file and the place of any key path in it."""
        place = self.places.find(loc) if self.places is not None else None
        return f"{shown(self.path)}:{place[0]}:{place[1]}" if place else shown(self.path)

    def at(self, scenario_id: str, key: str = "") -> str:
        """`evals/x.json:9:17`: the file, the line and column of a scenario (or one of its keys)."""
        i = next((n for n, s in enumerate(self.scenarios) if s.id == scenario_id), None)
        loc: list[str | int] = ["scenarios"] if i is None else ["scenarios", i, *([key] if key else [])]
        place = self.places.find(loc) if self.places is not None else None
        return f"{shown(self.path)}:{place[0]}:{place[1]}" if place else shown(self.path)

    def scenario(self, scenario_id: str) -> Scenario | None:
        return next((s for s in self.scenarios if s.id == scenario_id), None)


def load_eval(path: Path, root: Path | None = None) -> EvalFile:
    """The eval file at `path`; `root` is the project's folder (agent workspaces stay inside it)."""
    name = shown(path)
    text = read_text(path, what="eval file")
    return eval_from(load_json(text, name), path, Places(text, "json"), root)


def load_evals_json(path: Path, skill_dir: Path) -> EvalFile:
    """An agentskills.io `evals/evals.json`, through the documented mapping (project/agentskills.py):
    its notes are what it does not read; its places are the evals.json's own."""
    from skill_be.project.agentskills import read, relabelled

    reading = read(path, skill_dir)
    evals = eval_from(reading.data, path, reading.places, skill_dir)
    return relabelled(evals, reading)._replace(notes=reading.notes)  # type: ignore[no-any-return]


def eval_from(data: object, path: Path, places: Places, root: Path | None = None) -> EvalFile:
    """The eval file's records from its data, validated by the model (errors name `path`); `root` is the
    project's folder (agent workspaces stay inside it)."""
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

    d = checked("eval", _model, data, name, places, label, many=True)
    scenarios = tuple(_scenario(s, path, root, d.get("budget"), d.get("environment")) for s in d["scenarios"])
    if any(s.agent for s in scenarios):
        from skill_be.project.agent_models import check_paths

        check_paths(scenarios, name, places, root or path.parent)
    if any(s.get("attachments") for s in d["scenarios"]):
        scenarios = _with_attachments(scenarios, d, name, places, root or path.parent, path.parent)
    if any(s.agent for s in scenarios) or "environment" in d:
        from skill_be.project.agent_world import check_world

        check_world(scenarios, d, name, places, root or path.parent)
    if any(s.get("references") for s in d["scenarios"]):
        scenarios = _with_references(scenarios, d, name, places, root or path.parent, path.parent)
    triggers, bad, why = read_triggers(d.get("triggers"))
    if bad is not None:
        from skill_be.project.validation import at_place

        raise ConfigError(f"{at_place(name, places.find(bad))}: {path_text(bad)}: {why}")
    return EvalFile(path=path, scenarios=scenarios, places=places, triggers=triggers)


def _scenario(
    s: dict[str, object], path: Path, root: Path | None, skill_budget: object = None, environment: object = None
) -> Scenario:
    output = dict(s["output"]) if isinstance(s.get("output"), dict) else None  # type: ignore[call-overload]
    language = output_language(output)
    chosen = output is not None and language == output.get("language")
    if chosen:
        del output["language"]  # type: ignore[union-attr]  # the contract's language, not an export
    agent = None
    if s.get("mode") == "agent":
        from skill_be.project.agent_models import agent_scenario

        agent = agent_scenario(s, path.parent, environment)  # type: ignore[arg-type]
        if output is not None:
            if not chosen and str(output.get("file", "")).endswith(".py"):
                language = "python"  # the agent writes a Python file: its tests are Python's
            output.pop("file", None)  # in agent mode, the file the agent wrote, not an export
    return Scenario(
        id=str(s["id"]),
        prompt=str(s["prompt"]),
        critical=bool(s.get("critical", False)),
        criteria=tuple(s.get("criteria") or ()),  # type: ignore[arg-type]
        output=tuple(output.items()) if output is not None else None,
        agent=agent,
        assertions=tuple(assertion_from(a) for a in s.get("assertions", ())),  # type: ignore[attr-defined]
        # A scenario run for review has no line, so the file's budget does not apply to it.
        budget=_budget(s.get("budget"), skill_budget) if s.get("graded", True) else None,  # type: ignore[arg-type]
        judge_context=s.get("expectedOutput"),  # type: ignore[arg-type]
        graded=bool(s.get("graded", True)),
        language=language,
    )


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


def _with_attachments(
    scenarios: Sequence[Scenario], data: Mapping[str, Any], name: str, places: Places, root: Path, base: Path
) -> tuple[Scenario, ...]:
    """The scenarios with their `attachments` read (`base`: the eval file's folder); a problem is one
    ConfigError line with its place. An agent scenario's files also join its workspace."""
    from skill_be.project.attachments import one_shot_problem, read_one
    from skill_be.project.validation import at_place, path_text

    out = []
    top = root.resolve()
    for i, (sc, raw) in enumerate(zip(scenarios, data["scenarios"], strict=True)):
        names = raw.get("attachments") or ()
        if not names:
            out.append(sc)
            continue
        read: list[Attachment] = []
        for j, n in enumerate(names):
            loc: list[str | int] = ["scenarios", i, "attachments", j]
            where = f"{at_place(name, places.find(loc))}: {path_text(loc)}"
            full = (base / n).resolve()
            if not full.is_relative_to(top):
                raise ConfigError(f'{where}: "{n}" is outside the project; keep attached files inside it')
            a, why = read_one(full, n)
            if a is not None and sc.agent is None:
                why = one_shot_problem(a)
            if a is None or why is not None:
                raise ConfigError(f"{where}: {why}")
            read.append(replace(a, where=where))
        agent = sc.agent
        if agent is not None:  # the workspace gets each file under its name
            agent = replace(agent, sources=(*agent.sources, *names))
        out.append(sc._replace(attachments=tuple(read), agent=agent))
    return tuple(out)


def _with_references(
    scenarios: Sequence[Scenario], data: Mapping[str, Any], name: str, places: Places, root: Path, base: Path
) -> tuple[Scenario, ...]:
    """The scenarios with their `references` read (project/references.py); an agent scenario's are
    refused for now, one line with its place."""
    from skill_be.project.references import read_references
    from skill_be.project.validation import at_place

    out = []
    for i, (sc, raw) in enumerate(zip(scenarios, data["scenarios"], strict=True)):
        refs = raw.get("references") or ()
        if refs and sc.agent is not None:
            raise ConfigError(
                f'{at_place(name, places.find(["scenarios", i, "references"]))}: scenarios[{i}] (id "{sc.id}").'
                "references is not supported yet in agent scenarios (skill-be checks it, but no command runs it); "
                "remove it to run this file"
            )
        read = (
            read_references(refs, sc.scored, name, places, ["scenarios", i, "references"], base, root) if refs else ()
        )
        out.append(sc._replace(references=read))
    return tuple(out)
