"""Errored is not failed (issue 20): a broken setup ends as ERROR, exit 3, one line with the cause,
and the committed result file keeps its previous entry; a partial failure is still measured."""

from __future__ import annotations

import json
import shutil
import socket
import sys
from pathlib import Path

from tests.e2e.run.helpers import KEYWORD_GRADER, project, run, write

from skill_be.containers import engine_answers
from skill_be.reports.errors import EXIT_ERROR

GOOD_MODEL = "import sys\np = sys.stdin.read()\nprint('SKILLED allocate' if 'LIBRARY DOCS' in p else 'plain')\n"
EXITS_127 = "import sys\nsys.stdin.read()\nprint('sh: 1: modle: not found', file=sys.stderr)\nsys.exit(127)\n"
NO_VERDICTS = "import sys\nsys.stdin.read()\nprint('Looks fine to me.')\n"


def recorded(tmp_path: Path) -> tuple[Path, bytes]:
    """A project whose committed result file holds a READY entry from a good run."""
    root = project(tmp_path, model=GOOD_MODEL)
    first = run(root, "run")
    assert first.code == 0, first.stdout + first.stderr
    return root, (root / "skill-be.result.json").read_bytes()


def result_line(stdout: str) -> str:
    return stdout.strip().splitlines()[-1]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends: nothing listens there


def assert_error(r: object, root: Path, before: bytes, cause: str) -> None:
    assert r.code == EXIT_ERROR, r.stdout + r.stderr  # type: ignore[attr-defined]
    last = result_line(r.stdout)  # type: ignore[attr-defined]
    assert last.startswith("Result: error, could not measure money: "), last
    assert cause in last, last
    assert "NOT READY" not in r.stdout  # type: ignore[attr-defined]
    assert (root / "skill-be.result.json").read_bytes() == before  # the READY entry stands
    assert "  skill-be.result.json" not in r.stdout  # hence not listed under Written:  # type: ignore[attr-defined]
    skill = r.summary()["skills"]["money"]  # type: ignore[attr-defined]
    assert (skill["verdict"], skill["ready"]) == ("ERROR", False)
    report = (r.run_dir() / "money.md").read_text()  # type: ignore[attr-defined]
    assert report.startswith("**ERROR** — could not measure this skill: ")


def test_a_model_script_that_exits_127_is_error_not_a_verdict(tmp_path: Path) -> None:
    root, before = recorded(tmp_path)
    write(root / "model.py", EXITS_127)
    r = run(root, "run")
    assert_error(r, root, before, "every call of the model m1 failed: exit code 127: sh: 1: modle: not found (4x)")


def test_a_grader_that_never_prints_verdicts_is_error(tmp_path: Path) -> None:
    root, before = recorded(tmp_path)
    write(root / "grader.py", NO_VERDICTS)
    r = run(root, "run")
    assert_error(r, root, before, "every call of the grader failed: unparseable reply: no VERDICTS: line (4x)")


def test_an_unreachable_base_url_is_error(tmp_path: Path) -> None:
    root, before = recorded(tmp_path)
    config = root / "skill-be.yaml"
    url = f"http://127.0.0.1:{closed_port()}/v1"
    config.write_text(
        config.read_text().replace(
            f"adapter: command\n  id: m1\n  run: {sys.executable} model.py",
            f"adapter: openai\n  id: m1\n  baseUrl: {url}",
        )
    )
    assert "openai" in config.read_text()
    r = run(root, "run")
    assert_error(r, root, before, "every call of the model m1 failed: ")
    assert r.stdout.count("(4x)") >= 1


def test_the_reference_behaviour_stays_reachable(tmp_path: Path) -> None:
    """gate.errorVerdict: false: errors block, NOT READY, exit 1, the entry is overwritten."""
    root, _ = recorded(tmp_path)
    write(root / "model.py", EXITS_127)
    config = root / "skill-be.yaml"
    config.write_text(config.read_text() + "gate:\n  errorVerdict: false\n")
    r = run(root, "run")
    assert r.code == 1, r.stdout + r.stderr
    assert result_line(r.stdout) == "Result: blocked by the release gate (NOT READY: money)"
    assert r.result_file()["skills"]["money"]["ready"] is False


ONCE_FAILING = (
    "import sys, os\np = sys.stdin.read()\n"
    "if 'LIBRARY DOCS' not in p and not os.path.exists('once'):\n"
    "    open('once', 'w').close(); sys.exit(5)\n"
    "print('SKILLED allocate' if 'LIBRARY DOCS' in p else 'plain')\n"
)


def test_a_partial_failure_that_alone_blocks_is_error(tmp_path: Path) -> None:
    """One generation in four fails: under gate.maxErrorShare (0.5), and nothing measured blocks, so
    only the error would block (gate.blockOnErrors): ERROR, not NOT READY; the result file is not written."""
    root = project(tmp_path, model=ONCE_FAILING, config={"concurrency": 1})
    r = run(root, "run")
    assert r.code == EXIT_ERROR, r.stdout + r.stderr
    assert result_line(r.stdout) == (
        "Result: error, could not measure money: 1 of 4 outputs errored and nothing measured blocks "
        "(gate.blockOnErrors): model m1: exit code 5 (1x)"
    )
    assert not (root / "skill-be.result.json").exists()
    # a share of 0.2 says the share instead
    (root / "once").unlink()
    config = root / "skill-be.yaml"
    config.write_text(config.read_text() + "gate:\n  maxErrorShare: 0.2\n")
    r = run(root, "run")
    assert r.code == EXIT_ERROR, r.stdout + r.stderr
    assert "1 of 4 outputs errored, more than gate.maxErrorShare (0.2): model m1: exit code 5 (1x)" in r.stdout


