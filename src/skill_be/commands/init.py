"""`skill-be init [skill-folder]`: a commented skill-be.yaml and an eval file per skill.

Without `--draft` the eval file is a template whose placeholders refuse to run until filled
(project/loader.py `refuse_placeholders`). With `--draft` the config's first model drafts the
scenarios, criteria and trigger queries from the skill's name and description only, never its
body, so the tasks cannot carry the skill's answers (commands/init_draft.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.config import Config, load_config
from skill_be.project.loader import PLACEHOLDER
from skill_be.project.skills import SkillDoc, read_skill_md
from skill_be.wiring.common import warn

CONFIG_TEMPLATE = """\
# skill-be.yaml, written by `skill-be init`. Relative paths resolve against this file's folder.
# Every key is explained here; the configuration reference (docs/reference/config.md) has them all.
# `skill-be run --fake` runs it all with canned answers (no key, no cost, nothing recorded);
# set ANTHROPIC_API_KEY and `skill-be run` runs the same file with the models below.

skills: {skills}           # the folder with one folder per skill, each holding a SKILL.md
evals: ./evals             # the folder of <skill>.json eval files: the scenarios and their criteria

model:                     # the model under test (a list of entries tests several)
  adapter: anthropic       # anthropic, openai, gemini, claude-cli, pi-cli, opencode-cli, command, fake, or your own module
  id: claude-sonnet-4-5    # the model id the adapter is given (the key: $ANTHROPIC_API_KEY)
grader:                    # the judge: says YES or NO to each criterion of each answer
  adapter: anthropic       # any adapter, as for model
  id: claude-haiku-4-5     # a small, cheap model judges well enough with 3 gradings
  template: {template}           # code: rules for answers that are code; generic: for any other skill

reps: 3                    # generations per arm (baseline and with skill) per scenario
gradings: 3                # grader calls per answer; the majority wins
concurrency: 4             # model calls in flight at once: changes the speed, never the result
timeoutSeconds: 120        # per model call; a call past it is an error, not a NO

gate:                      # when a skill is not ready
  rule: evidence           # block a critical scenario only when the data say it got worse (strict: any drop blocks)
  margin: 30               # percentage points of harm the evidence rule must rule out
  inconclusive: pass       # pass or block: what a critical scenario the data cannot decide does
  blockOnZero: true        # block when a line scores 0% with the skill on every model
  blockOnErrors: true      # block when an output could not be generated, graded or tested
  maxErrorShare: 0.5       # more errored outputs than this share: ERROR (could not measure), exit 3

checks:
  typecheck: false         # true: typecheck the SKILL.md's TypeScript examples (preset: python for Python)
"""

EVAL_COMMENT = (
    "Written by skill-be init. Each scenario: id (a name, also the file name of its answers), prompt (the task "
    "the model gets, in both arms), critical (true: the skill must never make it worse), criteria (what the "
    "grader checks, each answered YES or NO). Replace every " + PLACEHOLDER + " before running: skill-be refuses "
    "to run them."
)


def template_eval(name: str) -> dict[str, object]:
    return {
        "$comment": EVAL_COMMENT,
        "skill": name,
        "scenarios": [
            {
                "id": "first-task",
                "prompt": f"{PLACEHOLDER}: a task a user would give a model, where the skill should help",
                "critical": True,
                "criteria": [
                    f"{PLACEHOLDER}: something a correct answer does, checkable with YES or NO",
                    f"{PLACEHOLDER}: something the skill teaches that a model gets wrong without it",
                ],
            }
        ],
    }


def skill_folders(folder: str | None, cwd: Path) -> list[Path]:
    """The named skill folder, or every folder under ./skills with a SKILL.md."""
    if folder is not None:
        path = (cwd / folder).resolve()
        if not (path / "SKILL.md").is_file():
            what = "does not exist" if not path.exists() else "has no SKILL.md"
            raise ConfigError(f"{folder}: {what}; name a skill folder, the one that holds its SKILL.md")
        return [path]
    found = sorted(p.parent for p in (cwd / "skills").glob("*/SKILL.md"))
    if not found:
        raise ConfigError("no skill folder under ./skills; name one: skill-be init <folder that holds a SKILL.md>")
    return found


def config_text(skills_dir: Path, root: Path, docs: list[SkillDoc]) -> str:
    rel = Path(os.path.relpath(skills_dir, root)).as_posix()
    skills = rel if rel.startswith("..") else f"./{rel}"
    code = any(d.blocks for d in docs)
    return CONFIG_TEMPLATE.format(skills=skills, template="code" if code else "generic")


def main(config_path: Path, skill_folder: str | None = None, draft: bool = False) -> int:
    cwd = Path.cwd()
    folders = skill_folders(skill_folder, cwd)
    parents = {f.parent for f in folders}
    config_file = config_path if config_path.is_absolute() else cwd / config_path
    docs = [read_skill_md(f / "SKILL.md") for f in folders]
    if config_file.exists():
        print(f"kept {shown(config_file)}: it exists; init adds only the eval files it lacks")
    else:
        if len(parents) != 1:
            raise ConfigError("the skill folders have different parents; run init once per skills folder")
        config_file.parent.mkdir(parents=True, exist_ok=True)
        config_file.write_text(config_text(parents.pop(), config_file.parent, docs), encoding="utf-8")
        print(f"wrote {shown(config_file)}: every key commented; gate.rule is evidence")
    config = load_config(config_file)  # what init wrote (or found) must read back
    for folder, doc in zip(folders, docs, strict=True):
        if folder.parent != config.skills:
            raise ConfigError(
                f"{shown(folder)}: not in the config's skills folder {shown(config.skills)}; "
                "move it there or fix skills: in the config"
            )
        _one_eval(config, folder, doc, draft)
    ignore_results(config_file.parent)
    print(NEXT)
    return 0


NEXT = (
    'next: "skill-be run --fake" runs it all now with canned answers (no key, no cost, nothing recorded); '
    'replace the placeholders, then set ANTHROPIC_API_KEY and "skill-be run"'
)
IGNORED = ".skill-be/"


def ignore_results(folder: Path) -> None:
    """`.skill-be/` (the run folders, every answer, the cache) in the folder's .gitignore, so committing
    the result file commits nothing else."""
    path = folder / ".gitignore"
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    if any(line.strip().strip("/") == IGNORED.strip("/") for line in text.splitlines()):
        return
    sep = "" if not text or text.endswith("\n") else "\n"
    path.write_text(f"{text}{sep}{IGNORED}\n", encoding="utf-8")
    print(
        f"{'added' if text else 'wrote'} {IGNORED} to {shown(path)}: the run folders stay out of git; commit the result file"
    )


def _one_eval(config: Config, folder: Path, doc: SkillDoc, draft: bool) -> None:
    path = config.evals / f"{folder.name}.json"
    if path.exists():
        print(f"kept {shown(path)}: it exists")
        return
    data = template_eval(folder.name)
    how = "a template: replace every " + PLACEHOLDER
    if draft:
        from skill_be.commands.init_draft import draft_eval

        drafted, why = draft_eval(config, folder.name, doc)
        if drafted is not None:
            data, how = drafted, f"drafted by {config.models[0].id} from the description only; review it"
        else:
            warn(f"warning: {folder.name}: the draft failed ({why}); wrote the template instead")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {shown(path)}: {how}")
