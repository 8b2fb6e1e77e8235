"""The config's settings that decide a skill's result, as plain data for the version-2 fingerprint
(project/fingerprint.py). What only changes where or how fast a run goes is not here."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

from skill_be.project.config import CodeTestsConfig, Config, GateConfig
from skill_be.project.triggers import DEFAULT_TRIGGER_TURNS


def camel(name: str) -> str:
    """The config file's spelling of a record field: block_on_errors -> blockOnErrors."""
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


def _changed_from_default(record: NamedTuple, default: NamedTuple, root: Path) -> dict[str, object]:
    """Only the fields set to something else than the default, so a key skill-be adds later (with
    its default) leaves every recorded fingerprint as it was."""
    out: dict[str, object] = {}
    for name, value in record._asdict().items():
        if value != getattr(default, name):
            out[camel(name)] = _plain(value, root)
    return out


def _plain(value: Any, root: Path) -> Any:
    if isinstance(value, Path):  # the path as the config names it, relative to the config's folder
        return os.path.relpath(value, root).replace(os.sep, "/")
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _plain(v, root) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v, root) for v in value]
    return value


def deciding_settings(config: Config, code_tests: bool, graded: bool, triggers: bool = False) -> dict[str, object]:
    """What of the config reaches a skill's calls: the models, the grader (when the skill has
    criteria), gradings, the call timeout, the with-skill template, the grader prompt, the gate
    and, for a skill with code tests, codeTests."""
    out: dict[str, object] = {
        "model": [_plain(dict(e.settings), config.root) for e in config.models],
        "timeoutSeconds": config.timeout_seconds,
        "withSkillTemplate": config.with_skill_template,
        "gate": _changed_from_default(config.gate, GateConfig(), config.root),
    }
    if graded:
        out["grader"] = _plain(dict(config.grader.settings), config.root)
        out["gradings"] = config.gradings
        out["graderPrompt"] = config.grader_prompt
        if config.grader_template != "code":  # the default leaves older fingerprints as they were
            out["graderTemplate"] = config.grader_template
        if config.grader_evidence is not None:  # the quotes asked for, and whether a YES needs one
            out["graderEvidence"] = config.grader_evidence
    if graded and config.pairwise_gate:  # the blind A/B decides the verdict only when it feeds the gate
        out["comparePairwiseGate"] = True
    if triggers and config.trigger_turns != DEFAULT_TRIGGER_TURNS:  # the neighbours are fingerprinted as files
        out["triggerTurns"] = config.trigger_turns
    if code_tests:
        out["codeTests"] = _changed_from_default(config.code_tests, CodeTestsConfig(), config.root)
    return out
