"""The sticky pull-request comment and the job summary: a pure function from the gate's view to Markdown.

The view (GateView) is what the action gathers from a run's summary.json, or, for `verify`, from the
committed result file; this module never reads a file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from skill_be.engine.changes import Comparison, SkillChange, reps_text
from skill_be.engine.gate import signed_pp as pp
from skill_be.engine.reasons import PREVIOUS
from skill_be.reports import pr_changes
from skill_be.reports.across import across_cells, across_head, table_row
from skill_be.reports.quote import html_text, md_code, md_fence, md_text, one_line
from skill_be.reports.strings import CACHE_READ_WORD, CACHE_WRITE_WORD, signed

COMMENT_LIMIT = 65_536  # GitHub refuses a longer issue comment with 422
MARKER_PREFIX = "<!-- skill-be:"


class Row(NamedTuple):
    """One criterion or code test of one scenario on one model, in both arms."""

    scenario: str
    line: str
    critical: bool
    baseline: int | None  # percent; None when unknown
    with_skill: int | None
    baseline_n: str = ""  # "2/3": reps that passed of reps counted, when known
    with_skill_n: str = ""


class ModelTable(NamedTuple):
    model: str
    rows: tuple[Row, ...]


class SkillView(NamedTuple):
    name: str
    ready: bool | None  # None: no verdict recorded
    reasons: tuple[str, ...] = ()
    why: tuple[Mapping[str, str], ...] = ()  # the reasons as data (engine/reasons.py), in their order
    across: tuple[Mapping[str, Any], ...] = ()  # several models: summary.json's `across` rows (reports/across.py)
    preference: str | None = None  # compare.pairwise: the blind A/B's preference rate in words (reports/pairwise.py)
    changed: bool = False  # verify: its files changed since its recorded run
    recorded: str = ""  # verify: the date of the recorded run
    tables: tuple[ModelTable, ...] = ()
    blocking: tuple[tuple[str, str], ...] = ()  # (scenario, line) that block the gate
    eval_file: str | None = None  # relative to the repository, for annotations
    scenario_lines: Mapping[str, int] = {}  # scenario id -> its line in the eval file


class ProblemView(NamedTuple):
    check: str
    message: str
    path: str | None = None  # relative to the repository
    line: int | None = None
    skill: str | None = None
    blocks: bool = False


class CheckView(NamedTuple):
    name: str
    lines: tuple[str, ...]
    blocks: bool


class TokenSum(NamedTuple):
    """Tokens summed over a run for one arm (or the gradings); `read` and `written` are the part of
    `input` read from and written to the provider's prompt cache."""

    input: int
    output: int
    read: int = 0
    written: int = 0


class GateView(NamedTuple):
    command: str  # verify, run, check, triage, regrade, merge
    result: str  # pass, blocked, error
    result_line: str  # the command's closing "Result: ..." line, or why it stopped
    skills: tuple[SkillView, ...] = ()
    checks: tuple[CheckView, ...] = ()
    problems: tuple[ProblemView, ...] = ()
    models: tuple[str, ...] = ()
    reps: int | None = None
    tokens: Mapping[str, TokenSum] = {}  # what -> its tokens, summed over the run
    run_url: str = ""
    working_directory: str = "."
    config: str = "skill-be.yaml"
    log: tuple[str, ...] = ()  # the command's last lines, shown when it stopped with an error
    fail_on_not_ready: bool = True
    comparison: Comparison | None = None  # against the base branch's result file (engine/changes.py)
    warnings: tuple[str, ...] = ()  # rules that warn without blocking (gate.previous: warn)


def marker(working_directory: str, config: str) -> str:
    """The hidden first line that finds this working directory's and config's comment again."""
    clean = one_line(f"{working_directory}:{config}").replace("--", "- -").replace("<", "").replace(">", "")
    return f"{MARKER_PREFIX}{clean} -->"


_ICON = {"pass": "✅", "blocked": "❌", "error": "⚠️"}


def _verdict(s: SkillView) -> str:
    if s.ready is None:
        return "no verdict"
    return "✅ READY" if s.ready else "❌ NOT READY"


def _cell(text: str) -> str:
    """A name or reason in a table cell or a sentence: one line, its Markdown escaped (quote.py)."""
    return md_text(text)


def _pct(value: int | None, n: str) -> str:
    if value is None:
        return "–"
    return f"{value}% ({n})" if n else f"{value}%"


def heading(view: GateView) -> str:
    where = "" if view.working_directory in ("", ".") else f" in {md_code(view.working_directory)}"
    blocked = (
        "blocked (not failing the job)" if view.result == "blocked" and not view.fail_on_not_ready else view.result
    )
    return f"### {_ICON.get(view.result, '')} skill-be {view.command}{where}: {blocked}"


