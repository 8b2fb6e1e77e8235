"""One answer across agents: a run on two models (the skill helps on one, not on the other) shows one
table per skill, a row per model, in the Markdown report, summary.json, results.html and the PR
comment; `gate.models` names the models that must hold."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from tests.e2e.run.helpers import Result, project, run, write

# m1 uses the skill; m2 answers the same either way, so the skill never helps there.
HELPED = "import sys\np = sys.stdin.read()\nprint('SKILLED allocate' if 'LIBRARY DOCS' in p else 'plain')\n"
UNHELPED = "import sys\nsys.stdin.read()\nprint('plain')\n"


def two_models(root: Path, gate: dict[str, object] | None = None) -> Path:
    config: dict[str, object] = {
        "model": [
            {"adapter": "command", "id": "m1", "run": f"{sys.executable} model.py"},
            {"adapter": "command", "id": "m2", "run": f"{sys.executable} unhelped.py"},
        ],
        "reps": 3,
    }
    if gate is not None:
        config["gate"] = gate
    project(root, model=HELPED, config=config)
    write(root / "unhelped.py", UNHELPED)
    return root


def rows_of(markdown: str) -> dict[str, list[str]]:
    """The table across models, read back: model -> its cells."""
    head = markdown.index("### Across models")
    lines = markdown[head:].splitlines()[2:]
    out = {}
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        out[cells[0]] = cells[1:]
    return out


def test_every_model_must_hold_by_default_and_the_table_says_where_the_skill_helps(tmp_path: Path) -> None:
    r = run(two_models(tmp_path), "run", "--html")
    # The reference's gate over both models: 0% on m2 alone is no universal 0%, so READY; the table
    # shows that on m2 alone the gate blocks.
    assert r.code == 0, r.stdout + r.stderr
    report = (r.run_dir() / "money.md").read_text()
    rows = rows_of(report)
    assert rows["m1"] == ["yes", "–", "0% (0/3)", "100% (3/3)", rows["m1"][4], "READY"]
    assert rows["m1"][4].startswith("+100pp (")
    assert rows["m2"] == ["yes", "–", "0% (0/3)", "0% (0/3)", rows["m2"][4], "NOT READY"]
    assert rows["m2"][4].startswith("+0pp (")
    assert "The verdict needs the skill to hold on every model." in report
    across = r.summary()["skills"]["money"]["across"]
    assert [(a["model"], a["required"], a["verdict"]) for a in across] == [
        ("m1", True, "READY"),
        ("m2", True, "NOT READY"),
    ]
    assert across[0]["withSkill"] == {"passed": 3, "total": 3} and across[1]["withSkill"] == {"passed": 0, "total": 3}
    assert_html_rows(r, {"m1": "READY", "m2": "NOT READY"})
    assert_comment_rows(r, {"m1": ("yes", "READY"), "m2": ("yes", "NOT READY")})


def test_gate_models_without_the_failing_model_is_ready_and_with_it_not(tmp_path: Path) -> None:
    """gate.models: each named model must hold on its own."""
    r = run(two_models(tmp_path / "a", {"models": ["m1"]}), "run")
    assert r.code == 0, r.stdout + r.stderr
    report = (r.run_dir() / "money.md").read_text()
    rows = rows_of(report)
    assert (rows["m1"][0], rows["m1"][-1]) == ("yes", "READY")
    assert (rows["m2"][0], rows["m2"][-1]) == ("no", "NOT READY")  # reported, not required
    assert "The verdict needs the skill to hold on m1 (gate.models); the others are reported." in report
    assert_comment_rows(r, {"m1": ("yes", "READY"), "m2": ("no", "NOT READY")})
    assert r.summary()["skills"]["money"]["ready"] is True
    # the control: requiring m2 blocks on it
    r = run(two_models(tmp_path / "b", {"models": ["m1", "m2"]}), "run")
    assert r.code == 1, r.stdout + r.stderr
    skill = r.summary()["skills"]["money"]
    assert skill["ready"] is False
    assert skill["why"] == [{"kind": "model", "source": "gate.models", "model": "m2"}]
    assert skill["reasons"] == ["gate.models: the skill must hold on m2, and the gate on m2 alone blocks"]
    assert "- **BLOCKED** (gate.models): gate.models: the skill must hold on m2" in r.stdout


def test_gate_models_naming_no_model_under_test_is_one_line_exit_2(tmp_path: Path) -> None:
    r = run(two_models(tmp_path, {"models": ["m3"]}), "run")
    assert r.code == 2
    assert r.stderr.strip().count("\n") == 0
    assert 'gate.models[0]: "m3" is not a model under test; name one of: m1, m2' in r.stderr


def assert_html_rows(r: Result, verdicts: dict[str, str]) -> None:
    page = (r.run_dir() / "results.html").read_text()
    table = page[page.index('class="across"') :]
    table = table[: table.index("</table>")]
    found = dict(re.findall(r"<tr><td>([^<]+)</td>.*?<td>(READY|NOT READY)</td></tr>", table, re.S))
    assert found == verdicts


def assert_comment_rows(r: Result, want: dict[str, tuple[str, str]]) -> None:
    """The PR comment and the check run (both render the action's view of summary.json)."""
    from skill_be.github.gather import skills_from_summary
    from skill_be.reports import check_run
    from skill_be.reports.pr_comment import GateView, comment
    from skill_be.results.summary_file import read_summary

    doc = read_summary(r.run_dir() / "summary.json")
    view = GateView("run", "pass", "Result: pass", tuple(skills_from_summary(doc, {}, r.root, r.root)))
    for body in (comment(view), check_run.summary(view)):
        assert "**money across models**" in body
        rows = rows_of(body.replace("**money across models**", "### Across models"))
        assert {m: (cells[0], cells[-1]) for m, cells in rows.items()} == want
        assert rows["m1"][2:4] == ["0% (0/3)", "100% (3/3)"]
