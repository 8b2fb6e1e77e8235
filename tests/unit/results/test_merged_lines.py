"""merge names a scenario's lines as one unsharded run does, whichever shard ran it."""

from __future__ import annotations

from skill_be.codetests.outcome import TestResult, TestRun
from skill_be.commands.merge import merged_lines
from skill_be.engine.observations import Output

PLAIN = ["check: grader", "skill loaded"]  # what a shard that did not run the scenario lists
EXPANDED = ("check: grader › verified", "check: grader › code-fixed", "skill loaded")


def out(scenario: str, *lines: str) -> Output:
    tests = TestRun(tuple(TestResult(n, True, None) for n in lines)) if lines else None
    return Output(scenario=scenario, model="m", rep=1, arm="with-skill", text="x", tests=tests)


def test_the_json_lines_entries_survive_a_shard_that_did_not_run_the_scenario() -> None:
    ran = ({"fix": list(EXPANDED), "other": ["check: a"]}, [out("fix", *EXPANDED)])
    idle = ({"fix": PLAIN, "other": ["check: a"]}, [out("other", "check: a")])
    for order in ([ran, idle], [idle, ran]):
        assert merged_lines("fix", order) == EXPANDED
    # control: with no shard that ran it, the scenario keeps its plain lines
    assert merged_lines("fix", [idle]) == tuple(PLAIN)
    assert merged_lines("other", [ran, idle]) == ("check: a",)


def test_entries_seen_in_two_shards_are_grouped_as_one_run_groups_them() -> None:
    a = ({"fix": ["check: grader › verified", "skill loaded"]}, [out("fix", "check: grader › verified")])
    b = ({"fix": ["check: grader › code-fixed", "skill loaded"]}, [out("fix", "check: grader › code-fixed")])
    assert merged_lines("fix", [a, b]) == EXPANDED
