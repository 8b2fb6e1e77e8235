"""`skill-be run` with an auditable judge, as a user runs it: two judges (`grader` as a list) that
quote the answer, one of them inventing a quote; the same-family warning; the evidence, the
judges' disagreement and the agreement figure in the report, summary.json and results.html."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support import cli

CONFIG = """\
skills: ./skills
evals: ./evals
model: {adapter: command, id: claude-sonnet-4-5, run: python3 model.py}
grader:
  - {adapter: command, id: claude-opus-4, run: python3 grader.py honest, template: evidence, evidence: required}
  - {adapter: command, id: other-judge, run: python3 grader.py inventive}
gradings: 1
reps: 2
compare:
  pairwise: true
checks:
  typecheck: false
"""

MODEL = """import sys
prompt = sys.stdin.read()
print("Use allocate(10, [1, 1, 1]) and check the sum." if "allocate" in prompt else "Use a loop.")
"""

# honest: quotes the answer where the rule holds; inventive: says YES to everything with a made-up quote.
GRADER = """import re, sys
prompt = sys.stdin.read()
if "PREFERENCES:" in prompt:  # the blind A/B: the answer with allocate( is better on both criteria
    a = prompt.split("<answer_a>")[1].split("</answer_a>")[0]
    pick = "A" if "allocate(" in a else "B"
    print(f"PREFERENCES:\\n1: {pick}\\n2: {pick}")
    sys.exit(0)
answer = prompt.rpartition("<answer>")[2].rpartition("</answer>")[0]
criteria = re.findall(r"^(\\d+)\\. (.+)$", prompt.split("Criteria:")[-1].split("<answer>")[0], re.M)
lines = []
for n, c in criteria:
    word = "allocate(10, [1, 1, 1])" if "allocate" in c else "check the sum"
    if sys.argv[1] == "honest":
        lines.append(f'{n}: YES "{word}"' if word in answer else f'{n}: NO ""')
    else:
        lines.append(f'{n}: YES "a quote that is nowhere"')
print("VERDICTS:\\n" + "\\n".join(lines))
"""


def test_two_judges_with_evidence_in_every_format(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "skills" / "money").mkdir(parents=True)
    (root / "skills" / "money" / "SKILL.md").write_text(
        "---\nname: money\ndescription: Money.\n---\n# money\nUse allocate.\n"
    )
    (root / "evals").mkdir()
    scenario = {"id": "split", "prompt": "Split 10 in three.", "criteria": ["Uses allocate", "Checks the sum"]}
    (root / "evals" / "money.json").write_text(json.dumps({"scenarios": [scenario]}))
    (root / "skill-be.yaml").write_text(CONFIG)
    (root / "model.py").write_text(MODEL)
    (root / "grader.py").write_text(GRADER)
    done = cli.skill_be(root, "run", "--html", "--comment", "comment.md", drop=("SKILL_BE_", "CI"))
    assert done.returncode in (0, 1), done.stdout + done.stderr
    # The pull request comment (and so the check run) carries the blind A/B's preference too.
    comment = (root / "comment.md").read_text()
    assert "- **money**: blind A/B, the judge prefers the skill's answer: 100%, " in comment
    assert (
        "the judge claude-opus-4 and the model under test claude-sonnet-4-5 are both Anthropic models: a judge "
        "tends to favour its own family's answers" in done.stderr
    )
    assert "other-judge" not in done.stderr.split("favour")[0]  # an unknown family is not warned about
    run = next((root / ".skill-be" / "results").glob("*/summary.json")).parent
    doc = json.loads((run / "summary.json").read_text())
    assert [g["label"] for g in doc["graders"]] == ["claude-opus-4", "other-judge"]
    out = doc["skills"]["money"]["scenarios"][0]["models"]["claude-sonnet-4-5"]["outputs"]
    base = next(o for o in out if o["arm"] == "baseline")
    # the inventive judge's YES has no evidence found: under required it counts as NO
    assert [g["judge"] for g in base["gradings"]] == ["claude-opus-4", "other-judge"]
    assert base["gradings"][1]["evidence"][0] == {"said": True, "quote": "a quote that is nowhere", "found": False}
    assert base["gradings"][1]["verdicts"] == [False, False] and base["verdicts"] == [False, False]
    judge = doc["skills"]["money"]["judge"]
    assert judge["graded"] == 8 and judge["agreed"] == 4  # the judges (as they said it) split on every baseline
    lines = {x["line"]: x for x in judge["lines"]}
    assert lines["Uses allocate"]["judgesApart"] == 2 and lines["Uses allocate"]["judged"] == 4
    assert lines["Uses allocate"]["flagged"]
    report = (run / "money.md").read_text()
    assert "Grading: majority of 1 calls of each judge (claude-opus-4, other-judge) per output." in report
    assert "the judge disagrees with itself on 2 of 4 answers: sharpen the criterion" in report
    assert "Judge agreement: 50% (4 of 8 graded criteria had every grading agree)" in report
    assert "`a quote that is nowhere` (evidence not found)" in report
    pairwise = doc["skills"]["money"]["pairwise"]
    assert pairwise["preference"]["estimate"] == 100.0 and pairwise["preference"]["pairs"] == 2
    assert [c["rep"] for c in pairwise["comparisons"]] == [1, 2]
    assert all(c["a"] in ("baseline", "with-skill") for c in pairwise["comparisons"])  # the order, recorded
    assert "the judge prefers the skill's answer: 100%, " in report and "beside the pass-rate delta" in report
    page = (run / "results.html").read_text()
    assert "<mark>allocate(10, [1, 1, 1])</mark>" in page and "evidence not found" in page
    assert "judge agreement 50%" in page and "blind A/B: prefers the skill&#39;s answer: 100%" in page
