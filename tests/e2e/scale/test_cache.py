"""The response cache end to end, with scripted models that log every call they answer."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from tests.e2e.run.helpers import project, run, table_rows
from tests.e2e.scale.helpers import COUNTING_GRADER, COUNTING_MODEL, TWO_SCENARIOS, calls, reset

SPLIT, SHARE = "Split a bill.", "Share a cost."


def make(tmp_path: Path, **config: object) -> Path:
    return project(tmp_path, skills=TWO_SCENARIOS, model=COUNTING_MODEL, grader=COUNTING_GRADER, config=config)


def entries(root: Path) -> list[Path]:
    return sorted(p for p in (root / ".skill-be" / "cache").rglob("*.json"))


def set_config(root: Path, **changes: object) -> None:
    doc = yaml.safe_load((root / "skill-be.yaml").read_text())
    doc.update(changes)
    (root / "skill-be.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))


def test_a_rerun_with_nothing_changed_makes_no_model_call_and_says_so(tmp_path: Path) -> None:
    root = make(tmp_path)
    first = run(root, "run", "--cache")
    assert first.code == 0, first.stderr
    # 2 scenarios x 2 reps x 2 arms, each graded once: every rep is its own call
    assert calls(root) == {
        ("model", SPLIT): 4,
        ("model", SHARE): 4,
        ("grader", SPLIT): 4,
        ("grader", SHARE): 4,
    }
    assert len(entries(root)) == 16
    assert "Response cache: 0 of 16 model calls came from the cache." in first.stdout
    assert first.summary()["cache"]["calls"] == {"made": 16, "cached": 0}
    reset(root)
    second = run(root, "run", "--cache")
    assert second.code == 0, second.stderr
    assert calls(root) == {}
    assert "Response cache: 16 of 16 model calls came from the cache." in second.stdout
    s1, s2 = first.summary(), second.summary()
    assert s2["cache"]["calls"] == {"made": 0, "cached": 16}
    assert s2["skills"]["money"]["calls"] == {"made": 0, "cached": 16}
    assert table_rows(first.stdout) == table_rows(second.stdout)
    assert s1["skills"]["money"]["ready"] is s2["skills"]["money"]["ready"] is True
    # the answers and the graders' replies are the same files, byte for byte
    a, b = first.run_dir(), second.run_dir()
    answers = sorted(p.relative_to(a) for p in a.rglob("rep-*.md"))
    assert answers and answers == sorted(p.relative_to(b) for p in b.rglob("rep-*.md"))
    assert all((a / p).read_bytes() == (b / p).read_bytes() for p in answers)


def test_editing_one_scenarios_prompt_recalls_exactly_its_generations_and_gradings(tmp_path: Path) -> None:
    root = make(tmp_path)
    assert run(root, "run", "--cache").code == 0
    reset(root)
    evals = json.loads((root / "evals" / "money.json").read_text())
    evals["scenarios"][1]["prompt"] = "Share a cost fairly."
    (root / "evals" / "money.json").write_text(json.dumps(evals))
    r = run(root, "run", "--cache")
    assert r.code == 0, r.stderr
    assert calls(root) == {("model", "Share a cost fairly."): 4, ("grader", "Share a cost fairly."): 4}
    assert "Response cache: 8 of 16 model calls came from the cache." in r.stdout


def test_the_rep_index_is_in_the_key_so_more_reps_are_new_samples(tmp_path: Path) -> None:
    root = make(tmp_path)
    assert run(root, "run", "--cache").code == 0
    reset(root)
    r = run(root, "run", "--cache", "--reps", "3")
    assert r.code == 0, r.stderr
    # reps 1 and 2 come from the cache; rep 3 of each arm is called, and its answer graded
    assert calls(root) == {("model", SPLIT): 2, ("model", SHARE): 2, ("grader", SPLIT): 2, ("grader", SHARE): 2}


def test_a_model_setting_recalls_the_generations_and_a_grader_setting_the_gradings(tmp_path: Path) -> None:
    root = make(tmp_path)
    assert run(root, "run", "--cache").code == 0
    doc = yaml.safe_load((root / "skill-be.yaml").read_text())
    # a setting the command adapter passes on changes the model: every generation is called again;
    # the answers come out the same, so their gradings are still in the cache
    reset(root)
    set_config(root, model={**doc["model"], "thinking": "high"})
    assert run(root, "run", "--cache").code == 0
    assert calls(root) == {("model", SPLIT): 4, ("model", SHARE): 4}
    # the grader's settings are in its key: every grading is called again, no generation
    reset(root)
    set_config(root, grader={**doc["grader"], "id": "judge-2"})
    assert run(root, "run", "--cache").code == 0
    assert calls(root) == {("grader", SPLIT): 4, ("grader", SHARE): 4}
    # editing the script behind a command line is a new model too
    reset(root)
    (root / "model.py").write_text((root / "model.py").read_text() + "\n# edited\n")
    assert run(root, "run", "--cache").code == 0
    assert calls(root) == {("model", SPLIT): 4, ("model", SHARE): 4}


def test_the_cache_is_off_by_default_and_no_cache_wins(tmp_path: Path) -> None:
    root = make(tmp_path)
    assert run(root, "run").code == 0
    assert not (root / ".skill-be" / "cache").exists()
    assert run(root, "run", "--cache").code == 0
    stored = entries(root)
    reset(root)
    r = run(root, "run", "--cache", "--no-cache")
    assert r.code == 0, r.stderr
    assert sum(calls(root).values()) == 16
    assert "Response cache" not in r.stdout and r.summary()["cache"] is None
    assert entries(root) == stored


def test_failed_calls_are_never_cached(tmp_path: Path) -> None:
    skills = {"money": [{"id": "down", "prompt": "FAIL now.", "criteria": ["Uses allocate"]}]}
    root = project(tmp_path, skills=skills, model=COUNTING_MODEL, grader=COUNTING_GRADER)
    first = run(root, "run", "--cache")
    assert first.code == 3 and calls(root) == {("model", "FAIL now."): 4}
    assert entries(root) == []
    reset(root)
    assert run(root, "run", "--cache").code == 3
    assert calls(root) == {("model", "FAIL now."): 4}


def test_a_damaged_entry_is_one_warning_and_one_call(tmp_path: Path) -> None:
    root = make(tmp_path)
    assert run(root, "run", "--cache").code == 0
    damaged = entries(root)[3]
    damaged.write_bytes(damaged.read_bytes()[:20])
    reset(root)
    r = run(root, "run", "--cache")
    assert r.code == 0, r.stderr
    assert sum(calls(root).values()) == 1
    warnings = [line for line in r.stderr.splitlines() if "a damaged cache entry" in line]
    assert len(warnings) == 1 and damaged.name in warnings[0]
    assert json.loads(damaged.read_text())["key"] == damaged.stem  # written again, whole


def test_an_unwritable_cache_folder_turns_the_cache_off_with_one_warning(tmp_path: Path) -> None:
    root = make(tmp_path)
    (root / ".skill-be").mkdir()
    (root / ".skill-be" / "cache").write_text("not a folder\n")
    r = run(root, "run", "--cache")
    assert r.code == 0, r.stderr
    warnings = [line for line in r.stderr.splitlines() if "the response cache cannot be written" in line]
    assert len(warnings) == 1
    assert sum(calls(root).values()) == 16 and r.summary()["cache"] is None


def test_cache_prune_and_clear(tmp_path: Path) -> None:
    root = make(tmp_path)
    assert run(root, "run", "--cache").code == 0
    r = run(root, "cache", "prune", "--older-than", "30d")
    assert (r.code, r.stdout) == (0, "Removed 0 cache entries unused for 30d from .skill-be/cache (0 bytes).\n")
    assert len(entries(root)) == 16
    r = run(root, "cache", "clear")
    assert r.code == 0 and r.stdout.startswith("Removed 16 cache entries from .skill-be/cache (")
    assert entries(root) == []
    bad = run(root, "cache", "prune", "--older-than", "a month")
    assert bad.code == 2 and 'skill-be: --older-than: "a month" is not an age' in bad.stderr
    assert run(root, "cache", "prune").code == 2
    assert run(root, "cache", "tidy").code == 2


def test_cache_true_in_the_config_turns_it_on_and_no_cache_still_wins(tmp_path: Path) -> None:
    root = make(tmp_path, cache=True)
    assert run(root, "run").code == 0
    reset(root)
    assert run(root, "run").code == 0 and calls(root) == {}
    r = run(root, "run", "--no-cache")
    assert r.code == 0 and sum(calls(root).values()) == 16
    bad = make(tmp_path / "bad", cache="yes")
    r = run(bad, "run")
    assert r.code == 2 and "cache" in r.stderr and "true or false" in r.stderr, r.stderr
