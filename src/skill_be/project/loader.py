"""Load a project: the config, every skill with its eval file, code-test layout and fingerprint."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project import agentskills, codetest_layout
from skill_be.project.config import Config, load_config, named_mistakes, named_mistakes_of_file
from skill_be.project.deciding import deciding_settings
from skill_be.project.evals import EvalFile, load_eval, load_evals_json
from skill_be.project.fingerprint import combine, file_inputs, fingerprint, setting_inputs, tree_files
from skill_be.project.skills import SkillDoc, read_skill_md, skill_md_warnings
from skill_be.project.validation import Mistakes, merged, raise_found
from skill_be.project.where import Where


class Skill(NamedTuple):
    name: str  # the folder name: it names the eval file, the result entry and the tests folder
    dir: Path
    skill_md: Path
    doc: SkillDoc
    eval_path: Path
    evals: EvalFile
    test_files: Mapping[str, Path]  # scenario id -> its test file
    package_list: Path | None

    @property
    def has_code_tests(self) -> bool:
        return bool(self.test_files)


class Project(NamedTuple):
    config: Config
    skills: tuple[Skill, ...]  # the selected skills, in name order
    all_names: tuple[str, ...]  # every skill with a SKILL.md and an eval file

    def _files(self, skill: Skill) -> list[tuple[str, Path]]:
        parts: list[tuple[str, Path]] = [("SKILL.md", skill.skill_md), ("eval", skill.eval_path)]
        if skill.eval_path.name == agentskills.FILE_NAME and skill.eval_path.parent.parent == skill.dir:
            # An evals.json attaches files of the skill folder: their bytes decide the prompts.
            parts += [
                (f"files/{p.relative_to(skill.dir).as_posix()}", p)
                for p in agentskills.attachment_paths(skill.eval_path, skill.dir)
            ]
        else:  # a one-shot scenario's attachments (an agent scenario's are workspace files, below)
            parts += [
                (f"attachments/{sc.id}/{a.name}", a.path)
                for sc in skill.evals.scenarios
                for a in sc.attachments
                if sc.agent is None and a.path is not None
            ]
        if skill.has_code_tests and self.config.tests is not None:
            parts += tree_files(self.config.tests / skill.name, "tests")
            parts += tree_files(self.config.tests / codetest_layout.SHARED, "shared")
            if skill.package_list is not None:
                parts.append(("packages", skill.package_list))
        if skill.evals.triggers is not None:  # trigger evals offer the neighbours' descriptions too
            for p in neighbour_dirs(self.config, skill.dir):
                if (p / "SKILL.md").is_file():  # a missing one stops `run` (project/trigger_plan.py)
                    parts.append((f"neighbour/{p.name}", p / "SKILL.md"))
        if self.config.neighbours or any(sc.agent for sc in skill.evals.scenarios):  # agent mode
            from skill_be.project.agent_models import fingerprint_parts

            parts += fingerprint_parts(skill.dir, skill.evals.scenarios, list(self.config.neighbours or ()))
        return parts

    def inputs(self, skill: Skill) -> dict[str, str]:
        """Every part of the version-2 fingerprint with its hash: the files, and the config's
        deciding settings key by key (project/deciding.py)."""
        graded = any(sc.criteria for sc in skill.evals.scenarios)
        settings = deciding_settings(self.config, skill.has_code_tests, graded, skill.evals.triggers is not None)
        return {**file_inputs(self._files(skill)), **setting_inputs(settings)}

    def fingerprint(self, skill: Skill) -> str:
        """The version-2 fingerprint ("v2:..."): what `run` records and `verify` compares."""
        return combine(self.inputs(skill))

    def legacy_fingerprint(self, skill: Skill) -> str:
        """Version 1 (the Node tool's scheme): the files and the whole config file. `verify` compares
        an entry with a bare 64-hex fingerprint this way, so older result files verify as they did."""
        return fingerprint([*self._files(skill), ("config", self.config.path)])


def neighbour_dirs(config: Config, skill_dir: Path) -> list[Path]:
    """The skill folders offered beside `skill_dir` in trigger evals: the config's `neighbours`, or
    every other skill folder with a SKILL.md."""
    me = skill_dir.resolve()
    if config.neighbours is not None:
        return [p for p in config.neighbours if p.resolve() != me]
    try:
        folders = sorted(p for p in config.skills.iterdir() if p.is_dir() and (p / "SKILL.md").is_file())
    except OSError:
        return []
    return [p for p in folders if p.resolve() != me]


def load_project(
    config_path: Path,
    names: Sequence[str] = (),
    warn: Callable[[str], None] = lambda _: None,
    placeholders: bool = False,
) -> Project:
    """Everything a command needs, validated; a problem is a ConfigError before anything runs.
    `placeholders` (run --fake) lets an eval file that still holds init's placeholders run, with a warning.

    Warnings (a skill folder with no eval file) are printed only once the project is valid, so a
    config error stays the one line on stderr.
    """
    try:
        config = load_config(config_path)
    except Mistakes as e:  # the folders are checked too, so that one run lists every mistake
        raise merged(shown(config_path), e.lines, named_mistakes_of_file(config_path)) from None
    raise_found(named_mistakes(config))
    folders = sorted(p for p in _entries(config.skills, config.name) if p.is_dir() and (p / "SKILL.md").is_file())
    with_evals = [f for f in folders if eval_source(config, f) is not None]
    without = [f.name for f in folders if f not in with_evals]
    known = {f.name for f in with_evals}
    for name in names:
        if not (config.skills / name / "SKILL.md").is_file():
            listing = ", ".join(f.name for f in folders) or "none"
            raise ConfigError(
                f'skill "{name}": no SKILL.md at {shown(config.skills / name / "SKILL.md")}; '
                f"name a skill that has one (skills: {listing})"
            )
        if name not in known:
            raise ConfigError(
                f'skill "{name}": no eval file at {shown(config.evals / (name + ".json"))}; write its scenarios there'
            )
    if not with_evals:
        missing = ", ".join(shown(config.evals / f"{n}.json") for n in without)
        fix = f"write {missing}" if missing else f"add a skill folder with a SKILL.md under {shown(config.skills)}"
        raise Where(config.name, "", ("skills",), config.places).error(
            f"no skill has both a SKILL.md (in {shown(config.skills)}/<skill>/) and an eval file "
            f"(in {shown(config.evals)}/<skill>.json); {fix}"
        )
    selected = tuple(_load_skill(config, f, placeholders) for f in with_evals if not names or f.name in names)
    for name in without:
        if not names:
            warn(f'warning: skill "{name}" has no eval file')
    if not names:
        for orphan in _orphan_evals(config, {f.name for f in folders}):
            warn(
                f"warning: {shown(orphan)} names no skill (no {shown(config.skills / orphan.stem / 'SKILL.md')}); "
                f"it is not run: rename it after its skill's folder, or add that folder"
            )
    for skill in selected:
        for line in (*skill_md_warnings(skill.doc, shown(skill.skill_md)), *skill.evals.notes):
            warn(line)
    return Project(config=config, skills=selected, all_names=tuple(f.name for f in with_evals))


def _orphan_evals(config: Config, skills: set[str]) -> list[Path]:
    """The eval files in `<evals>` (a `.json` with `"scenarios"`: not a package.json or tsconfig.json
    that shares the folder) whose name is no skill folder's: run by nothing."""
    try:
        files = sorted(p for p in config.evals.iterdir() if p.suffix == ".json" and p.stem not in skills)
        return [p for p in files if p.is_file() and '"scenarios"' in p.read_text(encoding="utf-8", errors="replace")]
    except OSError:
        return []


def _entries(folder: Path, config_name: str) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError as e:
        raise ConfigError(f"{config_name}: skills: cannot list {shown(folder)} ({e.strerror or e})") from None


PLACEHOLDER = "TODO(skill-be init)"  # what `skill-be init` writes where only the user can fill in


def refuse_placeholders(evals: EvalFile) -> None:
    """A scenario that still holds an init placeholder would measure nothing: a ConfigError at it."""
    for sc in evals.scenarios:
        texts = [("prompt", sc.prompt), *(("criteria", c) for c in sc.criteria)]
        for key, text in texts:
            if PLACEHOLDER in text or PLACEHOLDER in sc.id:
                raise ConfigError(
                    f'{evals.at(sc.id, key)}: scenario "{sc.id}": {key} is still the placeholder of skill-be init '
                    f"({text[:60]!r}); write it, or remove the scenario"
                )


def _noted_placeholders(evals: EvalFile) -> EvalFile:
    """The eval file with a note (printed as a warning) when it still holds init's placeholders."""
    try:
        refuse_placeholders(evals)
    except ConfigError as e:
        note = f"warning: {e}; a fake run goes on with it, a real one refuses"
        return evals._replace(notes=(*evals.notes, note))
    return evals


def eval_source(config: Config, folder: Path) -> Path | None:
    """The skill's eval file: `<evals>/<skill>.json`, else the agentskills.io `<skill>/evals/evals.json`."""
    own = config.evals / f"{folder.name}.json"
    if own.is_file():
        return own
    theirs = agentskills.location(folder)
    return theirs if theirs.is_file() else None


def _load_skill(config: Config, folder: Path, placeholders: bool = False) -> Skill:
    source = eval_source(config, folder)
    assert source is not None
    own = source.name != agentskills.FILE_NAME or source.parent.parent != folder
    evals = load_eval(source, config.root) if own else load_evals_json(source, folder)
    if placeholders:
        evals = _noted_placeholders(evals)
    else:
        refuse_placeholders(evals)
    files = codetest_layout.test_files(config, folder.name, evals)
    packages = codetest_layout.package_list(config, folder.name) if files else None
    return Skill(
        name=folder.name,
        dir=folder,
        skill_md=folder / "SKILL.md",
        doc=read_skill_md(folder / "SKILL.md"),
        eval_path=evals.path,
        evals=evals,
        test_files=files,
        package_list=packages,
    )
