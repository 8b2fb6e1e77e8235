"""The TypeScript preset: the `ts` blocks of every SKILL.md compile against the library (typecheck),
and the library entry's exports are its API (coverage). Both are jobs for the Node checks helper."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from skill_be.checks import Problem
from skill_be.checks.kinds import HelperRequest, Warn
from skill_be.checks.plan import (
    TS_LANGS,
    Library,
    coverage_where,
    entry_file,
    resolve_library,
    typecheck_where,
)
from skill_be.project.config import CoverageConfig, TypecheckConfig
from skill_be.project.loader import Project


class Block(NamedTuple):
    code: str
    line: int  # in SKILL.md


class SkillBlocks(NamedTuple):
    name: str
    dir: Path
    prelude: Path | None
    blocks: tuple[Block, ...]


class TypecheckRequest(NamedTuple):
    """The helper's `typecheck` job: every ts block of every skill, with its SKILL.md line."""

    root: Path
    library: Library | None
    skills: tuple[SkillBlocks, ...]

    def payload(self) -> dict[str, object]:
        lib: dict[str, object] | None = None
        if self.library is not None:
            lib = {"kind": self.library.kind, "name": self.library.name}
            if self.library.entry is not None:
                lib["entry"] = str(self.library.entry)
                lib["packageName"] = self.library.package_name
        skills = [
            {
                "name": s.name,
                "dir": str(s.dir),
                "prelude": str(s.prelude) if s.prelude is not None else None,
                "blocks": [{"code": b.code, "line": b.line} for b in s.blocks],
            }
            for s in self.skills
        ]
        return {"root": str(self.root), "library": lib, "skills": skills}


class Typecheck(NamedTuple):
    request: TypecheckRequest

    @property
    def helper(self) -> HelperRequest:
        return HelperRequest("typecheck", self.request.payload())

    def problems(self, project: Project, answer: Mapping[str, Any] | None, warn: Warn) -> list[Problem]:
        """The helper's answer as problems; blocks that do not parse are warned about and skipped."""
        assert answer is not None
        if answer.get("error"):
            raise typecheck_where(project.config).error(str(answer["error"]))
        by_name = {s.name: s for s in project.skills}
        for u in answer.get("unparsed", []):
            warn(
                f'warning: skill "{u["skill"]}", SKILL.md line {u["line"]}: the typecheck skips a block that does not '
                f'parse ({u["message"]}); write "skip" after its language to skip it on purpose'
            )
        problems: list[Problem] = []
        for p in answer.get("problems", []):
            skill = by_name[p["skill"]]
            file = skill.skill_md if p["file"] == "SKILL.md" else Path(p["file"])
            problems.append(Problem(message=p["message"], file=file, line=int(p["line"]), skill=skill.name))
        return problems


class Coverage(NamedTuple):
    root: Path
    entry: Path
    exact: bool = False

    @property
    def helper(self) -> HelperRequest:
        return HelperRequest("coverage", {"root": str(self.root), "entry": str(self.entry)})

    def names(self, project: Project, answer: Mapping[str, Any] | None) -> list[str]:
        assert answer is not None
        if answer.get("error"):
            raise coverage_where(project.config).key("entry").error(str(answer["error"]))
        return [str(n) for n in answer["names"]]


def typecheck(project: Project, settings: TypecheckConfig | None, warn: Warn) -> Typecheck:
    config = project.config
    library: Library | None = None
    preludes: Mapping[str, Path] = {}
    if settings is not None:
        preludes = settings.preludes
        if settings.library:
            library = resolve_library(config, settings.library, typecheck_where(config).key("library"))
    skills = tuple(
        SkillBlocks(
            name=s.name,
            dir=s.dir.absolute(),
            prelude=preludes.get(s.name),
            blocks=tuple(Block(b.code, b.line) for b in s.doc.blocks if b.lang in TS_LANGS and not b.skip),
        )
        for s in project.skills
    )
    return Typecheck(TypecheckRequest(config.root, library, skills))


def coverage(project: Project, settings: CoverageConfig, warn: Warn) -> Coverage:
    config = project.config
    return Coverage(config.root, entry_file(config, settings.entry or "", coverage_where(config).key("entry")))
