"""`skill-be triage` with scripted models: failing lines of the latest run get fresh samples, graded
with reasons, and a proposed category."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.e2e.run.helpers import project, run, write

SC = [
    {"id": "split", "critical": True, "prompt": "Split a bill.", "criteria": ["Uses allocate", "Uses format"]},
]
# The model: with the skill it uses allocate but never format; as the classifier it names a category.
MODEL = """
import sys
p = sys.stdin.read()
if "Categories:" in p:
    open("classifier.log", "a").write(p)
    print("The samples never format.\\nCATEGORY: skill gap\\nREASON: the skill never says to use format")
elif "LIBRARY DOCS" in p:
    print("SKILLED allocate")
else:
    print("plain answer")
"""


def test_triage_classifies_the_blocking_line_and_writes_its_report(tmp_path: Path) -> None:
    root = project(tmp_path, skills={"money": SC}, model=MODEL)
    assert run(root, "run").code == 1  # "Uses format" is 0% with the skill: NOT READY
    r = run(root, "triage", "--samples=3")
    assert r.code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "Triage: 1 failure(s)"
    assert lines[1] == '  money [split] m1 "Uses format": skill gap — the skill never says to use format'
    assert lines[-1].startswith("Report: .skill-be/results/") and lines[-1].endswith(".md")
    report = (root / lines[-1].removeprefix("Report: ")).read_text()
    assert report.count("### Sample ") == 3 and "**Proposal:** skill gap" in report
    prompt = (root / "classifier.log").read_text()
    assert "The criterion: Uses format" in prompt and "<skill>" in prompt and "Split a bill." in prompt


def test_below_adds_weak_lines_and_a_separate_classifier_model_is_used(tmp_path: Path) -> None:
    classifier = write(
        tmp_path / "classifier.py", 'import sys\nsys.stdin.read()\nprint("CATEGORY: model choice\\nREASON: fine")\n'
    )
    root = project(
        tmp_path,
        skills={"money": SC},
        model=MODEL,
        config={"triage": {"model": {"adapter": "command", "id": "cls", "run": f"{sys.executable} {classifier.name}"}}},
    )
    alternating = MODEL.replace(
        'print("SKILLED allocate")',
        'import os\n    n = len(open("n").read()) if os.path.exists("n") else 0\n    open("n", "a").write("x")\n'
        '    print("SKILLED allocate" if n % 2 == 0 else "SKILLED")',
    )
    write(root / "model.py", alternating)
    run(root, "run", "--concurrency=1")  # with the skill: allocate 50%, format 0%
    r = run(root, "triage", "--below", "80")
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines()[0] == "Triage: 2 failure(s)"
    assert '"Uses allocate": model choice — fine' in r.stdout and '"Uses format": model choice — fine' in r.stdout
    assert not (root / "classifier.log").exists()


def test_an_unreadable_classification_is_unclassified_and_ready_runs_triage_nothing(tmp_path: Path) -> None:
    mumbling = MODEL.replace(
        'print("The samples never format.\\nCATEGORY: skill gap\\nREASON: the skill never says to use format")',
        'print("hmm")',
    )
    root = project(tmp_path, skills={"money": SC}, model=mumbling)
    run(root, "run")
    r = run(root, "triage")
    assert r.code == 0
    assert '"Uses format": unclassified (the classification could not be read)' in r.stdout


def test_triage_without_a_run_is_exit_2(tmp_path: Path) -> None:
    r = run(project(tmp_path), "triage")
    assert r.code == 2
    assert 'no earlier run to triage (no summary.json); run "skill-be run" first' in r.stderr
    assert run(project(tmp_path / "b"), "triage", "--below", "150").code == 2


def test_a_failing_code_test_is_triaged_with_its_failure_message_and_test_source(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "signup"
    shutil.copytree(Path(__file__).resolve().parents[3] / "examples" / "signup", root,
                    ignore=shutil.ignore_patterns(".skill-be"))  # fmt: skip
    model = (root / "demo" / "model.py").read_text()
    # A model that ignores the skill: its tests fail with it too; as the classifier it logs and answers.
    model = model.replace('with_skill = "--- CONVENTIONS ---" in prompt', "with_skill = False")
    model = model.replace(
        "import sys\n",
        'import sys\nif "Categories:" in (p := sys.stdin.read()):\n'
        '    open("classifier.log", "a").write(p)\n'
        '    print("CATEGORY: skill gap\\nREASON: the samples answer 200")\n    sys.exit(0)\n'
        "sys.stdin = __import__('io').StringIO(p)\n",
        1,
    )
    (root / "demo" / "model.py").write_text(model)
    env = {"CI": "", "NO_COLOR": "1"}
    assert run(root, "run", "--config", "skill-be.demo.yaml", env=env).code == 1
    r = run(root, "triage", "--config", "skill-be.demo.yaml", "--samples", "1", env=env)
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines()[0] == "Triage: 3 failure(s)"
    assert (
        '"[test] answers 201 with the new user when the input is valid": skill gap — the samples answer 200' in r.stdout
    )
    prompt = (root / "classifier.log").read_text()
    assert "The code test: [test] answers" in prompt and "<test-file>" in prompt and "200 !== 201" in prompt
    assert "test error" in prompt and "grader error" not in prompt
