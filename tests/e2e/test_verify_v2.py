"""`verify` after a real `run` (issue 20): held to the config's reps and models, blind to comments and
concurrency, and naming the file or key that changed; a version-1 entry still verifies as before."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.e2e.run.helpers import project, run

from skill_be.project.loader import load_project


def problem(stdout: str) -> str:
    return stdout.splitlines()[1]


def test_a_run_with_fewer_reps_than_the_config_asks_does_not_verify(tmp_path: Path) -> None:
    root = project(tmp_path, config={"reps": 3})
    assert run(root, "run", "--reps", "1").code == 0
    assert json.loads((root / "skill-be.result.json").read_text())["skills"]["money"]["reps"] == 1
    done = run(root, "verify")
    assert done.code == 1
    assert problem(done.stdout) == (
        '  - skill "money": changed: run it again (recorded 1 rep, config asks 3); run "skill-be run money"'
    )
    assert run(root, "run").code == 0
    assert run(root, "verify").code == 0


def test_a_model_added_to_the_config_is_named(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert run(root, "run").code == 0
    config = root / "skill-be.yaml"
    extra = f"model:\n- adapter: command\n  id: m1\n  run: {sys.executable} model.py\n- adapter: command\n  id: m2\n"
    text = config.read_text().replace(
        f"model:\n  adapter: command\n  id: m1\n  run: {sys.executable} model.py\n",
        extra + f"  run: {sys.executable} model.py\n",
    )
    assert "m2" in text
    config.write_text(text)
    done = run(root, "verify")
    assert done.code == 1
    assert "changed: run it again (recorded models m1, config asks also m2)" in problem(done.stdout)


def test_comments_and_concurrency_do_not_make_it_stale_and_a_key_is_named(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert run(root, "run").code == 0
    config = root / "skill-be.yaml"
    config.write_text("# the models we ship with\n" + config.read_text().replace("concurrency: 4", "concurrency: 8"))
    assert run(root, "verify").code == 0
    config.write_text(config.read_text() + "gate:\n  rule: evidence\n")
    done = run(root, "verify")
    assert done.code == 1
    assert problem(done.stdout) == (
        '  - skill "money": changed since its last run (skill-be.yaml: gate.rule); run "skill-be run money"'
    )
    (root / "skills" / "money" / "SKILL.md").write_text("---\nname: money\n---\nChanged.\n")
    assert "(skills/money/SKILL.md; skill-be.yaml: gate.rule)" in problem(run(root, "verify").stdout)


def test_a_version_1_entry_still_verifies_the_old_way(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert run(root, "run").code == 0
    path = root / "skill-be.result.json"
    doc = json.loads(path.read_text())
    p = load_project(root / "skill-be.yaml")
    entry = doc["skills"]["money"]
    entry["fingerprint"] = p.legacy_fingerprint(p.skills[0])  # as the Node tool or skill-be 0.1 wrote it
    for key in ("inputs", "reps", "scores", "gate"):
        entry.pop(key)
    doc["skillBeVersion"] = "1.4.0"  # the Node tool
    path.write_text(json.dumps(doc))
    assert run(root, "verify").code == 0
    config = root / "skill-be.yaml"
    config.write_text(config.read_text() + "# a comment\n")  # version 1 covers the file whole
    done = run(root, "verify")
    assert done.code == 1
    assert "changed since its last run (its SKILL.md, its eval file or the config)" in problem(done.stdout)