def render(view: GateView) -> str:
    """The full report: the verdict, each skill's effect against the base and against no skill,
    why each blocks, the checks, then per skill its changes against the base and its lines."""
    out = [heading(view), ""]
    c = view.comparison
    effects = _effect_lines(view)
    out += [*effects, ""] if effects else []
    out += [md_code(view.result_line), ""]
    if c is not None and c.note:
        out += [f"Comparison with the base: {md_text(c.note)}.", ""]
    if view.skills:
        out += [*_verdict_table(view), ""]
    for s in view.skills:
        out += _across(s)
    prefs = [f"- **{_cell(s.name)}**: blind A/B, the judge {s.preference}" for s in view.skills if s.preference]
    out += [*prefs, ""] if prefs else []
    if view.warnings:
        out += ["**Warnings**", "", *(f"- {_cell(w)}" for w in view.warnings), ""]
    facts = _facts(view)
    if facts:
        out += [" · ".join(facts), ""]
    if view.checks:
        out += ["**Checks**", "", *md_fence(line for c in view.checks for line in c.lines), ""]
    for s in view.skills:
        out += _skill_details(view, s)
    if view.result == "error" and view.log:
        out += ["**Output**", "", *md_fence(view.log), ""]
    out.append(footer(view))
    return "\n".join(out) + "\n"


def _across(s: SkillView) -> list[str]:
    """One table per skill run on several models: a row per model (reports/across.py)."""
    if not s.across:
        return []
    _, note = across_cells(s.across)
    rows = [table_row(r, _cell) for r in s.across]
    return [f"**{_cell(s.name)} across models**", "", across_head(), *rows, "", note, ""]


def _change_of(view: GateView, name: str) -> SkillChange | None:
    return view.comparison.skills.get(name) if view.comparison is not None else None


def _effect_lines(view: GateView) -> list[str]:
    """Under the heading, one line per skill: its verdict, its effect against the base branch and
    against no skill, each `+12pp (+3 to +21)` with its label."""
    out = []
    for s in view.skills:
        change = _change_of(view, s.name)
        if not s.tables and change is None:
            continue
        iv, low = pr_changes.rows_effect(s.tables)
        line = pr_changes.skill_effects(s.name, change, view.comparison, iv, low)
        out.append(f"- **{_cell(s.name)}** {_verdict(s)} · {line}")
    return out


def _verdict_table(view: GateView) -> list[str]:
    verify = view.command == "verify"
    if verify:
        out = ["| Skill | Verdict recorded | Since its last run | Why it blocks |", "| --- | --- | --- | --- |"]
    else:
        out = ["| Skill | Verdict | Why it blocks |", "| --- | --- | --- |"]
    for s in view.skills:
        why = "<br>".join(_reason(view, s, i) for i in range(len(s.reasons))) if s.ready is False else ""
        if verify:
            since = "**changed**: run it again" if s.changed else f"unchanged ({s.recorded})".replace(" ()", "")
            out.append(f"| {_cell(s.name)} | {_verdict(s)} | {since} | {why} |")
        else:
            out.append(f"| {_cell(s.name)} | {_verdict(s)} | {why} |")
    return out


def _reason(view: GateView, s: SkillView, i: int) -> str:
    """The i-th blocking reason, with the noise note where its line's interval holds 0: the change
    against the base for a `gate.previous` reason, the delta against no skill for the others. Which
    line it is about comes from the reason's data (`why`), never from its words."""
    text = _cell(s.reasons[i])
    why = s.why[i] if i < len(s.why) else {}
    where = (why.get("scenario"), why.get("model"), why.get("line"))
    if None in where:
        return text
    change = _change_of(view, s.name)
    if why.get("kind") == PREVIOUS:
        for x in change.lines if change is not None else ():
            if (x.scenario, x.model, x.line) == where and x.interval and x.interval.contains(0.0):
                more = f"; about {reps_text(x.reps_to_decide)} reps per arm would decide it" if x.reps_to_decide else ""
                return f"{text} ({pr_changes.NOISE_WORDS}: {pp(x.interval.low)} to {pp(x.interval.high)}pp{more})"
        return text
    for t in s.tables:
        for r in t.rows:
            if (r.scenario, t.model, r.line) != where:
                continue
            found = pr_changes.row_interval(r.baseline_n, r.with_skill_n)
            if found is None or not found[0].contains(0.0):
                continue
            iv, reps = found
            now = min(int(r.baseline_n.split("/")[1]), int(r.with_skill_n.split("/")[1]))
            more = f"; about {reps_text(reps)} reps per arm would decide it (now {now})" if iv.estimate else ""
            return f"{text} ({pr_changes.NOISE_WORDS}: {pp(iv.low)} to {pp(iv.high)}pp{more})"
    return text


