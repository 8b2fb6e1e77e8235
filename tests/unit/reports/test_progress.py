from __future__ import annotations

import io
from pathlib import Path

import pytest

from skill_be.engine.gate import ScenarioLines
from skill_be.engine.observations import Output
from skill_be.project.evals import EvalFile, Scenario
from skill_be.project.loader import Skill
from skill_be.project.skills import SkillDoc
from skill_be.reports.progress import Progress

SC = Scenario(id="split", prompt="p", critical=False, criteria=("a", "b"), output=None)
SKILL = Skill(
    name="money",
    dir=Path("skills/money"),
    skill_md=Path("skills/money/SKILL.md"),
    doc=SkillDoc(text="", name="money", description=None, version=None, blocks=()),
    eval_path=Path("evals/money.json"),
    evals=EvalFile(path=Path("evals/money.json"), scenarios=(SC,)),
    test_files={},
    package_list=None,
)


def output(**kw: object) -> Output:
    o = Output(scenario="split", model="m1", rep=1, arm="with-skill", seconds=1.25)
    for k, v in kw.items():
        setattr(o, k, v)
    return o


def test_plain_lines_when_not_a_terminal() -> None:
    buf = io.StringIO()
    p = Progress(buf, live=False)
    p.skill_started(SKILL, 1, 2, 4)
    p.output_done(SKILL, output(text="x", verdicts=[True, False]), ScenarioLines(SC, ()), 2)
    p.output_done(SKILL, output(arm="baseline", error="exit code 1"), ScenarioLines(SC, ()), 2)
    assert buf.getvalue().splitlines() == [
        "money: 1 scenarios × 1 model(s) × 2 reps, concurrency 4",
        "  [split] m1 rep 1/2 with skill: 1/2 YES (1.2s)",
        "  [split] m1 rep 1/2 baseline: error: exit code 1 (1.2s)",
    ]


def test_tests_count_in_the_line() -> None:
    buf = io.StringIO()
    sc = Scenario(id="split", prompt="p", critical=False, criteria=(), output=(("result", "r"),))

    class Run:
        results = (type("R", (), {"name": "t1", "passed": True, "message": None})(),)
        error = None

        def to_json(self) -> dict[str, object]:
            return {}

    Progress(buf, live=False).output_done(SKILL, output(text="x", tests=Run()), ScenarioLines(sc, ("t1", "t2")), 2)
    assert buf.getvalue().strip() == "[split] m1 rep 1/2 with skill: 1/2 tests passed (1.2s)"


@pytest.mark.parametrize("no_color", [False, True])
def test_live_status_line_on_a_terminal(monkeypatch: pytest.MonkeyPatch, no_color: bool) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    buf = io.StringIO()
    p = Progress(buf, live=True)
    p.skill_started(SKILL, 1, 2, 4)
    p.rep_done("split", "m1", 1, 2, 1, 2)
    text = buf.getvalue()
    assert text.startswith("\r\x1b[Kmoney: 1 scenario × 1 model × 2 reps")  # plurals right on a terminal
    assert "1/2 reps · " in text and "· money" in text
    assert ("\x1b[2m" in text) is (not no_color)
    p.close()
    assert buf.getvalue().endswith("\r\x1b[K")


def test_clear_and_redraw_leave_the_terminal_clean_for_stdout() -> None:
    buf = io.StringIO()
    p = Progress(buf, live=True)
    p.skill_started(SKILL, 1, 2, 4)
    p.clear()
    assert buf.getvalue().endswith("\r\x1b[K")
    p.redraw()
    assert buf.getvalue().endswith("· money") or "· money" in buf.getvalue().rsplit("\r\x1b[K", 1)[1]


def test_an_agent_check_that_gives_entries_counts_its_entries_as_the_report_does(tmp_path: Path) -> None:
    """A check printing `{"checks": [...]}` is one line per entry in the report: the progress line
    counts those entries, not the check's own name (which no result carries)."""
    from skill_be.project.agent_models import agent_scenario

    agent = agent_scenario({"checks": ["test -f a", {"name": "lines", "run": "python3 c.py"}]}, tmp_path)
    sc = Scenario(id="split", prompt="p", critical=False, criteria=(), output=None, agent=agent)
    rows = [("check: check 1: test -f a", True), ("check: lines › one", True), ("check: lines › two", False)]

    class Run:
        results = tuple(type("R", (), {"name": n, "passed": ok, "message": None})() for n, ok in rows)
        error = None

        def to_json(self) -> dict[str, object]:
            return {}

    buf = io.StringIO()
    lines = ScenarioLines(sc, ("check: check 1: test -f a", "check: lines"))
    Progress(buf, live=False).output_done(SKILL, output(text="x", tests=Run()), lines, 2)
    assert buf.getvalue().strip() == "[split] m1 rep 1/2 with skill: 2/3 tests passed (1.2s)"
