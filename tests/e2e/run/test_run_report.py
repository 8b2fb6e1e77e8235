"""`skill-be run` end to end with scripted models: the report, the files, the result file."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.run.helpers import project, run, table_rows

from skill_be.reports import strings as s


def test_ready_run_writes_report_run_dir_summary_and_result_file(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        skills={
            "money": [
                {
                    "id": "split",
                    "critical": True,
                    "prompt": "Split a bill.",
                    "criteria": ["Uses allocate", "Uses money"],
                },
                {"id": "other", "prompt": "Line one.\nLine two.", "criteria": ["Writes money"]},
            ]
        },
    )
    r = run(root, "run")
    assert r.code == 0, r.stderr
    out = r.stdout
    assert "## Release Gate\n\n" + s.READY_LINE in out
    assert "### Scenario: split *(critical)*" in out
    assert "### Scenario: other\n" in out
    assert "*Line one.*\n*Line two.*" in out
    assert (
        "Method: automated eval. Models: command:m1. Reps: 2. Grading: majority of 1 judge calls per output (via command)."
        in out
    )
    assert s.NO_TOOLS_NOTE in out
    assert s.TABLE_HEAD in out
    rows = table_rows(out)
    assert rows == [
        ["Uses allocate", "0%", "100%", "+100pp"],
        ["Uses money", "0%", "100%", "+100pp"],
        ["Writes money", "0%", "100%", "+100pp"],
    ]
    # The closing summary's last line matches the exit code.
    lines = out.rstrip("\n").splitlines()
    assert lines[-1] == "Result: pass"
    assert "Skills:\n  money: READY" in out
    # The run directory, exactly as documented.
    d = r.run_dir()
    assert (d / "money.md").read_text().startswith("## ")
    for rep in (1, 2):
        for arm in ("baseline", "with-skill"):
            base = d / "money" / "split" / "m1" / f"rep-{rep}-{arm}.md"
            assert base.is_file()
            assert (base.parent / f"rep-{rep}-{arm}.grading-1.md").read_text().count("VERDICTS:") == 1
    # The baseline prompt never held the skill: the scripted model answered "plain answer" there.
    assert (d / "money" / "split" / "m1" / "rep-1-baseline.md").read_text().strip() == "plain answer"
    summary = r.summary()
    money = summary["skills"]["money"]
    assert money["ready"] is True
    lines_ = money["scenarios"][0]["models"]["m1"]["lines"]
    assert lines_[0] == {
        "line": "Uses allocate",
        "kind": "criterion",
        "baseline": 0,
        "withSkill": 100,
        "delta": 100,
        # issue 12: the counts and the delta's 95% interval (Newcombe's hybrid score, 0/2 vs 2/2)
        "counts": {"baseline": [0, 2], "withSkill": [2, 2]},
        "deltaInterval": {"estimate": 100.0, "low": 7.0, "high": 100.0},
        "effect": "better",
    }
    outputs = money["scenarios"][0]["models"]["m1"]["outputs"]
    assert {(o["rep"], o["arm"]) for o in outputs} == {
        (1, "baseline"),
        (1, "with-skill"),
        (2, "baseline"),
        (2, "with-skill"),
    }
    assert outputs[0]["gradings"][0]["reasons"] == "I looked."
    assert summary["checks"][0]["lines"] == ["typecheck: off"]
    entry = r.result_file()["skills"]["money"]
    assert (
        entry["ready"] is True and entry["reasons"] == [] and entry["models"] == ["m1"] and entry["grader"] == "judge"
    )
    assert entry["fingerprint"].startswith("v2:") and len(entry["fingerprint"]) == 67  # issue 20: version 2
    # verify agrees with the run it recorded.
    v = run(root, "verify")
    assert v.code == 0, v.stdout + v.stderr
    assert v.stdout.splitlines()[-1] == "Result: pass"


def test_progress_lines_on_stderr_when_not_a_terminal(tmp_path: Path) -> None:
    r = run(project(tmp_path), "run")
    err = r.stderr.splitlines()
    assert err[0] == "money: 1 scenarios × 1 model(s) × 2 reps, concurrency 4"
    assert any(line.startswith("  [split] m1 rep ") and " baseline: 0/1 YES (" in line for line in err)
    assert any(" with skill: 1/1 YES (" in line for line in err)
    assert any(line.startswith("  [split] m1 rep ") and " done (2/2 reps, " in line for line in err)
    assert err[-1].startswith("money: finished in ")
    assert "\x1b[" not in r.stderr


def test_reps_and_concurrency_options_apply_to_that_run(tmp_path: Path) -> None:
    r = run(project(tmp_path), "run", "--reps=3", "--concurrency", "2")
    assert r.code == 0, r.stderr
    assert "Reps: 3." in r.stdout
    assert "concurrency 2" in r.stderr
    files = list((r.run_dir() / "money" / "split" / "m1").glob("rep-*-baseline.md"))
    assert len(files) == 3
    assert r.summary()["concurrency"] == 2


def test_custom_template_and_grader_prompt(tmp_path: Path) -> None:
    model = """
