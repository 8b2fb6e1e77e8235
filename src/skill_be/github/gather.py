"""From what a command left behind (summary.json, the result file, `check --json`) to the gate's view.

Read defensively: a result file from the Node tool has no `scores`, and a field that is missing or
of another shape only leaves its part of the report out.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from skill_be.engine.gate import percent
from skill_be.reports.pr_comment import CheckView, ModelTable, ProblemView, Row, SkillView

_ARM_NAMES = {"baseline": "baseline", "withSkill": "with skill", "with-skill": "with skill", "with_skill": "with skill"}


def load_json_file(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


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
    """Each scenario id's line in its eval file: the line of its `"id": "..."` key."""
    try:
        text = eval_file.read_text(encoding="utf-8")
    except OSError:
        return {}
    found: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), 1):
        for m in re.finditer(r'"id"\s*:\s*("(?:[^"\\]|\\.)*")', line):
            try:
                sid = json.loads(m.group(1))
            except ValueError:
                continue
            found.setdefault(sid, n)
    return found


def checks_of(items: Any, cwd: Path, workspace: Path) -> tuple[list[CheckView], list[ProblemView]]:
    """The checks from summary.json's `checks` or `check --json`'s `checks`."""
    checks: list[CheckView] = []
    problems: list[ProblemView] = []
    for c in items if isinstance(items, list) else []:
        if not isinstance(c, dict):
            continue
        name = str(c.get("name", "check"))
        blocks = bool(c.get("blocks"))
        lines = tuple(str(x) for x in c.get("lines", []) if isinstance(x, str))
        checks.append(CheckView(name, lines, blocks))
        for p in c.get("problems", []) or []:
            if not isinstance(p, dict):
                continue
            line = p.get("line")
            problems.append(
                ProblemView(
                    check=name,
                    message=str(p.get("message", "")),
                    path=repo_path(p.get("file") if isinstance(p.get("file"), str) else None, cwd, workspace),
                    line=line if isinstance(line, int) else None,
                    skill=p.get("skill") if isinstance(p.get("skill"), str) else None,
                    blocks=blocks,
                )
            )
    return checks, problems


def _blocking_from_gate(gate: Any) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    if not isinstance(gate, dict):
        return ()
    for z in gate.get("zero", []) or []:
        if isinstance(z, dict):
            out.append((str(z.get("scenario", "")), f'universal 0% with the skill: "{z.get("line", "")}"'))
    for b in gate.get("blocks", []) or []:  # the evidence rule's blocks
        if isinstance(b, dict):
            out.append((str(b.get("scenario", "")), f'blocks on {b.get("model", "")}: "{b.get("line", "")}"'))
    if gate.get("inconclusiveBlocks"):
        for i in gate.get("inconclusive", []) or []:
            if isinstance(i, dict):
                out.append((str(i.get("scenario", "")), f'inconclusive on {i.get("model", "")}: "{i.get("line", "")}"'))
    for r in gate.get("regressions", []) or []:
        if isinstance(r, dict):
            out.append(
                (
                    str(r.get("scenario", "")),
                    f'regression on {r.get("model", "")}: "{r.get("line", "")}" '
                    f"{r.get('baseline')}% → {r.get('withSkill')}%",
                )
            )
    return tuple(out)


