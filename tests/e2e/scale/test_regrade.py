"""`skill-be regrade`: an earlier run's answers graded again with today's criteria; nothing generated."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.run.helpers import project, run, table_rows
from tests.e2e.scale.helpers import COUNTING_GRADER, COUNTING_MODEL, TWO_SCENARIOS, calls, reset

XSD = Path(__file__).parents[2] / "fixtures" / "junit" / "junit-10.xsd"


def make(tmp_path: Path) -> Path:
    return project(tmp_path, skills=TWO_SCENARIOS, model=COUNTING_MODEL, grader=COUNTING_GRADER)


def edit_eval(root: Path, i: int, **changes: object) -> None:
    path = root / "evals" / "money.json"
    doc = json.loads(path.read_text())
    doc["scenarios"][i].update(changes)
    path.write_text(json.dumps(doc))


def test_regrade_after_editing_a_criterion_grades_the_same_answers_and_generates_nothing(tmp_path: Path) -> None:
    root = make(tmp_path)
    first = run(root, "run")
    assert first.code == 0, first.stderr
    earlier = first.run_dir()
    # "Uses money" -> "Uses plain": the baseline answers ("plain answer [...]") now pass, the skill's do not
    edit_eval(root, 1, criteria=["Uses plain"])
    reset(root)
    r = run(root, "regrade", "--junit", "regrade.xml")
    assert r.code == 1, r.stderr  # with the skill 0% on the only model: universal 0%
    assert calls(root) == {("grader", "Split a bill."): 4, ("grader", "Share a cost."): 4}
    assert table_rows(r.stdout) == [["Uses allocate", "0%", "100%", "+100pp"], ["Uses plain", "100%", "0%", "-100pp"]]
    assert f"Regrade: the answers of run {earlier.name}, graded again with today's criteria" in r.stdout
    later = r.run_dir()
    assert later != earlier
    assert r.summary()["regradeOf"] == str(earlier.resolve())
    # the answers are the earlier run's, byte for byte
    for f in earlier.rglob("rep-*-*.md"):
        if ".grading-" not in f.name:
            assert (later / f.relative_to(earlier)).read_bytes() == f.read_bytes()
    assert r.result_file()["skills"]["money"]["ready"] is False
    assert (root / "regrade.xml").read_text().count("<failure") == 2  # the line, and the gate
    # and verify agrees with the verdict regrade recorded
    assert run(root, "verify").code == 1


def test_a_scenario_whose_prompt_changed_is_refused_with_one_line(tmp_path: Path) -> None:
    root = make(tmp_path)
    assert run(root, "run").code == 0
    before = json.loads((root / "skill-be.result.json").read_text())["skills"]["money"]
    edit_eval(root, 1, prompt="Share a cost fairly.")
    reset(root)
    r = run(root, "regrade")
    assert r.code == 0, r.stderr
    refused = [line for line in r.stderr.splitlines() if "refused:" in line]
    assert len(refused) == 1
    assert refused[0].startswith("regrade: money/share: refused: its prompt changed since run ")
    assert calls(root) == {("grader", "Split a bill."): 4}
    assert "### Scenario: share" not in r.stdout and "### Scenario: split" in r.stdout
    # a verdict on part of the scenarios does not stand for the skill in the result file
    after = json.loads((root / "skill-be.result.json").read_text())["skills"]["money"]
    keys = ("date", "fingerprint", "ready", "reasons", "models", "grader")
    assert {k: after[k] for k in keys} == {k: before[k] for k in keys}  # the earlier entry, not a new verdict
    assert "regrade: money: the result file keeps its earlier entry" in r.stderr


def test_regrade_refuses_answers_given_another_skill_text_and_names_a_missing_run(tmp_path: Path) -> None:
    root = make(tmp_path)
    r = run(root, "regrade")
    assert r.code == 2 and "no earlier run to regrade" in r.stderr
    assert run(root, "run").code == 0
    (root / "skills" / "money" / "SKILL.md").write_text("---\nname: money\n---\n# Money\n\nUse `allocate` always.\n")
    reset(root)
    r = run(root, "regrade")
    assert r.code == 2, r.stderr
    assert r.stderr.count("refused: the prompt its answers were given changed since run") == 2
    assert "no scenario of these skills can be regraded" in r.stderr
    assert calls(root) == {}
    r = run(root, "regrade", "--run", "nowhere")
    assert r.code == 2 and "nowhere: not a run folder (it has no summary.json)" in r.stderr


def test_regrade_of_a_named_run(tmp_path: Path) -> None:
    root = make(tmp_path)
    first = run(root, "run").run_dir()
    assert run(root, "run").code == 0
    reset(root)
    r = run(root, "regrade", "--run", str(first))
    assert r.code == 0, r.stderr
    assert f"the answers of run {first.name}" in r.stdout
    assert sum(n for (who, _), n in calls(root).items() if who == "model") == 0
