"""`skill-be open`'s index page: every run of a results folder, newest first (date, commit, each
skill's verdict and overall effect), and per skill a chart of its effect and pass rates over the runs,
as inline SVG. Pure functions from the runs' summary.json documents to HTML: no script, nothing loaded
from anywhere (the page works offline); every text from the files is escaped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from skill_be import __version__
from skill_be.reports import strings
from skill_be.reports.quote import html_text, one_line
from skill_be.results.run_pages import RunEntry

INDEX_LINK = '<p class="viewer-nav"><a href="../">← every run</a></p>'
ERROR = "ERROR"

STYLE = """
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fbfbfd; --muted: #6e6e73; --line: #d2d2d7;
  --base: #0b7f95; --skill: #a8327a; --bad: #c4142b; --good: #1f7a3a; --warn: #a86b00; --card: #ffffff; }
@media (prefers-color-scheme: dark) { :root { --fg: #f5f5f7; --bg: #111114; --muted: #a1a1a6; --line: #3a3a3f;
  --base: #4fd1e8; --skill: #f07cc4; --bad: #ff5a6e; --good: #5fd38a; --warn: #f0b44f; --card: #1b1b20; } }
body { font: 15px/1.5 ui-sans-serif, system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
  background: var(--bg); margin: 0 auto; max-width: 1100px; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { margin-top: 32px; }
.muted { color: var(--muted); } code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; background: var(--card); }
th, td { border-bottom: 1px solid var(--line); padding: 6px 8px; text-align: left; vertical-align: top;
  overflow-wrap: anywhere; }
ul.skills { margin: 0; padding-left: 0; list-style: none; }
.ready { color: var(--good); font-weight: 700; } .blocked { color: var(--bad); font-weight: 700; }
.error { color: var(--warn); font-weight: 700; } .unreadable td.problem { color: var(--bad); }
figure.chart { margin: 12px 0 24px; } figure.chart svg { width: 100%; height: auto; max-width: 720px; }
svg text { fill: var(--muted); font-size: 11px; } svg .axis { stroke: var(--line); }
svg .zero { stroke: var(--muted); stroke-dasharray: 4 3; } svg .effect { stroke: var(--fg); fill: none; }
svg .interval { stroke: var(--fg); stroke-width: 1.5; } svg .point { fill: var(--fg); }
svg .baseline { stroke: var(--base); fill: none; } svg .with-skill { stroke: var(--skill); fill: none; }
svg circle.baseline { fill: var(--base); } svg circle.with-skill { fill: var(--skill); }
.legend .baseline { color: var(--base); } .legend .with-skill { color: var(--skill); }
th { overflow-wrap: normal; }
@media (max-width: 640px) { body { padding: 12px; font-size: 14px; } table.runs .date { display: none; }
  svg text { font-size: 14px; } }
"""


def _signed(x: float) -> str:
    return f"{x:+.0f}"


def effect_text(effect: Mapping[str, Any] | None) -> str:
    """The overall effect as the reports word it: +20pp [-5, +45] better."""
    if not effect:
        return "no overall effect"
    iv = f"{_signed(effect['estimate'])}pp [{_signed(effect['low'])}, {_signed(effect['high'])}]"
    return f"{iv} {effect.get('label', '')}".strip()


def verdict(skill: Mapping[str, Any]) -> str:
    if skill.get("verdict") == ERROR:
        return ERROR
    return strings.READY if skill.get("ready") else strings.NOT_READY


def pass_rates(skill: Mapping[str, Any]) -> tuple[float, float] | None:
    """Each arm's share of passed lines over every scenario, model and rep (percent), or None
    when no line has counts."""
    got = {"baseline": [0, 0], "withSkill": [0, 0]}
    for sc in skill.get("scenarios", []):
        for m in sc.get("models", {}).values():
            for line in m.get("lines", []):
                for arm, (passed, total) in (line.get("counts") or {}).items():
                    if arm in got:
                        got[arm][0] += passed
                        got[arm][1] += total
    (bp, bt), (wp, wt) = got["baseline"], got["withSkill"]
    if not bt or not wt:
        return None
    return 100 * bp / bt, 100 * wp / wt


def run_date(doc: Mapping[str, Any]) -> str:
    """startedAt to the second: 2026-12-03 12:30:05+00:00."""
    started = str(doc.get("startedAt") or "")
    if "T" not in started:
        return started
    day, _, time = started.partition("T")
    clock, dot, rest = time.partition(".")
    zone = rest.lstrip("0123456789") if dot else ""
    return f"{day} {clock}{zone}"


def page_href(name: str) -> str:
    return f"{quote(name)}/results.html"


def _skill_item(name: str, skill: Mapping[str, Any]) -> str:
    v = verdict(skill)
    css = {strings.READY: "ready", ERROR: "error"}.get(v, "blocked")
    return (
        f'<li><span class="skill">{html_text(name)}</span>: <span class="{css}">{v}</span> '
        f'<span class="effect">{html_text(effect_text(skill.get("effect")))}</span></li>'
    )


def run_row(entry: RunEntry) -> str:
    """One row of the index: the run's link, date, commit and skills; an unreadable one says why."""
    name = html_text(entry.name)
    if entry.doc is None:
        problem = html_text(one_line(entry.problem, 300))
        return (
            f'<tr class="run unreadable"><td class="name">{name}</td>'
            f'<td class="problem" colspan="3">unreadable: {problem}</td></tr>'
        )
    doc = entry.doc
    marks = [m for m, on in (("fake run", doc.get("fakeRun")), ("interrupted", doc.get("interrupted"))) if on]
    mark = f' <span class="muted">({", ".join(marks)})</span>' if marks else ""
    skills = "".join(_skill_item(n, s) for n, s in (doc.get("skills") or {}).items())
    full = str(doc.get("commit") or "")
    commit = f'<code title="{html_text(full)}">{html_text(full[:10])}</code>' if full else "—"
    return (
        f'<tr class="run"><td class="name"><a class="run-link" href="{html_text(page_href(entry.name))}">'
        f'{name}</a>{mark}</td><td class="date">{html_text(run_date(doc))}</td><td>{commit}</td>'
        f'<td><ul class="skills">{skills}</ul></td></tr>'
    )


@dataclass(frozen=True)
class Point:
    """One run of one skill on its chart: the overall effect (points) and both arms' pass rates (percent)."""

    run: str
    commit: str  # " at <commit>", or ""
    effect: Mapping[str, Any] | None
    rates: tuple[float, float] | None


def skill_points(runs: Sequence[RunEntry], skill: str) -> list[Point | None]:
    """One slot per run, oldest first: the skill's point, or None where the run lacks it."""
    out: list[Point | None] = []
    for r in runs:
        s = (r.doc or {}).get("skills", {}).get(skill) if r.doc else None
        at = f" at {str(r.doc['commit'])[:10]}" if r.doc and r.doc.get("commit") else ""
        out.append(None if s is None else Point(r.name, at, s.get("effect"), pass_rates(s)))
    return out


W, H, LEFT, RIGHT, TOP, BOTTOM = 720, 210, 72, 60, 14, 34


def _x(i: int, n: int) -> float:
    span = W - LEFT - RIGHT
    return LEFT + (span / 2 if n == 1 else span * i / (n - 1))


def _y(value: float, low: float, high: float) -> float:
    return TOP + (H - TOP - BOTTOM) * (high - value) / (high - low)


def _frame(low: int, high: int, ticks: Sequence[int], unit: str, zero: bool) -> list[str]:
    parts = [f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{H - BOTTOM}"/>']
    for t in ticks:
        y = _y(t, low, high)
        text = f"{t:+d}{unit}" if zero and t else f"{t}{unit}"
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{text}</text>')
    if zero:
        y0 = _y(0, low, high)
        parts.append(f'<line class="zero" x1="{LEFT}" y1="{y0:.1f}" x2="{W - RIGHT}" y2="{y0:.1f}"/>')
    return parts


def run_label(name: str) -> str:
    """A run folder's name as an axis label: 12-03 12:29:35 for 2026-12-03T12-29-35-133Z."""
    if len(name) >= 19 and name[4] == "-" and name[10] == "T":
        return f"{name[5:10]} {name[11:19].replace('-', ':')}"
    return name[:12]


def _x_labels(runs: Sequence[str]) -> list[str]:
    """Under the chart: every run's label, or every k-th so that at most 8 show."""
    n = len(runs)
    step = max(1, -(-n // 8))
    return [
        f'<text class="run" x="{_x(i, n):.1f}" y="{H - 8}" text-anchor="middle">{html_text(run_label(r))}</text>'
        for i, r in enumerate(runs)
        if i % step == 0
    ]


def effect_chart(skill: str, points: Sequence[Point | None], runs: Sequence[str] = ()) -> str:
    """The overall effect per run (a dot and its 95% interval, -100 to +100 points), oldest left."""
    n = len(points)
    parts = [*_frame(-100, 100, (-100, -50, 0, 50, 100), "pp", zero=True), *_x_labels(runs)]
    line = []
    for i, p in enumerate(points):
        if p is None or not p.effect:
            continue
        x, e = _x(i, n), p.effect
        y, lo, hi = (_y(float(e[k]), -100, 100) for k in ("estimate", "low", "high"))
        parts.append(f'<line class="interval" x1="{x:.1f}" y1="{hi:.1f}" x2="{x:.1f}" y2="{lo:.1f}"/>')
        tip = html_text(f"{p.run}{p.commit}: {effect_text(e)}")
        parts.append(f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="4"><title>{tip}</title></circle>')
        line.append(f"{x:.1f},{y:.1f}")
    if len(line) > 1:
        parts.insert(0, f'<polyline class="effect" points="{" ".join(line)}"/>')
    label = html_text(f"{skill}: overall effect over the runs, in points")
    return _svg("effect", label, parts)


def rates_chart(skill: str, points: Sequence[Point | None], runs: Sequence[str] = ()) -> str:
    """Both arms' pass rates per run (0 to 100%), baseline and with the skill, oldest left."""
    n = len(points)
    parts = [*_frame(0, 100, (0, 50, 100), "%", zero=False), *_x_labels(runs)]
    for arm, k in (("baseline", 0), ("with-skill", 1)):
        line = []
        for i, p in enumerate(points):
            if p is None or p.rates is None:
                continue
            x, y = _x(i, n), _y(p.rates[k], 0, 100)
            tip = html_text(f"{p.run}: {arm} {p.rates[k]:.0f}%")
            parts.append(f'<circle class="{arm}" cx="{x:.1f}" cy="{y:.1f}" r="3"><title>{tip}</title></circle>')
            line.append(f"{x:.1f},{y:.1f}")
        if len(line) > 1:
            parts.insert(0, f'<polyline class="{arm}" points="{" ".join(line)}"/>')
    return _svg("rates", html_text(f"{skill}: pass rates over the runs"), parts)


def _svg(kind: str, label: str, parts: Sequence[str]) -> str:
    return f'<svg class="{kind}" role="img" aria-label="{label}" viewBox="0 0 {W} {H}">{"".join(parts)}</svg>'


def _charts(runs: Sequence[RunEntry]) -> str:
    names = list(dict.fromkeys(n for r in runs if r.doc for n in (r.doc.get("skills") or {})))
    names_of = [r.name for r in runs]
    out = []
    for name in names:
        points = skill_points(runs, name)
        out.append(
            f'<figure class="chart" data-skill="{html_text(name)}"><h3>{html_text(name)}</h3>'
            f"{effect_chart(name, points, runs=names_of)}{rates_chart(name, points, runs=names_of)}"
            '<figcaption class="legend muted">Top: the overall effect with its 95% interval. Bottom: '
            '<span class="baseline">baseline</span> and <span class="with-skill">with the skill</span>, '
            "the share of lines passed. One point per run, oldest left.</figcaption></figure>"
        )
    return "".join(out) or '<p class="muted">No run has a skill to chart.</p>'


def index_page(runs: Sequence[RunEntry], folder: str) -> str:
    """The whole index: `runs` oldest first (as results/run_pages.run_entries gives them); the table
    lists them newest first, the charts run oldest to newest."""
    rows = "".join(run_row(r) for r in reversed(runs))
    n = len(runs)
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        f"<title>skill-be — {n} {'run' if n == 1 else 'runs'}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f'<h1>skill-be runs</h1>\n<p class="muted">{html_text(folder)}: {n} {"run" if n == 1 else "runs"}, '
        f"newest first. skill-be {html_text(__version__)}.</p>\n"
        '<table class="runs"><thead><tr><th>Run</th><th class="date">Date</th><th>Commit</th><th>Skills: verdict, '
        f"overall effect [95% interval]</th></tr></thead>\n<tbody>{rows}</tbody></table>\n"
        f"<h2>Over the runs</h2>\n{_charts(runs)}\n</body>\n</html>\n"
    )


def with_index_link(page: str) -> str:
    """A run's results.html as served: a link back to the index after <body>; nothing else changes."""
    return page.replace("<body>", "<body>\n" + INDEX_LINK, 1)