def _facts(view: GateView) -> list[str]:
    facts = []
    if view.models:
        facts.append("Models: " + ", ".join(md_code(m) for m in view.models))
    if view.reps is not None:
        facts.append(f"Reps: {view.reps}")
    if view.tokens:
        facts.append("Tokens: " + "; ".join(_token_words(what, t) for what, t in view.tokens.items()))
        base, skill = view.tokens.get("baseline"), view.tokens.get("with skill")
        if base and skill and base.input:
            extra = skill.input - base.input
            facts.append(f"the skill's extra input tokens: {extra:+,} ({signed(round(100 * extra / base.input))}%)")
    return facts


def _token_words(what: str, t: TokenSum) -> str:
    """`baseline 1,200 in / 300 out`; with the prompt cache's part of the input where it has one:
    `with skill 12,400 in (9,000 cache read, 1,100 cache write) / 310 out`."""
    cached = [f"{n:,} {word}" for n, word in ((t.read, CACHE_READ_WORD), (t.written, CACHE_WRITE_WORD)) if n]
    return f"{what} {t.input:,} in" + (f" ({', '.join(cached)})" if cached else "") + f" / {t.output:,} out"


def _skill_details(view: GateView, s: SkillView) -> list[str]:
    change = _change_of(view, s.name)
    if not s.tables and change is None:
        return []
    is_open = " open" if s.ready is False or (change is not None and pr_changes.moved_skill(change)) else ""
    out = [f"<details{is_open}><summary><b>{html_text(s.name)}</b>: {_verdict(s)}</summary>", ""]
    if change is not None and view.comparison is not None:
        tokens = pr_changes.usage_line(change.base_usage, change.head_usage, "base", dollar="\\$")
        out += [tokens, ""] if tokens else []
        out += pr_changes.changes_table(change, view.comparison)
        out += pr_changes.triggers_table(
            change.base_triggers, change.head_triggers, pr_changes.base_name(view.comparison)
        )
    if view.command == "verify":
        out += [f"Against no skill, in the recorded run{f' ({s.recorded})' if s.recorded else ''}:", ""]
    elif s.tables:
        out += ["Against no skill:", ""]
    for t in s.tables:
        out += [f"**{_cell(t.model)}**", "", *_table(t.rows), ""]
    return [*out, "</details>", ""]


def footer(view: GateView) -> str:
    run = f"[The workflow run]({view.run_url})" if view.run_url else "The workflow run"
    return f"{run} · config {md_code(view.config)} in {md_code(view.working_directory)}"


def _table(rows: Sequence[Row]) -> list[str]:
    """A model's lines against no skill, the ones that moved most first, each with its 95% interval
    and a noise marker (▲ ▼ beyond the noise, ≈ within it)."""
    out = ["| | Scenario | Criterion | Baseline | With skill | Delta (95%) |", "| --- | --- | --- | --- | --- | --- |"]
    for r in sorted(rows, key=lambda r: -abs((r.with_skill or 0) - (r.baseline or 0))):
        found = pr_changes.row_interval(r.baseline_n, r.with_skill_n)
        mark = pr_changes.marker(found[0]) if found else ""
        if r.baseline is None or r.with_skill is None:
            delta = "–"
        elif found is None:
            delta = f"{signed(r.with_skill - r.baseline)}pp"
        else:
            iv = found[0]
            delta = f"{signed(r.with_skill - r.baseline)}pp ({pp(iv.low)} to {pp(iv.high)})"
        scenario = f"{_cell(r.scenario)}{' *(critical)*' if r.critical else ''}"
        out.append(
            f"| {mark} | {scenario} | {_cell(r.line)} | {_pct(r.baseline, r.baseline_n)} | "
            f"{_pct(r.with_skill, r.with_skill_n)} | {delta} |"
        )
    return out


def comment(view: GateView, limit: int = COMMENT_LIMIT) -> str:
    """The comment body: the marker first, then the report, trimmed under `limit` characters."""
    head = marker(view.working_directory, view.config) + "\n"
    more = f"the full report is in the job summary of {footer(view)}"
    return head + trim_markdown(render(view), limit - len(head), more)


def trim_markdown(text: str, limit: int, more: str) -> str:
    """`text` when it fits in `limit` characters; else its first whole lines, with any open code
    fence and `<details>` closed and a table ended, then a line saying what was left out."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    budget = limit - 400 - len(more)  # room for the closers and the note
    kept: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + 1 > budget:
            break
        kept.append(line)
        size += len(line) + 1
    fence = ""  # the open fence's backticks (quote.md_fence makes them longer than any run inside)
    details = 0
    for line in kept:
        run = len(line) - len(line.lstrip("`"))
        if not fence and run >= 3:
            fence = "`" * run
        elif fence and line.rstrip() == "`" * len(line.rstrip()) and run >= len(fence):
            fence = ""
        elif not fence:
            details += line.count("<details") - line.count("</details>")
    closers = ([fence] if fence else []) + [""] + ["</details>", ""] * max(details, 0)
    left = len(lines) - len(kept)
    note = f"**Trimmed**: {left} more line(s) of this report did not fit in a comment; {more}."
    return "\n".join([*kept, *closers, note]) + "\n"
