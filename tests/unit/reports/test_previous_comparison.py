"""The previous arm's comparison as the action reads it back from summary.json (github/previous.py):
the same lines, intervals and overall change the run reported, and the base's trigger rates and token
use beside it (issue 19)."""

from __future__ import annotations

from skill_be.engine.changes import COMPARED, Comparison, LineChange, SkillChange, overall
from skill_be.engine.stats import newcombe
from skill_be.github.previous import previous_comparison, with_base_sides


def summary_skill() -> dict[str, object]:
    iv = newcombe(1, 4, 4, 4)
    return {
        "previous": {
            "commit": "a" * 40,
            "label": "previous version at aaaaaaa",
            "status": "compared",
            "lines": [
                {
                    "model": "m", "scenario": "split", "line": "Uses allocate", "critical": True, "status": COMPARED,
                    "baseline": {"passed": 0, "total": 4}, "withSkill": {"passed": 4, "total": 4},
                    "previous": {"passed": 1, "total": 4},
                    "interval": {"estimate": iv.estimate, "low": iv.low, "high": iv.high},
                },
                {
                    "model": "m", "scenario": "round", "line": "Uses rounding", "critical": False,
                    "status": "not comparable", "baseline": {"passed": 0, "total": 4},
                    "withSkill": {"passed": 4, "total": 4}, "previous": None, "interval": None,
                    "why": "its criteria changed",
                },
            ],
        }
    }  # fmt: skip


def test_the_comparison_reads_back_as_the_run_reported_it() -> None:
    c = previous_comparison({"money": summary_skill(), "plain": {}})
    assert c is not None and c.decided and c.label == "previous version at aaaaaaa" and list(c.skills) == ["money"]
    change = c.skills["money"]
    split, round_ = change.lines
    assert split.base == (1, 4) and split.head == (4, 4) and split.interval == newcombe(1, 4, 4, 4)
    assert round_.why == "its criteria changed" and round_.base is None
    assert change.vs_base == overall([("split", "m", (1, 4), (4, 4))])
    assert previous_comparison({"plain": {}}) is None  # a run without the previous arm


def test_the_base_s_triggers_and_usage_go_beside_it() -> None:
    c = previous_comparison({"money": summary_skill()})
    assert c is not None
    line = LineChange("m", "split", "Uses allocate", True, COMPARED, (4, 4), (0, 4))
    b = SkillChange("money", "compared", (line,), base_triggers={"t": 1}, head_triggers={"t": 2}, base_usage={"u": 1})
    both = with_base_sides(c, Comparison("b" * 40, "main at bbbbbbb", {"money": b}))
    money = both.skills["money"]
    assert (money.base_triggers, money.head_triggers, money.base_usage) == ({"t": 1}, {"t": 2}, {"u": 1})
    assert money.lines == c.skills["money"].lines and both.label == c.label  # the previous arm's numbers stay
    assert with_base_sides(c, None) is c
