"""skill-be.result.json: the committed record of each skill's last run.

Its one description is `results/models.py` `ResultFileModel`. An entry is its JSON document, typed
(`ResultEntry`, keys as the file spells them), so nothing converts it to or from the file by hand:
reading validates it (against the schema generated from the model, else through the model) and hands
the document over; writing puts it in the model's shape (`result_text`). pydantic stays out of
`verify` and `run` where the schema's check suffices (start-up, bench/verify_startup.py)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, NotRequired, TypedDict

from skill_be import __version__
from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.files import read_text
from skill_be.project.jsonfile import load_json
from skill_be.results.atomic import write_atomic

if TYPE_CHECKING:
    from pydantic import BaseModel

    from skill_be.engine.runner import SkillRun


class ArmCount(TypedDict):
    passed: int  # reps whose verdict on the line passed
    total: int


class Score(TypedDict):
    """One line's pass counts on one model, per arm: an entry of `scores` (`ScoreModel`)."""

    model: str
    scenario: str
    line: str  # the criterion, or "[test] <name>"
    kind: str  # criterion | test
    critical: bool
    baseline: ArmCount
    withSkill: ArmCount


class ResultEntry(TypedDict):
    """One skill's entry (`ResultEntryModel`), keys as the file spells them. An optional key is absent
    or None (the writer leaves it out, as the reader reads a null)."""

    date: str
    fingerprint: str
    ready: bool
    reasons: list[str]
    models: list[str]
    grader: str
    why: NotRequired[list[dict[str, str]] | None]  # the reasons as data (engine/reasons.py Reason.to_json)
    scores: NotRequired[list[Score] | None]  # absent in the Node tool's files; verify then ignores it
    gate: NotRequired[Mapping[str, object] | None]  # the rule and levels that decided (engine.gate.Levels.to_json)
    triggers: NotRequired[Mapping[str, Any] | None]  # trigger evals' scores (results/triggers.py), no calls
    reps: NotRequired[int | None]  # the reps it ran with; absent in older files (verify skips the check)
    inputs: NotRequired[Mapping[str, str] | None]  # each fingerprint part's hash (project/fingerprint.py v2)
    usage: NotRequired[Mapping[str, Any] | None]  # tokens and cost per answer (engine/pricing.answer_usage)


class ResultFile(NamedTuple):
    version: str
    skills: Mapping[str, ResultEntry]


_FIX = 'restore it from git, or delete it (the next "skill-be run" writes a new one)'


def read_result_file(path: Path) -> ResultFile | None:
    """The result file, None when there is none; a broken one is a ConfigError saying what is wrong."""
    if not path.exists():
        return None
    name = shown(path)
    text = read_text(path, what="result file")
    data = load_json(text, name, _FIX)
    from skill_be.project.places import Places
    from skill_be.project.validation import checked

    try:
        lenient = _foreign(data) or _newer(_version_of(data))
        d = checked("result", _model, data, name, Places(text, "json"), _key_path, lenient)
    except ConfigError as e:
        raise ConfigError(f"{e}; {_FIX}") from None
    return ResultFile(version=d["skillBeVersion"], skills=d["skills"])


def _key_path(loc: Sequence[str | int], key: str | None) -> str:
    """Where an error is, the unknown key's own path included (`skills.x.redy: unknown key "redy"`)."""
    from skill_be.project.validation import path_text

    return path_text(loc if key is None else [*loc, key])


def _foreign(data: object) -> bool:
    """Whether the file says another tool wrote it (the Node tool writes `"generator": "@ngwes/skill-be"`;
    skill-be writes no generator): its keys are that tool's, left alone at any version."""
    return isinstance(data, dict) and data.get("generator") not in (None, "skill-be")


def _version_of(data: object) -> str:
    """The version the file names, "" where it names none (the model then says what is missing)."""
    version = data.get("skillBeVersion") if isinstance(data, dict) else None
    return version if isinstance(version, str) else ""


def _newer(version: str) -> bool:
    """Whether the file was written by a later skill-be than this one (or by a later 1.x of the Node tool):
    such a file may carry keys this version does not know yet, and they are left alone."""

    def parts(v: str) -> tuple[int, ...]:
        try:
            return tuple(int(x) for x in v.split("+")[0].split("-")[0].split("."))
        except ValueError:
            return ()

    mine, theirs = parts(__version__), parts(version)
    return not theirs or theirs > mine


def _model() -> type[BaseModel]:
    from skill_be.results.models import ResultFileModel

    return ResultFileModel


