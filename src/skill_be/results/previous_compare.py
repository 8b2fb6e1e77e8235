"""The previous arm's comparison (`run --against REF`): this run's with-skill scores against the
previous version's, line by line, in the same shape as the free comparison with the base branch
(results/compare.py), so the same gate rule (`gate.previous`), tables and words serve both.

Counts come from this run's outputs: with skill (this branch's SKILL.md) and previous (the skill at
REF), each line scored as the gate scores it (engine/gate.py `score_lines`). What decides whether a
line is comparable is what decides it for the base comparison: the scenario's prompt, its criteria,
its output contract and its test file, at REF and now. The previous arm is not run for lines that
are not comparable, and a skill that did not exist at REF has no previous arm at all.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from skill_be.engine.gate import ScenarioLines, score_lines
from skill_be.engine.observations import Output
from skill_be.engine.prompts import BASELINE, PREVIOUS, WITH_SKILL
from skill_be.project.fingerprint import normalize
from skill_be.project.loader import Skill
from skill_be.results.compare import NEW, SKILL_NEW, LineChange, SkillChange, SkillFiles, compare_skill, scenarios_now

_EVAL, _TESTS = "eval", "tests/"  # the names the comparison reads the old files by


def previous_change(
    skill: Skill,
    then: Skill | None,
    lines: Sequence[ScenarioLines],
    models: Sequence[str],
    outputs: Sequence[Output],
    ready: bool | None,
    ref: str,
) -> SkillChange:
    """The skill's lines: this run's with-skill counts against its previous arm's (module doc)."""
    head = _doc(_counts(lines, models, outputs, WITH_SKILL), ready)
    if then is None:
        change = compare_skill(skill.name, head, None, _files(skill), {})
        why = f"the skill did not exist at {ref}"
        return change._replace(status=SKILL_NEW, lines=tuple(x._replace(status=NEW, why=why) for x in change.lines))
    ran = {(o.scenario, o.model) for o in outputs if o.arm == PREVIOUS}
    before = [x for x in _counts(lines, models, outputs, PREVIOUS) if (x["scenario"], x["model"]) in ran]
    files: dict[str, bytes | None] = {_EVAL: _scenarios_json(then)}
    for sid, path in then.test_files.items():
        try:
            files[_TESTS + sid] = path.read_bytes()
        except OSError:
            files[_TESTS + sid] = None
    return compare_skill(skill.name, head, _doc(before, None), _files(skill), files)


def _counts(
    lines: Sequence[ScenarioLines], models: Sequence[str], outputs: Sequence[Output], arm: str
) -> list[dict[str, Any]]:
    """Each line's counts with `arm` in the with-skill place, as a result file's `scores` holds them."""
    out: list[dict[str, Any]] = []
    for sl in lines:
        for m in models:
            mine = [o for o in outputs if o.scenario == sl.scenario.id and o.model == m]
            shown = [o if o.arm == BASELINE else replace(o, arm=WITH_SKILL) for o in mine if o.arm in (BASELINE, arm)]
            for x in score_lines(sl, m, shown):
                if not x.counted and x.with_skill_total == 0:
                    continue
                out.append(
                    {
                        "model": x.model,
                        "scenario": x.scenario,
                        "line": x.line,
                        "kind": x.kind,
                        "critical": sl.scenario.critical,
                        "baseline": {"passed": x.baseline_passed, "total": x.baseline_total},
                        "withSkill": {"passed": x.with_skill_passed, "total": x.with_skill_total},
                    }
                )
    return out


def _doc(scores: list[dict[str, Any]], ready: bool | None) -> dict[str, Any]:
    return {"scores": scores, **({"ready": ready} if ready is not None else {})}


def _files(skill: Skill) -> SkillFiles:
    texts: dict[str, bytes] = {}
    for sid, path in skill.test_files.items():
        try:
            texts[sid] = path.read_bytes()
        except OSError:
            continue
    tests = {sid: _TESTS + sid for sid in skill.test_files}
    return SkillFiles(_EVAL, scenarios_now(skill.evals.scenarios), tests, texts)


def _scenarios_json(skill: Skill) -> bytes:
    """The old skill's scenarios, in the shape the comparison reads an eval file."""
    scenarios = [
        {"id": sid, "prompt": prompt, "criteria": list(criteria), "output": output}
        for sid, (prompt, criteria, output) in scenarios_now(skill.evals.scenarios).items()
    ]
    return json.dumps({"scenarios": scenarios}).encode("utf-8")


def comparable(skill: Skill, then: Skill) -> frozenset[str]:
    """The scenarios whose prompt, criteria, output contract and tests are as they were at REF: the
    ones the previous arm of a changed skill runs."""
    now, old = scenarios_now(skill.evals.scenarios), scenarios_now(then.evals.scenarios)
    out = set()
    for sid, spec in now.items():
        if old.get(sid) != spec:
            continue
        a, b = skill.test_files.get(sid), then.test_files.get(sid)
        if (a is None) != (b is None) or (a is not None and b is not None and _text(a) != _text(b)):
            continue
        out.add(sid)
    return frozenset(out)


def _text(path: Any) -> bytes | None:
    try:
        return normalize(path.read_bytes())  # LF-normalised, as fingerprints and the base comparison read tests
    except OSError:
        return None


__all__ = ["LineChange", "SkillChange", "comparable", "previous_change"]
