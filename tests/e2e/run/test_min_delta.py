"""gate.minDelta decided by `run` itself (issue 19, item 3): the skill's overall effect over no skill
must reach N points; the reason is in the report's Release Gate and the result file."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.e2e.run.helpers import project, run

# The skill helps `split` (+100pp) and leaves `plain` as it was (100% in both arms): overall +50pp.
MODEL = """
import sys
print("SKILLED allocate answer" if "LIBRARY DOCS" in sys.stdin.read() else "plain answer")
"""
SCENARIOS = [
    {"id": "split", "critical": True, "prompt": "Split a bill.", "criteria": ["Uses allocate"]},
    {"id": "plain", "critical": False, "prompt": "Say it plainly.", "criteria": ["Gives an answer"]},
]


@pytest.mark.parametrize(("minimum", "code"), [(60, 1), (40, 0)])
def test_run_blocks_a_skill_whose_overall_effect_falls_short(tmp_path: Path, minimum: int, code: int) -> None:
    root = project(tmp_path, skills={"money": SCENARIOS}, model=MODEL, config={"gate": {"minDelta": minimum}})
    r = run(root, "run")
    assert r.code == code, r.stdout + r.stderr
    reasons = r.result_file()["skills"]["money"]["reasons"]
    if code == 1:
        [reason] = reasons
        assert reason.startswith("min delta: the overall effect over no skill is +50pp (")
        assert reason.endswith("; it must reach 60pp (gate.minDelta)")
        assert f"- **BLOCKED** (gate.minDelta): {reason}" in (r.run_dir() / "money.md").read_text()
    else:  # the control: the same skill with a minimum it reaches is READY
        assert reasons == []
