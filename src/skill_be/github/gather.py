"""From what a command left behind (summary.json, the result file, `check --json`) to the gate's view.

Read through the files' models (results/summary_models.py, results/result_file.py): a result file
from the Node tool has no `scores`, which only leaves its tables out.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill_be.engine.gate import percent
from skill_be.reports.pairwise import preference_words
from skill_be.reports.pr_comment import CheckView, ModelTable, ProblemView, Row, SkillView, TokenSum

if TYPE_CHECKING:
    from skill_be.results.result_file import ResultFile, Score
    from skill_be.results.summary_models import (
        AcrossRow,
        CheckSummary,
        GateSummary,
        LineSummary,
        SkillSummary,
        SummaryModel,
        Tokens,
        UsageSummary,
        WhyRecord,
    )

_ARM_NAMES = {"baseline": "baseline", "withSkill": "with skill", "with-skill": "with skill", "with_skill": "with skill"}


def repo_path(file: str | None, cwd: Path, workspace: Path) -> str | None:
    """A file the command named (relative to its folder, or absolute) relative to the repository."""
    if not file:
        return None
    p = Path(file)
    full = p if p.is_absolute() else cwd / p
    try:
        rel = os.path.relpath(full.resolve(), workspace.resolve())
    except ValueError:
        return None
    return None if rel.startswith("..") else Path(rel).as_posix()


def scenario_lines(eval_file: Path) -> dict[str, int]:
    """Each scenario id's line in its eval file: the line of its `id` value, by the project's own place
    reader (project/places.py), as the eval file's errors are placed."""
    from skill_be.project.places import Places

    try:
        text = eval_file.read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, ValueError):
        return {}
    scenarios = data.get("scenarios") if isinstance(data, dict) else None
    places = Places(text, "json")
    found: dict[str, int] = {}
    for i, sc in enumerate(scenarios if isinstance(scenarios, list) else ()):
        sid = sc.get("id") if isinstance(sc, dict) else None
        place = places.find(["scenarios", i, "id"]) if isinstance(sid, str) else None
        if isinstance(sid, str) and place is not None:
            found.setdefault(sid, place[0])
    return found


def checks_of(
    items: Sequence[CheckSummary] | None, cwd: Path, workspace: Path
) -> tuple[list[CheckView], list[ProblemView]]:
    """The checks from summary.json's `checks`, `check --json`'s or verify's (see `check_summaries`)."""
    checks: list[CheckView] = []
    problems: list[ProblemView] = []
    for c in items or ():
        checks.append(CheckView(c.name, tuple(c.lines), c.blocks))
        for p in c.problems:
            problems.append(
                ProblemView(
                    check=c.name,
                    message=p.message,
                    path=repo_path(p.file, cwd, workspace),
                    line=p.line,
                    skill=p.skill,
                    blocks=c.blocks,
                )
            )
    return checks, problems


def check_summaries(items: Any) -> list[CheckSummary] | None:
    """`check --json`'s and verify's checks through summary.json's check model (None: unreadable)."""
    from pydantic import ValidationError

    from skill_be.results.summary_models import CheckSummary

    try:
        return [CheckSummary.model_validate(c) for c in items] if isinstance(items, list) else None
    except ValidationError:
        return None


def _blocking_from_gate(gate: GateSummary) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    out += [(z.scenario, f'universal 0% with the skill: "{z.line}"') for z in gate.zero]
    out += [(b.scenario, f'blocks on {b.model}: "{b.line or ""}"') for b in gate.blocks]  # the evidence rule's
    if gate.inconclusive_blocks:
        out += [(i.scenario, f'inconclusive on {i.model}: "{i.line or ""}"') for i in gate.inconclusive]
    out += [
        (r.scenario, f'regression on {r.model}: "{r.line}" {r.baseline}% → {r.with_skill}%') for r in gate.regressions
    ]
    return tuple(out)


def _across_of(a: AcrossRow) -> dict[str, Any]:
    """A row of the table across models as reports/across.py reads it (summary.json's keys)."""
    loaded = {"agent": a.loaded.agent, "trigger": a.loaded.trigger}
    effect = None if a.effect is None else {"estimate": a.effect.estimate, "low": a.effect.low, "high": a.effect.high}
    return {
        "model": a.model,
        "required": a.required,
        "loaded": loaded,
        "baseline": {"passed": a.baseline.passed, "total": a.baseline.total},
        "withSkill": {"passed": a.with_skill.passed, "total": a.with_skill.total},
        "effect": effect,
        "verdict": a.verdict,
    }


def _why_of(w: WhyRecord) -> dict[str, str]:
    pairs = (("kind", w.kind), ("source", w.source), ("scenario", w.scenario), ("model", w.model), ("line", w.line))
    return {k: v for k, v in pairs if v is not None}


def _blocking_from_why(
    reasons: Sequence[str], why: Sequence[Mapping[str, str]], scenarios: Sequence[str]
) -> tuple[tuple[str, str], ...]:
    """The result file keeps each reason's words and, beside them, its data (`why`, same order): a reason
    about one of the scenarios points at it. Others (errors), and a file without `why`, point at none."""
    return tuple((w["scenario"], r) for r, w in zip(reasons, why, strict=False) if w.get("scenario") in set(scenarios))


def _n(passed: int, total: int) -> str:
    return f"{passed}/{total}" if total > 0 else ""


