"""`skill-be convert`: write the skill-be eval file equivalent to another format's.

- `convert [skill...]`: each skill's agentskills.io `evals/evals.json` to `<evals>/<skill>.json`;
- `convert --from skillgrade <eval.yaml>...` and `convert --from skill-lens <file.eval.yaml>...`: a
  peer's eval file to the skill's `<evals>/<skill>.json` (or `-o <file>`), with one warning line per
  item that has no equivalent.
An existing file is never overwritten without `--force`. Calls no model.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skill_be.errors import ConfigError, UsageError
from skill_be.paths import shown
from skill_be.project import agentskills
from skill_be.project.loader import eval_source, load_project
from skill_be.results.atomic import write_atomic

SOURCES = ("agentskills", "skillgrade", "skill-lens")


def main(
    config_path: Path,
    skills: list[str] | None = None,
    source: str | None = None,
    output: str | None = None,
    force: bool = False,
) -> int:
    if source in (None, "agentskills"):
        return _evals_json(config_path, skills or [], Path(output) if output else None, force)
    if not skills:
        raise UsageError(f"--from {source}: name the file(s) to convert", "convert")
    return _peer(config_path, str(source), [Path(p) for p in skills], Path(output) if output else None, force)


def _evals_json(config_path: Path, skills: Sequence[str], output: Path | None, force: bool) -> int:
    project = load_project(config_path, skills, warn=lambda line: print(line, file=sys.stderr))
    config = project.config
    todo = [s for s in project.skills if s.eval_path == agentskills.location(s.dir)]
    for name in skills:
        if name not in {s.name for s in todo}:
            own = eval_source(config, config.skills / name)
            raise ConfigError(
                f'skill "{name}": its eval file is {shown(own) if own else "missing"}, not an evals/evals.json; '
                "nothing to convert"
            )
    if output is not None and len(todo) != 1:
        raise UsageError("-o names one file: name the one skill to convert", "convert")
    if not todo:
        print(f"no skill reads an evals/evals.json (every one has {shown(config.evals)}/<skill>.json); nothing to do")
        return 0
    for skill in todo:
        target = output or config.evals / f"{skill.name}.json"
        _refuse_existing(target, force)
        data = agentskills.converted(skill.eval_path, skill.dir, base=target.parent)
        _write(target, {"skill": skill.name, **data}, skill.eval_path)
    print(f"skill-be now reads {shown(config.evals)}/<skill>.json; the evals.json files are left as they were")
    return 0


def _peer(config_path: Path, source: str, files: Sequence[Path], output: Path | None, force: bool) -> int:
    from skill_be.project import peer_skillgrade, peer_skilllens

    out_dir = output.parent if output is not None else _evals_folder(config_path, source)
    taken: set[str] = set()
    by_skill: dict[Path, list[Any]] = {}
    for f in files:
        convert = peer_skillgrade.convert if source == "skillgrade" else peer_skilllens.convert
        c = convert(f, out_dir, taken)
        by_skill.setdefault(c.skill_dir.resolve(), []).append((f, c))
    if output is not None and len(by_skill) > 1:
        raise UsageError("-o names one file: convert the files of one skill at a time", "convert")
    for skill_dir, done in by_skill.items():
        target = output or out_dir / f"{skill_dir.name}.json"
        _refuse_existing(target, force)
        scenarios = [sc for _, c in done for sc in c.data["scenarios"]]
        data = {**done[0][1].data, "scenarios": scenarios}
        if len(done) > 1:
            data["$comment"] = f"converted from {source}'s {', '.join(f.name for f, _ in done)} by skill-be convert"
        for _, c in done:
            for line in c.notes:
                print(line, file=sys.stderr)
        _write(target, data, *(f for f, _ in done))
    return 0


def _evals_folder(config_path: Path, source: str) -> Path:
    from skill_be.project.config import load_config

    if not config_path.is_file():
        raise ConfigError(
            f"{shown(config_path)}: not found: skill-be writes the converted file to the config's evals folder; "
            f"create one with skill-be init, or pass -o <file> (convert --from {source} <file> -o evals/<skill>.json)"
        )
    return load_config(config_path).evals


def _refuse_existing(target: Path, force: bool) -> None:
    if target.exists() and not force:
        raise ConfigError(
            f"{shown(target)}: already exists; convert never overwrites a file: pass --force to replace it, "
            "or -o <file> to write elsewhere"
        )


def _write(target: Path, data: dict[str, Any], *sources: Path) -> None:
    """Write the eval file once the model accepts it: a converter's output is a valid eval file."""
    from skill_be.project.models import EvalFileModel
    from skill_be.project.places import Places
    from skill_be.project.validation import validate

    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    validate(EvalFileModel, data, shown(target), Places(text, "json"))
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, text)
    n = len(data["scenarios"])
    print(f"wrote {shown(target)} ({n} scenario{'s' if n != 1 else ''}) from {', '.join(shown(s) for s in sources)}")
