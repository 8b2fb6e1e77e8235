"""`skill-be convert [skill...]`: write the skill-be eval file equivalent to each skill's
agentskills.io `evals/evals.json`, for users who want the rest of skill-be's keys."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project import agentskills
from skill_be.project.loader import eval_source, load_project
from skill_be.results.atomic import write_atomic


def main(config_path: Path, skills: list[str] | None = None) -> int:
    project = load_project(config_path, skills or (), warn=lambda line: print(line, file=sys.stderr))
    config = project.config
    todo = [s for s in project.skills if s.eval_path == agentskills.location(s.dir)]
    for name in skills or ():
        if name not in {s.name for s in todo}:
            own = eval_source(config, config.skills / name)
            raise ConfigError(
                f'skill "{name}": its eval file is {shown(own) if own else "missing"}, not an evals/evals.json; '
                "nothing to convert"
            )
    if not todo:
        print(f"no skill reads an evals/evals.json (every one has {shown(config.evals)}/<skill>.json); nothing to do")
        return 0
    for skill in todo:
        data = agentskills.converted(skill.eval_path, skill.dir)
        target = config.evals / f"{skill.name}.json"
        write_atomic(target, json.dumps({"skill": skill.name, **data}, indent=2, ensure_ascii=False) + "\n")
        n = len(data["scenarios"])
        print(f"wrote {shown(target)} ({n} scenario{'s' if n != 1 else ''}) from {shown(skill.eval_path)}")
    print(f"skill-be now reads {shown(config.evals)}/<skill>.json; the evals.json files are left as they were")
    return 0