def _counts(line: LineSummary, arm: str) -> str:
    """summary.json's `counts`: {"baseline": [passed, total], "withSkill": [...]}, when present."""
    if line.counts is None:
        return ""
    pair = line.counts.baseline if arm == "baseline" else line.counts.with_skill
    return _n(pair[0], pair[1]) if len(pair) == 2 else ""


def _arm(passed: int, total: int) -> tuple[int | None, str]:
    """A `scores` arm: 2 of 3 -> (67, "2/3")."""
    return (percent(passed, total), f"{passed}/{total}") if total > 0 else (None, "")


def tables_from_summary(skill: SkillSummary) -> tuple[ModelTable, ...]:
    per_model: dict[str, list[Row]] = {}
    for sc in skill.scenarios:
        for label, m in sc.models.items():
            for x in m.lines:
                per_model.setdefault(label, []).append(
                    Row(
                        scenario=sc.id,
                        line=x.line,
                        critical=sc.critical,
                        baseline=x.baseline,
                        with_skill=x.with_skill,
                        baseline_n=_counts(x, "baseline"),
                        with_skill_n=_counts(x, "withSkill"),
                    )
                )
    return tuple(ModelTable(label, tuple(rows)) for label, rows in per_model.items())


def tables_from_scores(scores: Sequence[Score] | None) -> tuple[ModelTable, ...]:
    per_model: dict[str, list[Row]] = {}
    for x in scores or ():
        b, w = x["baseline"], x["withSkill"]
        base, base_n = _arm(b["passed"], b["total"])
        skill, skill_n = _arm(w["passed"], w["total"])
        per_model.setdefault(x["model"], []).append(
            Row(
                scenario=x["scenario"],
                line=x["line"],
                critical=x["critical"],
                baseline=base,
                with_skill=skill,
                baseline_n=base_n,
                with_skill_n=skill_n,
            )
        )
    return tuple(ModelTable(label, tuple(rows)) for label, rows in per_model.items())


def tokens_of(doc: SummaryModel) -> dict[str, TokenSum]:
    """Input and output tokens summed over every output of the run, per arm, and over the gradings,
    with the prompt cache's reads and writes of the input."""
    sums: dict[str, list[int]] = {}

    def add(what: str, usage: UsageSummary | Tokens | None) -> None:
        if usage is not None and usage.input is not None:
            s = sums.setdefault(what, [0, 0, 0, 0])
            s[0] += usage.input
            s[1] += usage.output or 0
            s[2] += usage.cache_read or 0
            s[3] += usage.cache_write or 0

    for skill in doc.skills.values():
        for sc in skill.scenarios:
            for m in sc.models.values():
                for o in m.outputs:
                    add(_ARM_NAMES.get(o.arm, o.arm), o.usage)
                    for g in o.gradings:
                        add("grading", g.usage)
    # Where summary.json has each skill's own token sums (estimated from characters when the adapter
    # reports none), they replace the per-output sums of the two arms.
    per_skill = [s.tokens for s in doc.skills.values() if s.tokens is not None]
    if per_skill:
        for arm in ("baseline", "with skill"):
            sums.pop(arm, None)
        for tk in per_skill:
            how = " (estimated)" if tk.estimated else ""
            add("baseline" + how, tk.baseline)
            add("with skill" + how, tk.with_skill)
    order = ["baseline", "baseline (estimated)", "with skill", "with skill (estimated)", "grading"]
    return {k: TokenSum(*v) for k, v in sorted(sums.items(), key=lambda kv: [*order, kv[0]].index(kv[0]))}


def skills_from_summary(doc: SummaryModel, evals: Mapping[str, Path], workspace: Path, cwd: Path) -> list[SkillView]:
    out: list[SkillView] = []
    for name, sk in doc.skills.items():
        eval_file = evals.get(name)
        out.append(
            SkillView(
                name=name,
                ready=sk.ready,
                reasons=tuple(sk.reasons),
                why=tuple(_why_of(w) for w in sk.why or ()),
                across=tuple(_across_of(a) for a in sk.across or ()),
                preference=preference_words(sk.pairwise.model_dump(by_alias=True)) if sk.pairwise else None,
                tables=tables_from_summary(sk),
                blocking=_blocking_from_gate(sk.gate),
                eval_file=repo_path(str(eval_file), cwd, workspace) if eval_file else None,
                scenario_lines=scenario_lines(eval_file) if eval_file else {},
            )
        )
    return out


def skills_from_result_file(
    doc: ResultFile,
    names: Sequence[str],
    changed: Mapping[str, bool],
    evals: Mapping[str, Path],
    workspace: Path,
    cwd: Path,
) -> list[SkillView]:
    out: list[SkillView] = []
    for name in names:
        e = doc.skills.get(name)
        eval_file = evals.get(name)
        if e is None:
            out.append(SkillView(name=name, ready=None, changed=True))
            continue
        lines = scenario_lines(eval_file) if eval_file else {}
        scores, why, reasons = e.get("scores"), tuple(e.get("why") or ()), tuple(e["reasons"])
        scenarios = list(dict.fromkeys([*lines, *(x["scenario"] for x in scores or ())]))
        out.append(
            SkillView(
                name=name,
                ready=e["ready"],
                reasons=reasons,
                why=why,
                changed=changed.get(name, False),
                recorded=e["date"],
                tables=tables_from_scores(scores),
                blocking=_blocking_from_why(reasons, why, scenarios),
                eval_file=repo_path(str(eval_file), cwd, workspace) if eval_file else None,
                scenario_lines=lines,
            )
        )
    return out
