"""`run --dry-run` against the calls a real run then makes, and `run --junit` against the JUnit schema."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import xmlschema
from tests.e2e.run.helpers import project, run
from tests.e2e.scale.helpers import COUNTING_GRADER, COUNTING_MODEL, calls, reset

XSD = Path(__file__).parents[2] / "fixtures" / "junit" / "junit-10.xsd"

SKILLS = {
    "money": [
        {"id": "split", "critical": True, "prompt": "Split a bill.", "criteria": ["Uses allocate", "Uses money"]},
        {"id": "share", "prompt": "Share a cost.", "criteria": ["Uses nothing-at-all"]},
    ],
    "dates": [{"id": "parse", "prompt": "Parse a date.", "criteria": ["Uses allocate"]}],
}


def two_models(root: Path) -> dict[str, object]:
    run_line = f"{sys.executable} model.py"
    return {
        "model": [
            {"adapter": "command", "id": "m1", "run": run_line},
            {"adapter": "command", "id": "m2", "run": run_line, "temperature": 0.5},
        ],
        "gradings": 3,
    }


def total_line(stdout: str) -> tuple[int, int, int, int]:
    m = re.search(r"Total: (\d+) generations \+ (\d+) gradings = (\d+) calls; the cache holds (\d+)", stdout)
    assert m, stdout
    return tuple(int(x) for x in m.groups())  # type: ignore[return-value]


def test_the_dry_run_counts_the_calls_a_real_run_then_makes_and_calls_nothing(tmp_path: Path) -> None:
    root = project(tmp_path, skills=SKILLS, model=COUNTING_MODEL, grader=COUNTING_GRADER)
    root = project(tmp_path, skills=SKILLS, model=COUNTING_MODEL, grader=COUNTING_GRADER, config=two_models(root))
    dry = run(root, "run", "--dry-run", "--cache")
    assert dry.code == 0, dry.stderr
    assert calls(root) == {} and not (root / ".skill-be" / "results").exists()
    # 3 scenarios x 2 models x 2 reps x 2 arms = 24 generations, each graded 3 times
    assert total_line(dry.stdout) == (24, 72, 96, 0)
    assert "  money: 16 generations + 48 gradings = 64 calls; the cache holds 0, 64 to make; about " in dry.stdout
    assert "  dates: 8 generations + 24 gradings = 32 calls; the cache holds 0, 32 to make; about " in dry.stdout
    real = run(root, "run", "--cache")
    assert real.code in (0, 1), real.stderr
    made = calls(root)
    assert sum(n for (who, _), n in made.items() if who == "model") == 24
    assert sum(n for (who, _), n in made.items() if who == "grader") == 72
    # afterwards the dry run finds every call in the cache
    reset(root)
    again = run(root, "run", "--dry-run", "--cache")
    assert total_line(again.stdout) == (24, 72, 96, 96) and "96 to make" not in again.stdout
    assert calls(root) == {}
    # one scenario edited: the dry run knows exactly what the real run will call
    evals = (root / "evals" / "dates.json").read_text().replace("Parse a date.", "Parse a date, strictly.")
    (root / "evals" / "dates.json").write_text(evals)
    edited = run(root, "run", "--dry-run", "--cache")
    assert total_line(edited.stdout) == (24, 72, 96, 64)
    assert run(root, "run", "--cache").code in (0, 1)
    assert sum(calls(root).values()) == 32


def test_a_dry_run_checks_everything_first(tmp_path: Path) -> None:
    root = project(tmp_path, config={"model": {"adapter": "command", "id": "m1", "run": "./no-such-model"}})
    r = run(root, "run", "--dry-run")
    # issue 20: a dry run calls nothing, so a model that cannot start is a note, not exit 2
    assert r.code == 0 and 'cannot start "./no-such-model"' in r.stderr and "a real run stops here" in r.stderr
    assert r.code == 0 and "Dry run: nothing is called" in r.stdout
    assert run(root, "run").code == 2  # the real run still stops before the first call
    bad = root / "skill-be.yaml"
    bad.write_text(bad.read_text().replace("gradings: 1", "gradings: 0"))
    assert run(root, "run", "--dry-run").code == 2  # a config mistake still stops it


def test_junit_has_a_suite_per_skill_a_case_per_line_and_model_and_validates(tmp_path: Path) -> None:
    root = project(tmp_path, skills=SKILLS, model=COUNTING_MODEL, grader=COUNTING_GRADER)
    root = project(tmp_path, skills=SKILLS, model=COUNTING_MODEL, grader=COUNTING_GRADER, config=two_models(root))
    r = run(root, "run", "--junit", "reports/skill-be.xml")
    assert r.code == 1, r.stderr  # "Uses nothing-at-all" is 0% with the skill on every model
    assert "  reports/skill-be.xml\nResult: blocked by the release gate (NOT READY: money)" in r.stdout
    text = (root / "reports" / "skill-be.xml").read_text()
    xmlschema.XMLSchema(str(XSD)).validate(text)
    doc = ET.fromstring(text)
    suites = {s.get("name"): s for s in doc.findall("testsuite")}
    assert list(suites) == ["dates", "money"]
    money = suites["money"]
    names = [(c.get("classname"), c.get("name")) for c in money.findall("testcase")]
    assert names == [
        ("money.m1", "split / Uses allocate"),
        ("money.m1", "split / Uses money"),
        ("money.m2", "split / Uses allocate"),
        ("money.m2", "split / Uses money"),
        ("money.m1", "share / Uses nothing-at-all"),
        ("money.m2", "share / Uses nothing-at-all"),
        ("money", "Release Gate"),
    ]
    failing = [c.get("name") for c in money.findall("testcase") if c.find("failure") is not None]
    assert failing == ["share / Uses nothing-at-all", "share / Uses nothing-at-all", "Release Gate"]
    assert (money.get("tests"), money.get("failures"), money.get("errors")) == ("7", "3", "0")
    assert all(float(c.get("time") or 0) > 0 for c in money.findall("testcase")[:-1])
    props = {p.get("name"): p.get("value") for p in money.iter("property")}
    assert props["split / Uses allocate / m2"] == "baseline 0%, with skill 100%, delta +100pp"
    assert suites["dates"].get("failures") == "0"


def test_junit_refuses_a_folder(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "out").mkdir()
    r = run(root, "run", "--junit", "out")
    assert r.code == 2 and "skill-be: --junit: out is a folder; name a file" in r.stderr
    assert not (root / ".skill-be" / "results").exists()


def test_a_dry_run_with_top_up_says_the_most_it_could_make(tmp_path: Path) -> None:
    config = {"gate": {"rule": "evidence", "topUpReps": 5}}
    root = project(tmp_path, model=COUNTING_MODEL, grader=COUNTING_GRADER, config=config)
    plain = run(root, "run", "--dry-run")
    assert total_line(plain.stdout) == (4, 4, 8, 0) and "With --top-up" not in plain.stdout
    dry = run(root, "run", "--dry-run", "--top-up")
    assert dry.code == 0, dry.stderr
    assert total_line(dry.stdout) == (4, 4, 8, 0)
    assert "  With --top-up, at most 10 generations + 10 gradings = 20 calls (every scenario taken to" in dry.stdout
    assert calls(root) == {}
    assert run(root, "run", "--top-up").code in (0, 1)
    assert 8 <= sum(calls(root).values()) <= 20


def test_a_junit_file_that_cannot_be_written_is_one_line_after_the_run(tmp_path: Path) -> None:
    root = project(tmp_path)
    r = run(root, "run", "--junit", "skill-be.yaml/out.xml")
    assert r.code == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("skill-be.yaml/out.xml: cannot write the JUnit file (")
    assert (r.run_dir() / "summary.json").is_file()
