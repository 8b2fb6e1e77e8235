"""Whether a result entry still describes a skill, and if not, what changed.

An entry written with a version-2 fingerprint records the reps it ran with and each input's hash:
verify holds it to the config's reps and models, and names the file or config key that changed.
An older entry (a bare 64-hex fingerprint, the Node tool's or skill-be 0.1's) is compared the
version-1 way, as before, and is not held to reps or models it never recorded."""

from __future__ import annotations

from skill_be.paths import shown
from skill_be.project import codetest_layout
from skill_be.project.fingerprint import V2, changed_inputs
from skill_be.project.loader import Project, Skill
from skill_be.results.result_file import ResultEntry


def config_labels(project: Project) -> list[str]:
    """The models' labels as `run` gives them (adapters/registry.py `labels`): the id, or adapter:id
    when two entries share an id. Kept here so verify imports no adapter code."""
    ids = [e.id for e in project.config.models]
    return [f"{e.adapter}:{e.id}" if ids.count(e.id) > 1 else e.id for e in project.config.models]


def short_of_config(project: Project, entry: ResultEntry) -> str | None:
    """`recorded 1 rep, config asks 3`, or the models the config asks for that the run left out."""
    reps, models = entry.get("reps"), entry["models"]
    if reps is None:
        return None
    want = project.config.reps
    if reps < want:
        return f"recorded {reps} rep{'s' if reps != 1 else ''}, config asks {want}"
    missing = [label for label in config_labels(project) if label not in models]
    if missing:
        return f"recorded models {', '.join(models) or 'none'}, config asks also {', '.join(missing)}"
    return None


def what_changed(project: Project, skill: Skill, entry: ResultEntry) -> str | None:
    """None when the fingerprint matches; else the changed files and keys, as the user names them."""
    fingerprint, inputs = entry["fingerprint"], entry.get("inputs")
    if not fingerprint.startswith(V2):
        if fingerprint == project.legacy_fingerprint(skill):
            return None
        if skill.has_code_tests:
            return "its SKILL.md, its eval file, the config, its tests or its package list"
        return "its SKILL.md, its eval file or the config"
    if fingerprint == project.fingerprint(skill):
        return None
    if not inputs:
        return "its files or the config"
    labels = changed_inputs(inputs, project.inputs(skill))
    return "; ".join(dict.fromkeys(_named(project, skill, label) for label in labels)) or "its files or the config"


def _named(project: Project, skill: Skill, label: str) -> str:
    config = project.config
    if label.startswith("config:"):
        return f"{config.name}: {label.removeprefix('config:')}"
    if label == "SKILL.md":
        return shown(skill.skill_md)
    if label == "eval":
        return shown(skill.eval_path)
    if label == "packages":
        return shown(skill.package_list) if skill.package_list else "its package list"
    folder, _, rest = label.partition("/")
    if config.tests is not None and folder in ("tests", "shared"):
        base = config.tests / (skill.name if folder == "tests" else codetest_layout.SHARED)
        return shown(base / rest)
    return label
