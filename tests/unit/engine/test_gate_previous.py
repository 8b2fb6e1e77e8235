"""gate.minDelta and gate.previous on constructed tables, under both rules (issue 19, item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skill_be.engine.changes import COMPARED, NOT_COMPARABLE, LineChange, SkillChange
from skill_be.engine.gate import (
    ShortOfMinDelta,
    WorseThanPrevious,
    blocking_rules,
    previous_rule,
    short_of_min_delta,
    worse_than_previous,
)
from skill_be.engine.stats import Interval
from skill_be.errors import ConfigError
from skill_be.reports.gate import rule_text


def line(base: tuple[int, int], head: tuple[int, int], critical: bool = True, status: str = COMPARED,
         scenario: str = "s1", name: str = "L") -> LineChange:  # fmt: skip
    return LineChange("m", scenario, name, critical, status, head, (0, head[1]), base)


@pytest.mark.parametrize(
    ("effect", "minimum", "rule", "blocks"),
    [
        (Interval(0.12, 0.03, 0.21), 10, "strict", False),  # the estimate reaches 10
        (Interval(0.12, 0.03, 0.21), 15, "strict", True),
        (Interval(0.12, 0.03, 0.21), 10, "evidence", True),  # the lower bound does not
        (Interval(0.12, 0.03, 0.21), 2, "evidence", False),
        (Interval(0.12, 0.03, 0.21), None, "evidence", False),  # off
        (None, 5, "strict", True),  # nothing scored: cannot be shown
    ],
)
def test_min_delta(effect: Interval | None, minimum: float | None, rule: str, blocks: bool) -> None:
    decided = short_of_min_delta(effect, minimum, rule)
    assert (decided is not None) is blocks
    if decided:
        assert isinstance(decided, ShortOfMinDelta) and decided.effect == effect
    if decided and effect:
        reason = rule_text(decided)
        assert reason.startswith("min delta: the overall effect over no skill is +12pp (+3 to +21); ")
        assert reason.endswith(f"must reach {minimum:g}pp (gate.minDelta)")


def test_previous_strict_blocks_any_critical_line_that_dropped() -> None:
    skill = SkillChange("demo", "compared", (
        line((5, 5), (4, 5)),  # critical, lower: counts
        line((5, 5), (1, 5), critical=False, name="N"),  # not critical
        line((5, 5), (0, 5), status=NOT_COMPARABLE, name="C"),  # its criteria changed
        line((3, 5), (5, 5), name="U"),  # better
    ))  # fmt: skip
    [worse] = worse_than_previous(skill, "strict")
    assert worse == WorseThanPrevious("s1", "m", "the base", line="L", base=(5, 5), head=(4, 5))
    assert rule_text(worse) == 'worse than the base: s1 / m — "L": 100% → 80% (-20pp)'
    assert previous_rule([skill], "block", "strict")["demo"].blocks
    assert blocking_rules(previous_rule([skill], "block", "strict")) == ["gate.previous"]
    assert previous_rule([skill], "warn", "strict")["demo"].warnings
    assert not previous_rule([skill], "warn", "strict")["demo"].blocks
    assert previous_rule([skill], "off", "strict") == {}


def test_previous_evidence_blocks_only_a_scenario_surely_worse() -> None:
    noisy = SkillChange("demo", "compared", (line((5, 5), (4, 5)),))
    assert worse_than_previous(noisy, "evidence") == []  # -20pp, its interval holds 0
    sure = SkillChange("demo", "compared", (line((10, 10), (0, 10)), line((10, 10), (1, 10), name="K")))
    [worse] = worse_than_previous(sure, "evidence")
    assert (worse.scenario, worse.model, worse.line) == ("s1", "m", None)
    assert rule_text(worse).startswith("worse than the base (evidence): s1 / m — the scenario's mean change -95pp (")


def test_config_keys_are_checked(tmp_path: Path) -> None:
    from skill_be.project.config import load_config

    base = "skills: ./skills\nevals: ./evals\nmodel:\n  adapter: command\n  id: m\n  run: x\ngrader:\n  adapter: command\n  id: g\n  run: x\n"
    ok = tmp_path / "ok.yaml"
    ok.write_text(base + "gate:\n  minDelta: 5\n  previous: block\n", encoding="utf-8")
    gate = load_config(ok).gate
    assert gate.min_delta == 5.0 and gate.previous == "block"
    assert load_config(_write(tmp_path, base)).gate.previous == "warn"
    # YAML 1.1 reads a bare `off` as false; quoted or not, it means off
    assert load_config(_write(tmp_path, base + "gate:\n  previous: off\n")).gate.previous == "off"
    assert load_config(_write(tmp_path, base + 'gate:\n  previous: "off"\n')).gate.previous == "off"
    with pytest.raises(ConfigError, match=r"gate\.previous"):
        load_config(_write(tmp_path, base + "gate:\n  previous: on\n"))  # true is no value of it
    with pytest.raises(ConfigError, match=r"gate\.previous"):
        load_config(_write(tmp_path, base + "gate:\n  previous: sometimes\n"))
    with pytest.raises(ConfigError, match=r"gate\.minDelta: must be between -100 and 100"):
        load_config(_write(tmp_path, base + "gate:\n  minDelta: 120\n"))


def _write(tmp: Path, text: str) -> Path:
    p = tmp / "c.yaml"
    p.write_text(text, encoding="utf-8")
    return p
