"""Grading edge cases through the command line: retries, majority, ties, unparseable replies."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.run.helpers import project, run, table_rows

from skill_be.reports import strings as s

SC = [{"id": "split", "prompt": "Split a bill.", "criteria": ["Uses allocate", "Uses money"]}]


def grader_replying(*replies: str) -> str:
    """A grader that gives reply i on its i-th call (counted in a file), then repeats the last one."""
    return f"""
import fcntl, sys
sys.stdin.read()
replies = {list(replies)!r}
with open("calls", "a+") as f:  # two gradings run at once: count under a lock
    fcntl.flock(f, fcntl.LOCK_EX)
    f.seek(0)
    n = len(f.read())
    f.write("x")
print(replies[min(n, len(replies) - 1)])
"""


def test_unparseable_then_good_is_retried_once_and_both_replies_are_kept(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        skills={"money": SC},
        grader=grader_replying("no block here", "VERDICTS:\n1: YES\n2: YES"),
        config={"reps": 1, "concurrency": 1},
    )
    r = run(root, "run")
    assert len((root / "calls").read_text()) == 3  # baseline: 2 attempts; with skill: 1
    folder = r.run_dir() / "money" / "split" / "m1"
    first = next(folder.glob("*.grading-1.attempt-1.md"))
    assert first.read_text().strip() == "no block here"
    assert "[ERROR]" not in r.stdout


def test_failing_twice_is_an_error_and_counts_as_zero(tmp_path: Path) -> None:
    root = project(tmp_path, skills={"money": SC}, grader=grader_replying("VERDICTS:\n1: YES"), config={"reps": 1})
    r = run(root, "run")
    assert r.code == 3  # every grading failed: ERROR, not a verdict (issue 20)
    assert "every grading failed (grading 1: unparseable reply: no verdict for criterion 2)" in r.stdout
    assert s.ERROR_LINE.format(n=2) in r.stdout
    assert r.stdout.rstrip().endswith(
        "Result: error, could not measure money: every call of the grader failed: "
        "unparseable reply: no verdict for criterion 2 (2x)"
    )


def test_decoy_verdicts_before_the_real_block_do_not_count(tmp_path: Path) -> None:
    reply = "Draft: VERDICTS:\n1: NO\n2: NO\nOn reflection the answer is fine.\nVERDICTS:\n1: YES\n2: YES"
    root = project(tmp_path, skills={"money": SC}, grader=grader_replying(reply))
    r = run(root, "run")
    assert r.code == 0, r.stdout
    assert [row[1:3] for row in table_rows(r.stdout)] == [["100%", "100%"], ["100%", "100%"]]


def test_repeated_or_out_of_range_criteria_are_unparseable(tmp_path: Path) -> None:
    for reply, why in (
        ("VERDICTS:\n1: YES\n1: NO\n2: YES", "criterion 1 appears twice"),
        ("VERDICTS:\n1: YES\n2: YES\n3: YES", "criterion 3 is out of range (1-2)"),
    ):
        root = project(
            tmp_path / why.split()[1], skills={"money": SC}, grader=grader_replying(reply), config={"reps": 1}
        )
        r = run(root, "run")
        assert r.code == 3  # every grading failed: ERROR (issue 20)
        assert why in r.stdout


def test_majority_of_three_and_a_tie_of_two(tmp_path: Path) -> None:
    # gradings: 3 -> replies YES/NO, YES/YES, NO/YES per criterion: majority YES, YES
    three = grader_replying("VERDICTS:\n1: YES\n2: NO", "VERDICTS:\n1: YES\n2: YES", "VERDICTS:\n1: NO\n2: YES")
    root = project(
        tmp_path / "three", skills={"money": SC}, grader=three, config={"reps": 1, "gradings": 3, "concurrency": 1}
    )
    r = run(root, "run", "--reps=1")
    rows = table_rows(r.stdout)
    assert rows[0][1] == "100%" and rows[1][1] == "100%"
    # gradings: 2 with 1-1 on criterion 1: NO, with a note
    two = grader_replying("VERDICTS:\n1: YES\n2: YES", "VERDICTS:\n1: NO\n2: YES")
    root = project(
        tmp_path / "two", skills={"money": SC}, grader=two, config={"reps": 1, "gradings": 2, "concurrency": 1}
    )
    r = run(root, "run")
    assert table_rows(r.stdout)[0][1] == "0%"
    assert "criterion 1: the gradings split 1-1; counted as NO" in r.stdout
    assert "- **[NOTE]** rep 1 baseline" in r.stdout


def test_one_failed_grading_is_left_out_of_the_vote(tmp_path: Path) -> None:
    # Per answer: the first grading call succeeds, the next two (the other grading and its retry) fail.
    grader = """
import os, sys
p = sys.stdin.read()
key = "calls-skilled" if "SKILLED" in p.rpartition("<answer>")[2] else "calls-plain"
n = int(open(key).read()) if os.path.exists(key) else 0
open(key, "w").write(str(n + 1))
print("VERDICTS:\\n1: YES\\n2: YES" if n == 0 or n > 2 else "garbage")
"""
    root = project(tmp_path, skills={"money": SC}, grader=grader, config={"reps": 1, "gradings": 2, "concurrency": 1})
    r = run(root, "run")
    notes = [
        line
        for line in r.stdout.splitlines()
        if "failed (unparseable reply: no VERDICTS: line) and is left out" in line
    ]
    # Each arm's answer gets one good grading and one that fails twice: one note per arm, no error.
    assert sorted(n.split(":")[0] for n in notes) == ["- **[NOTE]** rep 1 baseline", "- **[NOTE]** rep 1 with skill"], (
        r.stdout
    )
    assert "[ERROR]" not in r.stdout
    assert table_rows(r.stdout)[0][1] == "100%"
