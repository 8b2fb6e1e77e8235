"""The small things of a first hour (issue 20): the config from a subfolder, did-you-mean for options."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.run.helpers import project, run


def test_the_config_is_found_from_a_subfolder(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    deep = root / "skills" / "money" / "notes"
    deep.mkdir(parents=True)
    done = run(deep, "verify")
    assert done.code == 1 and "no run has been recorded yet" in done.stdout  # it read the project's config
    assert run(deep, "run").code == 0
    assert (root / "skill-be.result.json").is_file() and not (deep / "skill-be.result.json").exists()
    assert run(deep, "verify").code == 0


def test_no_config_anywhere_up_is_the_usual_line(tmp_path: Path) -> None:
    done = run(tmp_path, "verify")
    assert done.code == 2
    assert done.stderr.startswith("skill-be.yaml: config file not found")


def test_an_unknown_option_gets_the_nearest(tmp_path: Path) -> None:
    root = project(tmp_path)
    done = run(root, "run", "--rep", "1")
    assert done.code == 2
    assert done.stderr.splitlines()[0] == 'skill-be: unknown option "--rep" (did you mean "--reps"?)'
    done = run(root, "check", "--jsno")
    assert done.stderr.splitlines()[0] == 'skill-be: unknown option "--jsno" (did you mean "--json"?)'
    done = run(root, "--confg=x.yaml", "verify")
    assert done.stderr.splitlines()[0] == 'skill-be: unknown option "--confg=x.yaml" (did you mean "--config"?)'
    done = run(root, "run", "--zzzzzz")
    assert done.stderr.splitlines()[0] == 'skill-be: unknown option "--zzzzzz"'
