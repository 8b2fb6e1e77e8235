"""Eval files: `<evals>/<skill>.json`, the scenarios of one skill."""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from skill_be.paths import shown
from skill_be.project import where as v
from skill_be.project.files import read_text
from skill_be.project.jsonfile import load_json
from skill_be.project.where import Where

FILE_KEYS = ("skill", "scenarios", "$schema")
SCENARIO_KEYS = ("id", "critical", "prompt", "criteria", "output")
MAX_DESCRIPTION = 200
_IDENTIFIER = re.compile(r"^[^\W\d]\w*$|^[$_A-Za-z][$\w]*$")
JS_RESERVED = frozenset(
    [
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "else",
        "enum",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "new",
        "null",
        "return",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "yield",
        "let",
        "static",
        "implements",
        "interface",
        "package",
        "private",
        "protected",
        "public",
        "await",
    ]
)
_BAD_FILE_CHARS = re.compile(r'[<>:"/\\|?*\x00-\x1f]')
# Names Windows keeps for devices, with or without an extension: a run folder cannot be called CON.
_WINDOWS_DEVICES = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$", re.IGNORECASE)


class Scenario(NamedTuple):
    id: str
    prompt: str
    critical: bool
    criteria: tuple[str, ...]
    output: tuple[tuple[str, str], ...] | None  # (export name, description) in the file's order

    @property
    def has_tests(self) -> bool:
        return self.output is not None


class EvalFile(NamedTuple):
    path: Path
    scenarios: tuple[Scenario, ...]

    def scenario(self, scenario_id: str) -> Scenario | None:
        return next((s for s in self.scenarios if s.id == scenario_id), None)


def load_eval(path: Path) -> EvalFile:
    name = shown(path)
    text = read_text(path, what="eval file")
    data = load_json(text, name)
    top = Where(name)
    m = v.mapping(data, top, FILE_KEYS)
    if "scenarios" not in m:
        raise top.error('missing required key "scenarios" (a non-empty list of scenarios)')
    raw = m["scenarios"]
    where = top.key("scenarios")
    if not isinstance(raw, list) or not raw:
        raise where.error(f"must be a non-empty list of scenarios, not {_describe(raw)}")
    scenarios: list[Scenario] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(raw):
        s = _scenario(item, where, i)
        if s.id in seen:
            raise (
                where.index(i)
                .key("id")
                .error(f'"{s.id}" is used twice (also scenarios[{seen[s.id]}]); each scenario needs its own id')
            )
        seen[s.id] = i
        scenarios.append(s)
    return EvalFile(path=path, scenarios=tuple(scenarios))


def _describe(value: object) -> str:
    return "an empty list" if value == [] else v.type_name(value)


def _scenario(value: object, parent: Where, i: int) -> Scenario:
    at = parent.index(i)
    m = v.mapping(value, at, SCENARIO_KEYS)
    if m.get("id") is None:
        raise at.error('missing required key "id" (a unique name for the scenario)')
    sid = v.string(m["id"], at.key("id"))
    _check_file_name(sid, at.key("id"))
    here = Where(at.file, f'{at.path} (id "{sid}")')
    if m.get("prompt") is None:
        raise here.error('missing required key "prompt" (the task given to the model)')
    prompt = v.string(m["prompt"], here.key("prompt"))
    critical = False if m.get("critical") is None else v.boolean(m["critical"], here.key("critical"))
    output = None if m.get("output") is None else _output(m["output"], here.key("output"))
    if m.get("criteria") is None:
        if output is None:
            raise here.error('needs "criteria" (a non-empty list of strings), an "output", or both')
        criteria: tuple[str, ...] = ()
    else:
        criteria = v.string_list(m["criteria"], here.key("criteria"), non_empty=True)
    return Scenario(id=sid, prompt=prompt, critical=critical, criteria=criteria, output=output)


def _check_file_name(sid: str, where: Where) -> None:
    bad = (
        sid in (".", "..")
        or _BAD_FILE_CHARS.search(sid) is not None
        or sid != sid.strip()
        or sid.endswith(".")
        or _WINDOWS_DEVICES.match(sid) is not None
        or len(sid) > 200
    )
    if bad:
        raise where.error(
            f'"{sid}" is not a valid file name (it names the scenario\'s output folder and test file); '
            "use letters, digits, '-', '_' and '.'"
        )


def _output(value: object, where: Where) -> tuple[tuple[str, str], ...]:
    m = v.mapping(value, where)
    if not m:
        raise where.error('must name at least "result", the export the tests are written against')
    fields: list[tuple[str, str]] = []
    for key, desc in m.items():
        if not _IDENTIFIER.match(key) or key in JS_RESERVED:
            raise where.error(f'"{key}" is not a name a module can export; use a JavaScript identifier')
        text = v.string(desc, where.key(key))
        if len(text) > MAX_DESCRIPTION:
            raise where.key(key).error(
                f"is {len(text)} characters; keep a description at most {MAX_DESCRIPTION} (it shapes the answer, "
                "it does not teach it)"
            )
        fields.append((key, text))
    if "result" not in m:
        raise where.error('missing required key "result" (the export the tests are written against)')
    return tuple(fields)