def _blocking_from_reasons(reasons: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """The result file keeps reasons as text: `universal 0%: <scenario> — "<line>"` and
    `regression: <scenario> / <model> — ...`; others (errors) have no scenario to point at."""
    out: list[tuple[str, str]] = []
    for r in reasons:
        m = re.match(r"^universal 0%: (.+?) — ", r) or re.match(r"^regression: (.+?) / ", r)
        if m:
            out.append((m.group(1), r))
    return tuple(out)


def _n(passed: Any, total: Any) -> str:
    return f"{passed}/{total}" if isinstance(passed, int) and isinstance(total, int) and total > 0 else ""


def _counts(line: Mapping[str, Any], arm: str) -> str:
    """summary.json's `counts`: {"baseline": [passed, total], "withSkill": [...]}, when present."""
    counts = line.get("counts")
    pair = counts.get(arm) if isinstance(counts, dict) else None
    if isinstance(pair, list) and len(pair) == 2:
        return _n(pair[0], pair[1])
    return ""


def _int(x: Any) -> int | None:
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def _arm(x: Any) -> tuple[int | None, str]:
    """A `scores` arm: {"passed": 2, "total": 3} -> (67, "2/3")."""
    if isinstance(x, dict):
        passed, total = x.get("passed"), x.get("total")
        if isinstance(passed, int) and isinstance(total, int) and total > 0:
            return percent(passed, total), f"{passed}/{total}"
    return None, ""


def tables_from_summary(skill: Mapping[str, Any]) -> tuple[ModelTable, ...]:
    per_model: dict[str, list[Row]] = {}
    for sc in skill.get("scenarios", []) or []:
        if not isinstance(sc, dict):
            continue
        models = sc.get("models")
        for label, m in models.items() if isinstance(models, dict) else []:
            for x in (m.get("lines", []) if isinstance(m, dict) else []) or []:
                if not isinstance(x, dict):
                    continue
                per_model.setdefault(str(label), []).append(
                    Row(
                        scenario=str(sc.get("id", "")),
                        line=str(x.get("line", "")),
                        critical=bool(sc.get("critical")),
                        baseline=_int(x.get("baseline")),
                        with_skill=_int(x.get("withSkill")),
                        baseline_n=_counts(x, "baseline"),
                        with_skill_n=_counts(x, "withSkill"),
                    )
                )
    return tuple(ModelTable(label, tuple(rows)) for label, rows in per_model.items())


def tables_from_scores(scores: Any) -> tuple[ModelTable, ...]:
    per_model: dict[str, list[Row]] = {}
    for x in scores if isinstance(scores, list) else []:
        if not isinstance(x, dict):
            continue
        base, base_n = _arm(x.get("baseline"))
        skill, skill_n = _arm(x.get("withSkill"))
        per_model.setdefault(str(x.get("model", "")), []).append(
            Row(
                scenario=str(x.get("scenario", "")),
                line=str(x.get("line", "")),
                critical=bool(x.get("critical")),
                baseline=base,
                with_skill=skill,
                baseline_n=base_n,
                with_skill_n=skill_n,
            )
        )
    return tuple(ModelTable(label, tuple(rows)) for label, rows in per_model.items())


def tokens_of(doc: Mapping[str, Any]) -> dict[str, tuple[int, int]]:
    """Input and output tokens summed over every output of the run, per arm, and over the gradings."""
    sums: dict[str, list[int]] = {}

    def add(what: str, usage: Any) -> None:
        if isinstance(usage, dict) and isinstance(usage.get("input"), int):
            s = sums.setdefault(what, [0, 0])
            s[0] += usage["input"]
            out = usage.get("output")
            s[1] += out if isinstance(out, int) else 0

    for skill in (doc.get("skills") or {}).values() if isinstance(doc.get("skills"), dict) else []:
        for sc in skill.get("scenarios", []) if isinstance(skill, dict) else []:
            models = sc.get("models") if isinstance(sc, dict) else None
            for m in models.values() if isinstance(models, dict) else []:
                for o in m.get("outputs", []) if isinstance(m, dict) else []:
                    if not isinstance(o, dict):
                        continue
                    add(_ARM_NAMES.get(str(o.get("arm")), str(o.get("arm"))), o.get("usage"))
                    for g in o.get("gradings", []) or []:
                        if isinstance(g, dict):
                            add("grading", g.get("usage"))
    # Where summary.json has each skill's own token sums (estimated from characters when the adapter
    # reports none), they replace the per-output sums of the two arms.
    per_skill: list[dict[str, Any]] = [s["tokens"] for s in skills_of(doc) if isinstance(s.get("tokens"), dict)]
    if per_skill:
        for arm in ("baseline", "with skill"):
            sums.pop(arm, None)
        for tk in per_skill:
            for key, arm in (("baseline", "baseline"), ("withSkill", "with skill")):
                add(arm + (" (estimated)" if tk.get("estimated") else ""), tk.get(key))
    order = ["baseline", "baseline (estimated)", "with skill", "with skill (estimated)", "grading"]
    return {k: (v[0], v[1]) for k, v in sorted(sums.items(), key=lambda kv: [*order, kv[0]].index(kv[0]))}


def skills_of(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    skills = doc.get("skills")
    return [s for s in skills.values() if isinstance(s, dict)] if isinstance(skills, dict) else []


def skills_from_summary(
    doc: Mapping[str, Any], evals: Mapping[str, Path], workspace: Path, cwd: Path
) -> list[SkillView]:
    out: list[SkillView] = []
    skills = doc.get("skills")
    for name, sk in skills.items() if isinstance(skills, dict) else []:
        if not isinstance(sk, dict):
            continue
        eval_file = evals.get(name)
        out.append(
            SkillView(
                name=str(name),
                ready=bool(sk.get("ready")),
                reasons=tuple(str(r) for r in sk.get("reasons", []) or []),
                tables=tables_from_summary(sk),
                blocking=_blocking_from_gate(sk.get("gate")),
                eval_file=repo_path(str(eval_file), cwd, workspace) if eval_file else None,
                scenario_lines=scenario_lines(eval_file) if eval_file else {},
            )
        )
    return out


def skills_from_result_file(
    doc: Any, names: Sequence[str], changed: Mapping[str, bool], evals: Mapping[str, Path], workspace: Path, cwd: Path
) -> list[SkillView]:
    entries = doc.get("skills") if isinstance(doc, dict) else None
    entries = entries if isinstance(entries, dict) else {}
    out: list[SkillView] = []
    for name in names:
        e = entries.get(name)
        eval_file = evals.get(name)
        if not isinstance(e, dict):
            out.append(SkillView(name=name, ready=None, changed=True))
            continue
        reasons = tuple(str(r) for r in e.get("reasons", []) or [] if isinstance(r, str))
        out.append(
            SkillView(
                name=name,
                ready=bool(e.get("ready")),
                reasons=reasons,
                changed=changed.get(name, False),
                recorded=str(e.get("date", "")),
                tables=tables_from_scores(e.get("scores")),
                blocking=_blocking_from_reasons(reasons),
                eval_file=repo_path(str(eval_file), cwd, workspace) if eval_file else None,
                scenario_lines=scenario_lines(eval_file) if eval_file else {},
            )
        )
    return out