import sys
p = sys.stdin.read()
open("prompts.log", "a").write(p + "\\n=====\\n")
print("allocate")
"""
    grader = """
import sys
p = sys.stdin.read()
open("grader.log", "a").write(p)
print("VERDICTS:\\n1: YES")
"""
    root = project(
        tmp_path,
        model=model,
        grader=grader,
        config={
            "withSkillTemplate": "RULES START\n{{skill}}\nRULES END\nDo: {{task}}",
            "graderPrompt": "You judge documents.\n\nRules:\n- be fair",
            "reps": 1,
        },
    )
    r = run(root, "run")
    assert r.code == 0, r.stderr
    prompts = (root / "prompts.log").read_text().split("\n=====\n")
    assert "Split a bill." in prompts
    skilled = next(p for p in prompts if "RULES START" in p)
    assert skilled.startswith("RULES START\n---\nname: money\ndescription: Test skill money.\n---\n# Money")
    assert skilled.endswith("RULES END\nDo: Split a bill.")
    g = (root / "grader.log").read_text()
    assert g.startswith(
        "You judge documents.\n\nRules:\n- be fair\n\nCriteria:\n1. Uses allocate\n\n<answer>\nallocate\n</answer>"
    )
    assert "VERDICTS:" in g and "strict code evaluator" not in g


def test_partial_rerun_replaces_only_that_skills_entry(tmp_path: Path) -> None:
    sc = [{"id": "split", "prompt": "Split a bill.", "criteria": ["Uses allocate"]}]
    root = project(tmp_path, skills={"alpha": sc, "beta": sc})
    assert run(root, "run").code == 0
    first = json.loads((root / "skill-be.result.json").read_text())
    (root / "skills" / "alpha" / "SKILL.md").write_text("---\nname: alpha\n---\nChanged: allocate\n")
    assert run(root, "verify").code == 1
    r = run(root, "run", "alpha")
    assert r.code == 0, r.stderr
    second = json.loads((root / "skill-be.result.json").read_text())
    assert second["skills"]["beta"] == first["skills"]["beta"]
    assert second["skills"]["alpha"]["fingerprint"] != first["skills"]["alpha"]["fingerprint"]
    assert "### Scenario" in r.stdout and "beta" not in r.stdout.split("Skills:")[1]
    assert run(root, "verify").code == 0


def test_unknown_skill_name_is_a_usage_error(tmp_path: Path) -> None:
    r = run(project(tmp_path), "run", "nope")
    assert r.code == 2
    assert 'skill "nope"' in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "skill-be.result.json").exists()


def test_html_page_holds_every_answer_escaped_and_loads_nothing(tmp_path: Path) -> None:
    model = """
import sys
p = sys.stdin.read()
print("allocate <script>alert('x')</script>" if "LIBRARY DOCS" in p else "plain <img src=x onerror=alert(1)>")
"""
    root = project(tmp_path, model=model)
    r = run(root, "run", "--html")
    assert r.code == 0, r.stderr
    page = (r.run_dir() / "results.html").read_text()
    assert "results.html" in r.stdout.split("Written:")[1]
    for tag in ("<script", "<img", "<link", "<iframe", "http://", "https://"):
        assert tag not in page, tag
    assert "allocate &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in page
    assert "READY" in page and "Uses allocate" in page and "VERDICTS:" in page
    assert page.count('class="arm-baseline"') == 2 and page.count('class="arm-with-skill"') == 2


def test_without_html_no_page_is_written(tmp_path: Path) -> None:
    r = run(project(tmp_path), "run")
    assert not (r.run_dir() / "results.html").exists()
