"""Several models, your own adapter module, credentials and the one concurrency limit."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.e2e.run.helpers import project, run, table_rows, write

SC = [{"id": "split", "critical": True, "prompt": "Split a bill.", "criteria": ["Uses allocate"]}]


def model_entry(id_: str, script: str) -> dict[str, str]:
    return {"adapter": "command", "id": id_, "run": f"{sys.executable} {script}"}


def test_several_models_are_tabled_and_gated_across_them(tmp_path: Path) -> None:
    write(tmp_path / "good.py", 'import sys\nsys.stdin.read()\nprint("allocate")\n')
    write(tmp_path / "bad.py", 'import sys\nsys.stdin.read()\nprint("floats")\n')
    root = project(
        tmp_path, skills={"money": SC}, config={"model": [model_entry("good", "good.py"), model_entry("bad", "bad.py")]}
    )
    r = run(root, "run")
    # 0% with the skill on one model only: the zero rule does not block; no regression either.
    assert r.code == 0, r.stdout
    assert "Models: command:good, command:bad." in r.stdout
    assert "**good**" in r.stdout and "**bad**" in r.stdout
    assert table_rows(r.stdout) == [["Uses allocate", "100%", "100%", "+0pp"], ["Uses allocate", "0%", "0%", "+0pp"]]
    assert r.result_file()["skills"]["money"]["models"] == ["good", "bad"]


def test_regression_on_one_model_blocks_and_shared_ids_are_labelled_by_adapter(tmp_path: Path) -> None:
    write(
        tmp_path / "worse.py",
        'import sys\np = sys.stdin.read()\nprint("floats" if "LIBRARY DOCS" in p else "allocate")\n',
    )
    write(
        tmp_path / "adapter.py",
        "async def complete(prompt, *, settings, timeout_seconds, cwd):\n    return 'allocate'\n",
    )
    models = [model_entry("same", "worse.py"), {"adapter": "./adapter.py", "id": "same"}]
    root = project(tmp_path, skills={"money": SC}, config={"model": models})
    r = run(root, "run")
    assert r.code == 1
    assert "**command:same**" in r.stdout and "**./adapter.py:same**" in r.stdout
    assert '- **BLOCKED** (regression): `split` / command:same — *"Uses allocate"*: 100% → 0% (-100pp)' in r.stdout


def test_own_adapter_module_gets_prompt_settings_timeout_and_cwd(tmp_path: Path) -> None:
    write(
        tmp_path / "adapters" / "mine.py",
        """
        import json
        from pathlib import Path

        async def complete(prompt, *, settings, timeout_seconds, cwd):
            Path(cwd, "seen.json").write_text(json.dumps({"settings": settings, "timeout": timeout_seconds, "cwd": str(cwd)}))
            if "LIBRARY DOCS" in prompt:
                return "allocate"
            raise RuntimeError("this model refuses")
        """,
    )
    root = project(
        tmp_path,
        skills={"money": SC},
        config={"model": {"adapter": "./adapters/mine.py", "id": "mine", "temperature": 0.2}, "timeoutSeconds": 7},
    )
    r = run(root, "run")
    import json

    seen = json.loads((root / "seen.json").read_text())
    assert seen == {
        "settings": {"adapter": "./adapters/mine.py", "id": "mine", "temperature": 0.2},
        "timeout": 7,
        "cwd": str(root),
    }
    assert "the generation failed (this model refuses)" in r.stdout
    assert r.code == 3  # every baseline output errs: could not measure (ERROR), not a verdict
    assert "**ERROR** — could not measure this skill" in r.stdout


def test_missing_key_in_ci_is_exit_2_naming_the_variable(tmp_path: Path) -> None:
    entry = {**model_entry("m1", "model.py"), "apiKeyEnv": "MY_TEST_KEY"}
    root = project(tmp_path, config={"model": entry})
    r = run(root, "run", env={"CI": "true"})
    assert r.code == 2
    assert "model.apiKeyEnv: MY_TEST_KEY is unset or empty, and CI is set" in r.stderr
    assert not (root / ".skill-be").exists()
    # Outside CI, an unset variable means the stored login: the run goes on.
    assert run(root, "run", env={"CI": "false"}).code == 0


def test_keys_are_replaced_in_messages_and_files(tmp_path: Path) -> None:
    key = "sk-test-VERY-SECRET-1234"
    leaky = """
