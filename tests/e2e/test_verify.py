"""`skill-be verify` as a user runs it: its lines, its last line and its exit code.

Result entries are written with `write_result_file` and `Project.fingerprint`, the code `skill-be
run` uses; a result file is never written by hand.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from tests.unit.project.projectdir import ProjectDir, coded, judge

from skill_be.project.loader import load_project
from skill_be.results.result_file import ResultEntry, write_result_file

OFF = ["typecheck: off", "coverage: off"]
MISSING = [
    "result file skill-be.result.json: 1 problem(s)",
    '  - no run has been recorded yet (skill-be.result.json does not exist); run "skill-be run" and commit '
    "skill-be.result.json",
]


def verify(cwd: Path, *args: str, script: bool = False) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILL_BE")}
    if script:
        exe = Path(sysconfig.get_path("scripts")) / "skill-be"
        assert exe.is_file(), exe
        argv = [str(exe), "verify", *args]
    else:
        argv = [sys.executable, "-m", "skill_be", "verify", *args]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def record(project: ProjectDir, ready: dict[str, bool] | None = None, reasons: tuple[str, ...] = ()) -> None:
    """Write the result file as `skill-be run` would, for every skill (or those in `ready`)."""
    p = load_project(project.config)
    wanted = ready if ready is not None else {s.name: True for s in p.skills}
    entries = {
        s.name: ResultEntry(
            date="2026-11-29",
            fingerprint=p.legacy_fingerprint(s),  # a version-1 entry, as older files hold (v2: test_verify_v2.py)
            ready=wanted[s.name],
            reasons=[] if wanted[s.name] else list(reasons),
            models=["m"],
            grader="g",
        )
        for s in p.skills
        if s.name in wanted
    }
    write_result_file(p.config.result_file, entries)


@pytest.fixture
def project(tmp_path: Path) -> ProjectDir:
    p = ProjectDir(tmp_path / "project")
    p.add_config("checks:\n  typecheck: false\n")
    p.skill("money", [judge()])
    return p


def lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    return done.stdout.splitlines()


def test_no_result_file(project: ProjectDir) -> None:
    done = verify(project.root)
    assert (done.returncode, lines(done), done.stderr) == (
        1,
        [*MISSING, *OFF, "Result: blocked by the result file"],
        "",
    )


def test_all_good(project: ProjectDir) -> None:
    record(project)
    done = verify(project.root)
    assert (done.returncode, done.stderr) == (0, "")
    assert lines(done) == [
        "result file skill-be.result.json: 1 skill(s) match their last run, every one READY",
        *OFF,
        "Result: pass",
    ]


def test_the_console_script_and_config_forms(project: ProjectDir, tmp_path: Path) -> None:
    record(project)
    for done in (
        verify(project.root, script=True),
        verify(project.root, "--config", "skill-be.yaml"),
        verify(project.root, "--config=skill-be.yaml"),
        verify(project.root, "--config=./skill-be.yaml", script=True),
    ):
        assert done.returncode == 0, done.stderr
        assert lines(done)[-1] == "Result: pass"
    done = verify(tmp_path, "--config", "project/skill-be.yaml")
    assert done.returncode == 0, done.stderr
    assert (
        lines(done)[0] == "result file project/skill-be.result.json: 1 skill(s) match their last run, every one READY"
    )


def test_default_config_is_the_one_in_the_current_folder(project: ProjectDir, tmp_path: Path) -> None:
    done = verify(tmp_path)
    assert done.returncode == 2
    assert done.stderr == "skill-be.yaml: config file not found; create it (see the README) or pass --config <path>\n"
    assert verify(project.root).returncode == 1  # found: no result file yet


def test_a_skill_with_an_eval_file_and_no_entry(project: ProjectDir) -> None:
    record(project)
    project.skill("dates", [judge()])
    done = verify(project.root)
    assert done.returncode == 1
    assert lines(done) == [
        "result file skill-be.result.json: 1 problem(s)",
        '  - skill "dates": no entry in the result file; run "skill-be run dates"',
        *OFF,
        "Result: blocked by the result file",
    ]


@pytest.mark.parametrize("rel", ["skills/money/SKILL.md", "evals/money.json", "skill-be.yaml"])
def test_a_changed_file(project: ProjectDir, rel: str) -> None:
    record(project)
    path = project.root / rel
    path.write_text(path.read_text() + ("\n" if rel.endswith(".json") else "# an edit\n"))
    done = verify(project.root)
    assert done.returncode == 1
    assert lines(done) == [
        "result file skill-be.result.json: 1 problem(s)",
        '  - skill "money": changed since its last run (its SKILL.md, its eval file or the config); '
        'run "skill-be run money"',
        *OFF,
        "Result: blocked by the result file",
    ]


def test_line_endings_do_not_count_as_a_change(project: ProjectDir) -> None:
    record(project)
    for rel in ("skills/money/SKILL.md", "evals/money.json", "skill-be.yaml"):
        path = project.root / rel
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert verify(project.root).returncode == 0


@pytest.mark.parametrize(
    "rel",
    [
        "skill-tests/signup/new-signup.test.ts",
        "skill-tests/signup/fakes.ts",
        "skill-tests/_shared/clock.ts",
        "test-packages.json",
    ],
)
def test_a_changed_test_or_package_list(tmp_path: Path, rel: str) -> None:
    project = ProjectDir(tmp_path / "p")
    project.add_config("checks:\n  typecheck: false\ntests: ./skill-tests\n")
    project.skill("signup", [coded("new-signup")])
    project.write("skill-tests/signup/new-signup.test.ts", "test('x', () => {})\n")
    project.write("skill-tests/signup/fakes.ts", "export {}\n")
    project.write("skill-tests/_shared/clock.ts", "export {}\n")
    project.write("test-packages.json", '{"npm": []}\n')
    record(project)
    assert verify(project.root).returncode == 0
    project.write(rel, (project.root / rel).read_text() + " ")
    done = verify(project.root)
    assert done.returncode == 1
    assert lines(done)[1] == (
        '  - skill "signup": changed since its last run (its SKILL.md, its eval file, the config, its tests or '
        'its package list); run "skill-be run signup"'
    )


def test_an_entry_recorded_not_ready(project: ProjectDir) -> None:
    record(project, {"money": False}, ("Critical regression: split", 'Universal 0%: split — "Adds up"'))
    done = verify(project.root)
    assert done.returncode == 1
    assert lines(done) == [
        "result file skill-be.result.json: 1 problem(s)",
        '  - skill "money": NOT READY at its last run (2026-11-29): Critical regression: split; Universal 0%: '
        'split — "Adds up"; fix it and run "skill-be run money"',
        *OFF,
        "Result: blocked by the result file",
    ]


def test_every_problem_is_listed(project: ProjectDir) -> None:
    project.skill("alpha", [judge()])
    project.skill("beta", [judge()])
    record(project, {"alpha": False, "money": True})
    (project.root / "skills/money/SKILL.md").write_text("# changed\n")
    done = verify(project.root)
    assert done.returncode == 1
    assert lines(done) == [
        "result file skill-be.result.json: 3 problem(s)",
        '  - skill "alpha": NOT READY at its last run (2026-11-29): no reason recorded; fix it and run "skill-be run alpha"',
        '  - skill "beta": no entry in the result file; run "skill-be run beta"',
        '  - skill "money": changed since its last run (its SKILL.md, its eval file or the config); run "skill-be run money"',
        *OFF,
        "Result: blocked by the result file",
    ]


def test_a_skill_without_an_eval_file_is_skipped_with_a_warning(project: ProjectDir) -> None:
    record(project)
    project.skill("draft")  # a SKILL.md and no eval file
    done = verify(project.root)
    assert done.returncode == 0
    assert done.stderr == 'warning: skill "draft" has no eval file\n'
    assert lines(done)[0] == "result file skill-be.result.json: 1 skill(s) match their last run, every one READY"


def test_an_entry_of_a_removed_skill_is_ignored(project: ProjectDir) -> None:
    project.skill("old", [judge()])
    record(project)
    (project.root / "evals/old.json").unlink()
    (project.root / "skills/old/SKILL.md").unlink()
    done = verify(project.root)
    assert (done.returncode, lines(done)[-1]) == (0, "Result: pass")


def test_a_result_file_elsewhere(project: ProjectDir) -> None:
    project.add_config("resultFile: ./records/skills.result.json\n")
    done = verify(project.root)
    assert lines(done)[0] == "result file records/skills.result.json: 1 problem(s)"
    record(project)
    assert (project.root / "records/skills.result.json").is_file()
    done = verify(project.root)
    assert lines(done)[0] == "result file records/skills.result.json: 1 skill(s) match their last run, every one READY"


def test_coverage_off_only_when_not_configured(project: ProjectDir) -> None:
    record(project)
    assert lines(verify(project.root))[-3:-1] == OFF


def test_a_broken_result_file_is_exit_2(project: ProjectDir) -> None:
    record(project)
    path = project.root / "skill-be.result.json"
    path.write_text(path.read_text().replace('"ready": true', '"ready": "true"'))
    done = verify(project.root)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "skill-be.result.json:7:16: skills.money.ready: must be true or false, not a string; restore it from git, or delete it "
        '(the next "skill-be run" writes a new one)\n'
    )


def test_verify_writes_nothing(project: ProjectDir) -> None:
    record(project)

    def state() -> dict[str, tuple[bytes, int]]:
        return {
            p.relative_to(project.root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in project.root.rglob("*")
            if p.is_file()
        }

    before = state()
    assert verify(project.root).returncode == 0
    assert state() == before
    project.write("skills/money/SKILL.md", "# changed\n")
    before = state()
    assert verify(project.root).returncode == 1
    assert state() == before
