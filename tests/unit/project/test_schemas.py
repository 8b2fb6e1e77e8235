"""The published JSON Schemas: generated from the models, committed under schemas/ and shipped in the
package, identical everywhere; and they describe real files (the examples pass, a typo fails)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from skill_be.schema import FORMATS, HERE, file_name, generate, text

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"


@pytest.mark.parametrize("name", FORMATS)
def test_committed_and_packaged_schemas_match_the_models(name: str) -> None:
    fix = "run: python -m skill_be.schema --write"
    assert (ROOT / "schemas" / file_name(name)).read_text(encoding="utf-8") == text(name), fix
    assert (HERE / file_name(name)).read_text(encoding="utf-8") == text(name), fix


def test_the_schema_command_prints_them() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "skill_be", "schema", "config"], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == text("config")
    assert json.loads(done.stdout)["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def validator(name: str) -> jsonschema.Draft202012Validator:
    schema = generate(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_every_example_config_and_eval_file_is_valid() -> None:
    configs = sorted(EXAMPLES.glob("*/skill-be*.yaml"))
    evals = sorted(EXAMPLES.glob("*/evals/*.json"))
    assert len(configs) >= 4 and len(evals) >= 4
    for path in configs:
        errors = list(validator("config").iter_errors(yaml.safe_load(path.read_text(encoding="utf-8"))))
        assert errors == [], (path, errors)
    for path in evals:
        errors = list(validator("eval").iter_errors(json.loads(path.read_text(encoding="utf-8"))))
        assert errors == [], (path, errors)


def test_a_typo_and_a_wrong_type_fail_the_schema() -> None:
    """The control: the schemas are strict where the loader is, so an editor flags what skill-be would."""
    config = yaml.safe_load((EXAMPLES / "durations" / "skill-be.yaml").read_text(encoding="utf-8"))
    assert not list(validator("config").iter_errors(config))
    assert list(validator("config").iter_errors({**config, "reeps": 3}))
    assert list(validator("config").iter_errors({**config, "reps": "3"}))
    assert list(validator("config").iter_errors({**config, "gate": {"bloking": True}}))
    assert list(validator("eval").iter_errors({"scenarios": [{"id": "a", "prompt": "p", "criteria": [], "x": 1}]}))


def test_a_result_file_and_a_summary_written_by_skill_be_are_valid(tmp_path: Path) -> None:
    from skill_be.results.result_file import ArmCount, ResultEntry, Score, write_result_file

    path = tmp_path / "r.json"
    score = Score(
        model="m",
        scenario="s",
        line="Adds up",
        kind="criterion",
        critical=True,
        baseline=ArmCount(passed=1, total=3),
        withSkill=ArmCount(passed=3, total=3),
    )
    entry = ResultEntry(date="2026-11-30", fingerprint="f" * 64, ready=True, reasons=[], models=["m"], grader="g")
    write_result_file(path, {"a": {**entry, "scores": [score]}})
    assert not list(validator("result").iter_errors(json.loads(path.read_text(encoding="utf-8"))))
    assert list(validator("result").iter_errors({"skillBeVersion": "1", "skills": {"a": {"date": 1}}}))