def test_a_partial_failure_beside_a_measured_block_is_not_ready(tmp_path: Path) -> None:
    """The same failure where the measured lines block too (the skill never helps: universal 0%): the
    skill is measured, NOT READY, and the result file records both reasons, typed."""
    model = ONCE_FAILING.replace("'SKILLED allocate' if 'LIBRARY DOCS' in p else 'plain'", "'plain'")
    root = project(tmp_path, model=model, config={"concurrency": 1})
    r = run(root, "run")
    assert r.code == 1, r.stdout + r.stderr
    assert result_line(r.stdout) == "Result: blocked by the release gate (NOT READY: money)"
    entry = r.result_file()["skills"]["money"]
    assert entry["ready"] is False and "verdict" not in r.summary()["skills"]["money"]
    assert [w["kind"] for w in entry["why"]] == ["errors", "zero"]
    assert entry["reasons"][1] == 'universal 0%: split — "Uses allocate"'


def test_one_skill_error_keeps_the_other_skills_verdicts(tmp_path: Path) -> None:
    scenario = {"id": "split", "critical": True, "prompt": "Split a bill.", "criteria": ["Uses allocate"]}
    broken = {"id": "split", "critical": True, "prompt": "BREAK", "criteria": ["Uses allocate"]}
    model = "import sys\np = sys.stdin.read()\nsys.exit(9) if 'BREAK' in p else print('SKILLED allocate' if 'LIBRARY DOCS' in p else 'plain')\n"
    root = project(tmp_path, model=model, skills={"money": [scenario], "other": [broken]})
    r = run(root, "run")
    assert r.code == EXIT_ERROR, r.stdout + r.stderr
    assert (
        "  money: READY" in r.stdout
        and "  other: ERROR (every call of the model m1 failed: exit code 9 (4x))" in r.stdout
    )
    assert set(json.loads((root / "skill-be.result.json").read_text())["skills"]) == {"money"}


def test_a_missing_sandbox_image_stops_before_any_call_and_keeps_the_record(tmp_path: Path) -> None:
    """codeTests.image names an image the engine lacks: one line, exit 2, the result file as it was."""
    assert engine_answers() is None, "this test needs a Docker engine (.ci/steps/40-docker.sh starts one)"
    root = tmp_path / "signup"
    repo = Path(__file__).resolve().parents[3]
    shutil.copytree(repo / "examples" / "signup", root, ignore=shutil.ignore_patterns(".skill-be", "node_modules"))
    config = root / "skill-be.demo.yaml"
    base = config.read_text()
    config.write_text(base + "\ncodeTests:\n  sandbox: process\n")
    first = run(root, "run", "--config", "skill-be.demo.yaml")
    assert first.code == 0, first.stdout + first.stderr
    record = root / ".skill-be" / "demo.result.json"
    before = record.read_bytes()
    config.write_text(base + "\ncodeTests:\n  sandbox: docker\n  image: skill-be-sandbox:issue-20-never-built\n")
    r = run(root, "run", "--config", "skill-be.demo.yaml")
    assert r.code == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "is not on this Docker engine" in r.stderr
    assert record.read_bytes() == before


def test_the_html_page_says_error_with_the_cause(tmp_path: Path) -> None:
    root, _ = recorded(tmp_path)
    write(root / "model.py", EXITS_127)
    r = run(root, "run", "--html")
    assert r.code == EXIT_ERROR
    page = (r.run_dir() / "results.html").read_text()
    assert "ERROR</span>: could not measure this skill (every call of the model m1 failed: exit code 127" in page


# The keyword grader, answering only the first criterion it is given.
FIRST_ONLY_GRADER = KEYWORD_GRADER.replace("for n, c in crit:", "for n, c in crit[:1]:")
TWO_SCENARIOS = {
    "money": [
        {"id": "split", "critical": True, "prompt": "Split a bill.", "criteria": ["Uses allocate"]},
        {"id": "round", "critical": True, "prompt": "Round a price.", "criteria": ["Uses allocate", "Says money"]},
    ]
}


def test_a_grader_that_answers_one_criterion_of_two_is_error_not_not_ready(tmp_path: Path) -> None:
    """Every output of the two-criterion scenario errors: 4 of 8, exactly gate.maxErrorShare, and the
    gate would block only because of them. ERROR, exit 3, the cause named, the record kept."""
    root = project(tmp_path, skills=TWO_SCENARIOS)
    first = run(root, "run")
    assert first.code == 0, first.stdout + first.stderr
    before = (root / "skill-be.result.json").read_bytes()
    write(root / "grader.py", FIRST_ONLY_GRADER)
    r = run(root, "run")
    cause = "every baseline output of the scenario round on m1 errored: grader: unparseable reply: no verdict for criterion 2"
    assert_error(r, root, before, cause)


def test_the_same_grader_under_the_reference_behaviour_is_not_ready(tmp_path: Path) -> None:
    """Control: gate.errorVerdict: false gives the reference's NOT READY, exit 1, the entry rewritten."""
    root = project(tmp_path, skills=TWO_SCENARIOS, grader=FIRST_ONLY_GRADER, config={"gate": {"errorVerdict": False}})
    r = run(root, "run")
    assert r.code == 1, r.stdout + r.stderr
    assert result_line(r.stdout) == "Result: blocked by the release gate (NOT READY: money)"
    entry = r.result_file()["skills"]["money"]
    assert entry["ready"] is False
    assert entry["reasons"][0] == "4 output(s) could not be generated or graded"
    assert entry["why"][0] == {"kind": "errors", "source": "gate.blockOnErrors"}
