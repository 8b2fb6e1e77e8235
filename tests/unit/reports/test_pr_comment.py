"""The comment's Markdown: trimming keeps it valid, the marker is stable, verify's columns."""

from __future__ import annotations

from skill_be.reports import check_run
from skill_be.reports.pr_comment import (
    GateView,
    ModelTable,
    Row,
    SkillView,
    TokenSum,
    comment,
    marker,
    render,
    trim_markdown,
)


def test_trim_closes_an_open_fence_and_details() -> None:
    text = (
        "<details open><summary>x</summary>\n\n```text\n"
        + "\n".join(f"line {i}" for i in range(5000))
        + "\n```\n</details>\n"
    )
    out = trim_markdown(text, 2000, "see the run")
    assert len(out) <= 2000
    lines = out.rstrip("\n").split("\n")
    assert lines[-1].startswith("**Trimmed**:") and "see the run" in lines[-1]
    assert out.count("```") % 2 == 0
    assert out.count("<details") == out.count("</details>")


def test_trim_leaves_a_short_text_alone() -> None:
    assert trim_markdown("short\n", 100, "x") == "short\n"


def test_marker_cannot_close_the_html_comment_early() -> None:
    m = marker("a-->b", "c.yaml")
    assert m.startswith("<!-- skill-be:") and m.count("-->") == 1


def test_blocked_skill_opens_its_table_and_ready_collapses() -> None:
    rows = (Row("s1", "does it", True, 100, 50, "2/2", "1/2"),)
    view = GateView(
        command="run",
        result="blocked",
        result_line="Result: blocked by the release gate (NOT READY: b)",
        skills=(
            SkillView("a", True, tables=(ModelTable("m", rows),)),
            SkillView("b", False, ("regression: s1 / m — x",), tables=(ModelTable("m", rows),)),
        ),
        models=("m",),
        reps=2,
        tokens={"baseline": TokenSum(1000, 200), "with skill": TokenSum(3000, 250)},
    )
    body = render(view)
    assert "<details><summary><b>a</b>: ✅ READY</summary>" in body
    assert "<details open><summary><b>b</b>: ❌ NOT READY</summary>" in body
    assert "| ≈ | s1 *(critical)* | does it | 100% (2/2) | 50% (1/2) | -50pp (-91 to +27) |" in body
    assert "Tokens: baseline 1,000 in / 200 out; with skill 3,000 in / 250 out" in body
    assert comment(view).startswith(marker(".", "skill-be.yaml") + "\n")
    assert check_run.conclusion(view) == "failure"
    assert check_run.conclusion(view._replace(fail_on_not_ready=False)) == "neutral"
    assert check_run.name(".") == "skill-be" and check_run.name("docs") == "skill-be (docs)"


def test_the_token_line_shows_the_prompt_caches_part_of_the_input() -> None:
    tokens = {"baseline": TokenSum(1000, 200), "with skill": TokenSum(12400, 310, read=9000, written=1100)}
    view = GateView("run", "pass", "Result: pass", models=("m",), reps=2, tokens=tokens)
    body = render(view)
    assert (
        "Tokens: baseline 1,000 in / 200 out; with skill 12,400 in (9,000 cache read, 1,100 cache write) / 310 out"
    ) in body
    # control: without cache counts the line is as it always was
    plain = render(view._replace(tokens={"with skill": TokenSum(12400, 310)}))
    assert "Tokens: with skill 12,400 in / 310 out" in plain and "cache" not in plain


def test_a_long_comparison_is_trimmed_under_the_limit_with_its_blocks_closed() -> None:
    from skill_be.engine.changes import COMPARED, Comparison, LineChange, SkillChange
    from skill_be.engine.stats import newcombe
    from skill_be.reports.pr_comment import COMMENT_LIMIT

    lines = tuple(
        LineChange(
            "m",
            f"s{i % 40}",
            f"criterion number {i} " + "x" * 60,
            True,
            COMPARED,
            (i % 5, 5),
            (1, 5),
            (5, 5),
            newcombe(5, 5, i % 5, 5),
            12,
        )
        for i in range(3000)
    )
    c = Comparison("abc", "main at abc1234 (merge base)", {"big": SkillChange("big", "compared", lines)})
    view = GateView("verify", "pass", "Result: pass", skills=(SkillView("big", True),), comparison=c)
    body = comment(view)
    assert len(body) <= COMMENT_LIMIT
    assert body.count("<details") == body.count("</details>")
    assert body.rstrip("\n").split("\n")[-1].startswith("**Trimmed**:")
    # the lines that moved most come first, so what is cut is what moved least
    kept = [x for x in body.split("\n") if x.startswith("| ▼ |") or x.startswith("| ≈ |")]
    assert kept[0].startswith("| ▼ |") and "| 100% (5/5) | 0% (0/5) |" in kept[0]


def test_trigger_rates_before_and_after() -> None:
    from skill_be.engine.changes import Comparison, SkillChange

    def rates(recall: float, false: float) -> dict[str, object]:
        pct = lambda p, n: {"hits": round(p * n / 100), "total": n, "percent": p, "low": 0, "high": 100}  # noqa: E731
        return {"models": {"m": {"recall": pct(recall, 10), "falseTrigger": pct(false, 10), "nearMiss": pct(0, 10)}}}

    change = SkillChange("demo", "compared", base_triggers=rates(60, 20), head_triggers=rates(90, 10))
    c = Comparison("abc", "main at abc1234 (merge base)", {"demo": change})
    body = render(GateView("verify", "pass", "Result: pass", skills=(SkillView("demo", True),), comparison=c))
    assert "| m | 60% (6/10) → 90% (9/10) | 20% (2/10) → 10% (1/10) | 0% (0/10) → 0% (0/10) |" in body
    # no triggers section: no table
    plain = Comparison("abc", "main", {"demo": SkillChange("demo", "compared")})
    assert "Trigger rates" not in render(
        GateView("verify", "pass", "r", skills=(SkillView("demo", True),), comparison=plain)
    )