def scores_of(run: SkillRun) -> list[Score]:
    """The result file's `scores` of one skill's run: every line's pass counts, model by model."""
    critical = {sl.scenario.id: sl.scenario.critical for sl in run.lines}
    return [
        Score(
            model=x.model,
            scenario=x.scenario,
            line=x.line,
            kind=x.kind,
            critical=critical.get(x.scenario, False),
            baseline=ArmCount(passed=x.baseline_passed, total=x.baseline_total),
            withSkill=ArmCount(passed=x.with_skill_passed, total=x.with_skill_total),
        )
        for x in run.scores
    ]


def counts(arm: ArmCount) -> tuple[int, int]:
    """An arm's (passed, total)."""
    return arm["passed"], arm["total"]


def write_result_file(path: Path, skills: Mapping[str, ResultEntry]) -> None:
    """Rewrite the file atomically, skills in name order (each one's `inputs` too), with this version."""
    entries = {n: {**skills[n], "inputs": _sorted(skills[n].get("inputs"))} for n in sorted(skills)}
    write_atomic(path, result_text({"skillBeVersion": __version__, "skills": entries}))


def _sorted(inputs: Mapping[str, str] | None) -> dict[str, str] | None:
    return None if inputs is None else dict(sorted(inputs.items()))


def result_text(doc: Mapping[str, Any]) -> str:
    """The file's text: the document in its model's shape (`results/models.py`): each mapping's keys
    in the model's order, as the published schema (generated from the model) lists them, optional
    keys set to None left out, numbers as given. What it holds was checked against the model where
    it came from: read from the file (`read_result_file`) or made by this run (`checked_entry`)."""
    from skill_be.project.fastcheck import schema

    root = schema("result")
    return json.dumps(_in_model_order(doc, root, root), indent=2, ensure_ascii=False) + "\n"


def checked_entry(name: str, entry: ResultEntry) -> ResultEntry:
    """A new entry, once, through its model's check: the schema's (no pydantic), else the model
    itself, whose ValidationError names the key (skill-be made what its own format refuses)."""
    from skill_be.project.fastcheck import conforms, schema

    root = schema("result")
    doc = {"skillBeVersion": __version__, "skills": {name: _in_model_order(entry, _entry_node(root), root)}}
    if not conforms("result", doc):
        from skill_be.results.models import ResultFileModel

        ResultFileModel.model_validate(doc)
    return entry


def _entry_node(root: dict[str, Any]) -> object:
    return root["properties"]["skills"]["additionalProperties"]


def _in_model_order(data: object, node: object, root: dict[str, Any]) -> Any:
    """`data` with each mapping's keys in the order of the schema's `properties` (keys it does not
    name after them, as given), lists item by item, maps value by value; the rest as it is."""
    shape = _shaper(node, root, {})
    return data if shape is None else shape(data)


Shape = Callable[[Any], Any]


def _shaper(node: object, root: dict[str, Any], memo: dict[int, Shape | None]) -> Shape | None:
    """The function that puts data of schema `node` in order, built once per node; None where there
    is nothing to order (a string, a number, a mapping of anything)."""
    while isinstance(node, dict) and "$ref" in node:
        node = root["$defs"][node["$ref"].removeprefix("#/$defs/")]
    if not isinstance(node, dict):
        return None
    if id(node) in memo:
        return memo[id(node)]
    memo[id(node)] = None  # a schema that contains itself is ordered down to where it repeats
    props: dict[str, Any] | None = node.get("properties")
    item = _shaper(node.get("items"), root, memo)
    value = _shaper(node.get("additionalProperties"), root, memo)
    shape: Shape | None = None
    if props is not None:
        shape = _object(props, set(node.get("required", ())), {k: _shaper(v, root, memo) for k, v in props.items()})
    elif item is not None:
        shape = _each(item)
    elif value is not None:
        shape = _values(value)
    memo[id(node)] = shape
    return shape


def _object(props: dict[str, Any], required: set[str], inner: dict[str, Shape | None]) -> Shape:
    def shape(data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        out = {}
        for k in props:
            v = data.get(k)
            if v is None and (k not in data or k not in required):
                continue  # absent, or an optional key set to None: left out
            f = inner[k]
            out[k] = v if f is None else f(v)
        out.update((k, v) for k, v in data.items() if k not in props)
        return out

    return shape


def _each(item: Shape) -> Shape:
    return lambda data: [item(x) for x in data] if isinstance(data, list) else data


def _values(value: Shape) -> Shape:
    return lambda data: {k: value(v) for k, v in data.items()} if isinstance(data, dict) else data