import os, sys
p = sys.stdin.read()
if "LIBRARY DOCS" in p:
    print("allocate and my key is " + os.environ["MY_TEST_KEY"])
else:
    print("auth failed with key " + os.environ["MY_TEST_KEY"], file=sys.stderr)
    sys.exit(1)
"""
    write(tmp_path / "leaky.py", leaky)
    entry = {**model_entry("m1", "leaky.py"), "apiKeyEnv": "MY_TEST_KEY"}
    # errorVerdict false: the reference's verdict, so a result file is written and can be read for the key
    root = project(tmp_path, config={"model": entry, "gate": {"errorVerdict": False}})
    r = run(root, "run", env={"MY_TEST_KEY": key})
    assert key not in r.stdout + r.stderr
    assert "auth failed with key ***" in r.stdout
    for f in (root / ".skill-be").rglob("*"):
        if f.is_file():
            assert key not in f.read_text(errors="replace"), f
    assert key not in (root / "skill-be.result.json").read_text()


def test_concurrency_limit_holds_and_grading_starts_as_soon_as_an_output_exists(tmp_path: Path) -> None:
    log_model = """
import os, sys, time
p = sys.stdin.read()
open("events.log", "a").write(f"start gen {time.monotonic()}\\n")
time.sleep(0.2)
open("events.log", "a").write(f"end gen {time.monotonic()}\\n")
print("allocate" if "LIBRARY DOCS" in p else "plain")
"""
    log_grader = """
import sys, time
sys.stdin.read()
open("events.log", "a").write(f"start grade {time.monotonic()}\\n")
time.sleep(0.2)
open("events.log", "a").write(f"end grade {time.monotonic()}\\n")
print("VERDICTS:\\n1: YES")
"""
    root = project(
        tmp_path, skills={"money": SC}, model=log_model, grader=log_grader, config={"reps": 4, "concurrency": 3}
    )
    assert run(root, "run").code == 0
    events = [line.split() for line in (root / "events.log").read_text().splitlines()]
    timeline = sorted((float(t), 1 if kind == "start" else -1, what) for kind, what, t in events)
    level = peak = 0
    for _, step, _ in timeline:
        level += step
        peak = max(peak, level)
    assert peak == 3
    first_grade = min(float(t) for kind, what, t in events if kind == "start" and what == "grade")
    last_gen = max(float(t) for kind, what, t in events if kind == "start" and what == "gen")
    assert first_grade < last_gen  # grading did not wait for every generation


def test_a_javascript_adapter_module_works_as_in_the_node_tool(tmp_path: Path) -> None:
    write(
        tmp_path / "my-adapter.mjs",
        """
        import { writeFileSync } from 'node:fs';
        export default async function (prompt, { settings, timeoutMs, cwd }) {
          writeFileSync(`${cwd}/js-seen.json`, JSON.stringify({ settings, timeoutMs, cwd }));
          if (prompt.includes('LIBRARY DOCS')) return 'allocate';
          throw new Error('no skill, no answer');
        }
        """,
    )
    root = project(
        tmp_path, skills={"money": SC}, config={"model": {"adapter": "./my-adapter.mjs", "id": "js", "x": 1}}
    )
    r = run(root, "run")
    import json

    seen = json.loads((root / "js-seen.json").read_text())
    assert seen == {
        "settings": {"adapter": "./my-adapter.mjs", "id": "js", "x": 1},
        "timeoutMs": 120000,
        "cwd": str(root),
    }
    assert "the generation failed (no skill, no answer)" in r.stdout
    assert table_rows(r.stdout) == [["Uses allocate", "0%", "100%", "+100pp"]]


def test_a_javascript_module_without_a_default_function_cannot_start(tmp_path: Path) -> None:
    write(tmp_path / "bad.js", "export const nope = 1;\n")
    write(tmp_path / "package.json", '{"type": "module"}\n')
    root = project(tmp_path, skills={"money": SC}, config={"model": {"adapter": "./bad.js", "id": "js"}})
    r = run(root, "run")
    assert r.code == 2
    assert r.stderr.strip().endswith("bad.js has no default export that is a function")
    assert not (root / ".skill-be").exists()
