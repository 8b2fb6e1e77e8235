"""skill-be.result.json: the committed record of each skill's last run."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from skill_be import __version__
from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project import where as v
from skill_be.project.files import read_text
from skill_be.project.jsonfile import load_json
from skill_be.project.where import Where
from skill_be.results.atomic import write_atomic


class ResultEntry(NamedTuple):
    date: str
    fingerprint: str
    ready: bool
    reasons: tuple[str, ...]
    models: tuple[str, ...]
    grader: str

    def to_json(self) -> dict[str, object]:
        return {
            "date": self.date,
            "fingerprint": self.fingerprint,
            "ready": self.ready,
            "reasons": list(self.reasons),
            "models": list(self.models),
            "grader": self.grader,
        }


class ResultFile(NamedTuple):
    version: str
    skills: Mapping[str, ResultEntry]


_FIX = 'restore it from git, or run "skill-be run" to write it again'
ENTRY_KEYS = ("date", "fingerprint", "ready", "reasons", "models", "grader")


def read_result_file(path: Path) -> ResultFile | None:
    """The result file, None when there is none; a broken one is a ConfigError saying what is wrong."""
    if not path.exists():
        return None
    name = shown(path)
    data = load_json(read_text(path, what="result file"), name, _FIX)
    try:
        return _parse(data, Where(name))
    except ConfigError as e:
        raise ConfigError(f"{e}; {_FIX}") from None


def _parse(data: object, top: Where) -> ResultFile:
    m = v.mapping(data, top)
    for key in ("skillBeVersion", "skills"):
        if key not in m:
            raise top.error(f'missing required key "{key}"')
    version = v.string(m["skillBeVersion"], top.key("skillBeVersion"))
    skills = v.mapping(m["skills"], top.key("skills"))
    return ResultFile(version=version, skills={k: _entry(e, top.key("skills").key(k)) for k, e in skills.items()})


def _entry(value: object, where: Where) -> ResultEntry:
    m = v.mapping(value, where)
    for key in ENTRY_KEYS:
        if key not in m:
            raise where.error(f'missing required key "{key}"')
    return ResultEntry(
        date=v.string(m["date"], where.key("date")),
        fingerprint=v.string(m["fingerprint"], where.key("fingerprint")),
        ready=v.boolean(m["ready"], where.key("ready")),
        reasons=v.string_list(m["reasons"], where.key("reasons")),
        models=v.string_list(m["models"], where.key("models")),
        grader=v.string(m["grader"], where.key("grader"), empty=True),
    )


def write_result_file(path: Path, skills: Mapping[str, ResultEntry]) -> None:
    """Rewrite the file atomically, skills in name order, with this version of skill-be."""
    doc = {
        "skillBeVersion": __version__,
        "skills": {name: skills[name].to_json() for name in sorted(skills)},
    }
    write_atomic(path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
