"""skill-be.yaml: every key, its default, its validation, and where relative paths point."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.support.errors import error_of as one_line_error
from tests.unit.project.placed import unplaced

from skill_be.errors import ConfigError
from skill_be.project.config import (
    DEFAULT_WITH_SKILL_TEMPLATE,
    MAX_TIMEOUT,
    REQUIRED,
    CodeTestsConfig,
    CoverageConfig,
    GateConfig,
    TypecheckConfig,
    load_config,
)

MINIMAL = """\
skills: ./skills
evals: ./evals
model:
  adapter: claude-cli
  id: claude-sonnet-5-5
grader:
  adapter: claude-cli
  id: claude-haiku-5-5
"""


def write(tmp_path: Path, text: str, name: str = "skill-be.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    return unplaced(one_line_error(lambda: load_config(write(tmp_path, text))))


def test_minimal_config_gets_every_default(tmp_path: Path) -> None:
    c = load_config(write(tmp_path, MINIMAL))
    assert c.path == tmp_path / "skill-be.yaml"
    assert c.root == tmp_path
    assert c.skills == tmp_path / "skills"
    assert c.evals == tmp_path / "evals"
    assert [(m.adapter, m.id) for m in c.models] == [("claude-cli", "claude-sonnet-5-5")]
    assert (c.grader.adapter, c.grader.id) == ("claude-cli", "claude-haiku-5-5")
    assert (c.reps, c.gradings, c.concurrency, c.timeout_seconds) == (3, 3, 4, 120)
    assert c.results == tmp_path / ".skill-be" / "results"
    assert c.result_file == tmp_path / "skill-be.result.json"
    assert c.with_skill_template == DEFAULT_WITH_SKILL_TEMPLATE
    assert "{{skill}}" in DEFAULT_WITH_SKILL_TEMPLATE and "{{task}}" in DEFAULT_WITH_SKILL_TEMPLATE
    assert c.grader_prompt is None
    assert c.gate == GateConfig(regression_on_critical=True, block_on_zero=True, block_on_errors=True)
    assert c.checks.typecheck is None  # absent: the check picks its default
    assert c.checks.coverage is None  # off unless configured
    assert c.triage_model is None
    assert c.tests is None
    assert c.code_tests == CodeTestsConfig()
    assert c.code_tests.test_timeout_seconds == 10
    assert c.code_tests.answer_timeout_seconds == 60
    assert c.code_tests.allow == ()
    assert c.code_tests.packages is None
    assert dict(c.code_tests.packages_by_skill) == {}


def test_every_key_set(tmp_path: Path) -> None:
    text = (
        MINIMAL
        + """\
reps: 5
gradings: 1
concurrency: 8
timeoutSeconds: 2147483
results: out/results
resultFile: ./records/result.json
withSkillTemplate: "Docs: {{skill}} Now: {{task}}"
graderPrompt: You judge documents.
gate:
  regressionOnCritical: false
  blockOnZero: false
  blockOnErrors: false
checks:
  typecheck:
    library: tiny-money
    preludes:
      money: ./typecheck/money.ts
    blocking: false
    preset: typescript
  coverage:
    entry: ./lib/index.ts
    ignore: [Money.zero]
    blocking: true
triage:
  model:
    adapter: command
    id: triager
    run: ./triage.sh
tests: ./skill-tests
codeTests:
  packages: ./pk.json
  packagesBySkill:
    money: ./money-packages.json
  testTimeoutSeconds: 5
  answerTimeoutSeconds: 30
  allow: [map, filter]
"""
    )
    c = load_config(write(tmp_path, text))
    assert (c.reps, c.gradings, c.concurrency, c.timeout_seconds) == (5, 1, 8, MAX_TIMEOUT)
    assert c.results == tmp_path / "out" / "results"
    assert c.result_file == tmp_path / "records" / "result.json"
    assert c.with_skill_template == "Docs: {{skill}} Now: {{task}}"
    assert c.grader_prompt == "You judge documents."
    assert c.gate == GateConfig(False, False, False)
    assert c.checks.typecheck == TypecheckConfig(
        preset="typescript",
        library="tiny-money",
        preludes={"money": tmp_path / "typecheck" / "money.ts"},
        blocking=False,
        command=None,
        mypy=False,
    )
    assert c.checks.coverage == CoverageConfig(
        preset=None, entry="./lib/index.ts", ignore=("Money.zero",), blocking=True, command=None
    )
    assert c.triage_model is not None
    assert (c.triage_model.adapter, c.triage_model.id) == ("command", "triager")
    assert c.triage_model.settings["run"] == "./triage.sh"
    assert c.tests == tmp_path / "skill-tests"
    assert c.code_tests.packages == tmp_path / "pk.json"
    assert dict(c.code_tests.packages_by_skill) == {"money": tmp_path / "money-packages.json"}
    assert (c.code_tests.test_timeout_seconds, c.code_tests.answer_timeout_seconds) == (5, 30)
    assert c.code_tests.allow == ("map", "filter")


def test_model_list_and_adapter_settings_pass_through(tmp_path: Path) -> None:
    text = MINIMAL.replace(
        "model:\n  adapter: claude-cli\n  id: claude-sonnet-5-5\n",
        "model:\n  - adapter: claude-cli\n    id: a\n    apiKeyEnv: KEY\n  - adapter: pi-cli\n    provider: x\n    id: 4\n",
    )
    c = load_config(write(tmp_path, text))
    assert [(m.adapter, m.id) for m in c.models] == [("claude-cli", "a"), ("pi-cli", "4")]
    assert c.models[0].settings["apiKeyEnv"] == "KEY"
    assert c.models[1].settings["provider"] == "x"
    assert str(c.models[1].where.path) == "model[1]"


def test_checks_off_and_on(tmp_path: Path) -> None:
    c = load_config(write(tmp_path, MINIMAL + "checks:\n  typecheck: false\n  coverage: false\n"))
    assert c.checks.typecheck is False
    assert c.checks.coverage is None
    c = load_config(write(tmp_path, MINIMAL + "checks:\n  typecheck:\n    command: python check.py\n"))
    assert isinstance(c.checks.typecheck, TypecheckConfig)
    assert c.checks.typecheck.command == "python check.py"
    assert c.checks.typecheck.blocking is True
    c = load_config(write(tmp_path, MINIMAL + "checks:\n  coverage:\n    command: ./api.sh\n"))
    assert c.checks.coverage is not None and c.checks.coverage.blocking is False


def test_relative_paths_resolve_against_the_config_directory_whatever_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "deep" / "project"
    project.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    write(project, MINIMAL + "tests: ../shared-tests\nresults: ./r\ncodeTests:\n  packages: pk/list.json\n")
    for cwd in (elsewhere, project, project / ".."):
        monkeypatch.chdir(cwd)
        c = load_config(Path(os.path.relpath(project / "skill-be.yaml", cwd)))
        assert c.skills == project / "skills"
        assert c.evals == project / "evals"
        assert c.tests == tmp_path / "deep" / "shared-tests"
        assert c.results == project / "r"
        assert c.result_file == project / "skill-be.result.json"
        assert c.code_tests.packages == project / "pk" / "list.json"
        assert c.path == project / "skill-be.yaml"


def test_absolute_paths_stay(tmp_path: Path) -> None:
    other = tmp_path / "abs-skills"
    c = load_config(write(tmp_path, MINIMAL.replace("./skills", str(other))))
    assert c.skills == other


def test_name_shown_relative_to_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub", MINIMAL)
    monkeypatch.chdir(tmp_path)
    assert load_config(Path("sub/skill-be.yaml")).name == "sub/skill-be.yaml"
    assert load_config(tmp_path / "sub" / "skill-be.yaml").name == "sub/skill-be.yaml"


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("reps: 0\n", "skill-be.yaml: reps: must be a positive integer, not 0"),
        ("reps: -2\n", "skill-be.yaml: reps: must be a positive integer, not -2"),
        ("gradings: 1.5\n", "skill-be.yaml: gradings: must be a positive integer, not 1.5"),
        ('concurrency: "4"\n', "skill-be.yaml: concurrency: must be a positive integer, not a string"),
        ("concurrency: true\n", "skill-be.yaml: concurrency: must be a positive integer, not a boolean"),
        ("timeoutSeconds: 2147484\n", "skill-be.yaml: timeoutSeconds: must be at most 2147483, not 2147484"),
        ("results: 3\n", "skill-be.yaml: results: must be a string, not a number"),
        ('resultFile: ""\n', "skill-be.yaml: resultFile: must not be empty"),
        (
            'withSkillTemplate: "only {{task}}"\n',
            "skill-be.yaml: withSkillTemplate: must contain {{skill}}, where the skill text and the task go",
        ),
        (
            "withSkillTemplate: plain\n",
            "skill-be.yaml: withSkillTemplate: must contain {{skill}} and {{task}}, where the skill text and the task go",
        ),
        ("graderPrompt: [a]\n", "skill-be.yaml: graderPrompt: must be a string, not a list"),
        ("gate: yes\n", "skill-be.yaml: gate: must be a mapping of keys to values, not a boolean"),
        ("gate:\n  blockOnZero: 1\n", "skill-be.yaml: gate.blockOnZero: must be true or false, not a number"),
        (
            "gate:\n  blockOnZeros: true\n",
            'skill-be.yaml: gate: unknown key "blockOnZeros" (did you mean "blockOnZero"?)',
        ),
        ("checks:\n  typo: 1\n", 'skill-be.yaml: checks: unknown key "typo"; the keys here are: typecheck, coverage'),
        (
            "checks:\n  typecheck: yes please\n",
            "skill-be.yaml: checks.typecheck: must be false (off) or a mapping of settings, not a string",
        ),
        (
            "checks:\n  typecheck:\n    libary: x\n",
            'skill-be.yaml: checks.typecheck: unknown key "libary" (did you mean "library"?)',
        ),
        (
            "checks:\n  coverage:\n    entry: x\n    bloking: true\n",
            'skill-be.yaml: checks.coverage: unknown key "bloking" (did you mean "blocking"?)',
        ),
        (
            "checks:\n  coverage:\n    blocking: true\n",
            'skill-be.yaml: checks.coverage: missing required key "entry" (the library entry whose API must be covered), or set command',
        ),
        (
            "checks:\n  coverage: true\n",
            "skill-be.yaml: checks.coverage: must be false (off) or a mapping of settings with entry or command, not a boolean",
        ),
        (
            "checks:\n  coverage:\n    entry: x\n    ignore: x\n",
            "skill-be.yaml: checks.coverage.ignore: must be a list of strings, not a string",
        ),
        (
            "checks:\n  typecheck:\n    preludes:\n      money: 3\n",
            "skill-be.yaml: checks.typecheck.preludes.money: must be a string, not a number",
        ),
        ("triage:\n  modle: {}\n", 'skill-be.yaml: triage: unknown key "modle" (did you mean "model"?)'),
        (
            "triage:\n  model:\n    adapter: x\n",
            'skill-be.yaml: triage.model: missing required key "id" (an entry needs adapter and id)',
        ),
        ("tests: [a]\n", "skill-be.yaml: tests: must be a string, not a list"),
        ("codeTests:\n  alow: []\n", 'skill-be.yaml: codeTests: unknown key "alow" (did you mean "allow"?)'),
        ("codeTests:\n  allow: map\n", "skill-be.yaml: codeTests.allow: must be a list of strings, not a string"),
        (
            "codeTests:\n  testTimeoutSeconds: 0\n",
            "skill-be.yaml: codeTests.testTimeoutSeconds: must be a positive integer, not 0",
        ),
        (
            "codeTests:\n  answerTimeoutSeconds: 9999999\n",
            "skill-be.yaml: codeTests.answerTimeoutSeconds: must be at most 2147483, not 9999999",
        ),
        (
            "codeTests:\n  packagesBySkill: [a]\n",
            "skill-be.yaml: codeTests.packagesBySkill: must be a mapping of keys to values, not a list",
        ),
        ("skils: ./skills\n", 'skill-be.yaml: unknown key "skils" (did you mean "skills"?)'),
    ],
)
def test_invalid_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: str, expected: str) -> None:
    assert error_of(tmp_path, MINIMAL + extra, monkeypatch) == expected


@pytest.mark.parametrize("key", ["skills", "evals", "model", "grader"])
def test_required_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str) -> None:
    lines = MINIMAL.splitlines(keepends=True)
    kept, skipping = [], False
    for line in lines:
        if line.startswith(f"{key}:"):
            skipping = True
            continue
        if skipping and line.startswith(" "):
            continue
        skipping = False
        kept.append(line)
    assert error_of(tmp_path, "".join(kept), monkeypatch) == (
        f'skill-be.yaml: missing required key "{key}" ({REQUIRED[key]})'
    )
    assert error_of(tmp_path, "".join(kept) + f"{key}:\n", monkeypatch) == (
        f"skill-be.yaml: {key}: is empty; set it to {REQUIRED[key]}"
    )


def test_adapter_entries_need_adapter_and_id(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = MINIMAL.replace("  adapter: claude-cli\n  id: claude-haiku-5-5\n", "  id: claude-haiku-5-5\n")
    assert (
        error_of(tmp_path, text, monkeypatch)
        == 'skill-be.yaml: grader: missing required key "adapter" (an entry needs adapter and id)'
    )
    text = MINIMAL.replace("model:\n  adapter: claude-cli\n  id: claude-sonnet-5-5\n", "model: []\n")
    assert (
        error_of(tmp_path, text, monkeypatch) == "skill-be.yaml: model: must be an entry or a non-empty list of entries"
    )
    text = MINIMAL.replace(
        "model:\n  adapter: claude-cli\n  id: claude-sonnet-5-5\n",
        "model:\n  - adapter: fake\n    id: b\n  - adapter: c\n",  # an unknown adapter is a mistake too, once its entry has an id
    )
    assert (
        error_of(tmp_path, text, monkeypatch)
        == 'skill-be.yaml: model[1]: missing required key "id" (an entry needs adapter and id)'
    )
    text = MINIMAL.replace("  id: claude-haiku-5-5\n", "  id: ''\n")
    assert error_of(tmp_path, text, monkeypatch) == "skill-be.yaml: grader.id: must not be empty"


def test_file_level_problems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert (
        error_of(tmp_path, "", monkeypatch)
        == "skill-be.yaml: is empty; it needs at least skills, evals, model and grader"
    )
    assert (
        error_of(tmp_path, "- a\n- b\n", monkeypatch)
        == "skill-be.yaml: must be a mapping of keys to values, not a list"
    )
    assert (
        error_of(tmp_path, MINIMAL + "reps: 3\nreps: 4\n", monkeypatch)
        == 'skill-be.yaml: key "reps" is written twice in one mapping (first at line 9); keep one of them'
    )
    assert error_of(tmp_path, "skills: [./a\n", monkeypatch).startswith("skill-be.yaml: invalid YAML (")
    with pytest.raises(ConfigError, match=r"^missing\.yaml: config file not found; create it"):
        load_config(tmp_path / "missing.yaml")


def test_yaml_anchors_and_merge_keys_work(tmp_path: Path) -> None:
    text = MINIMAL.replace(
        "grader:\n  adapter: claude-cli\n  id: claude-haiku-5-5\n",
        "grader:\n  <<: &base {adapter: claude-cli, id: x}\n  id: claude-haiku-5-5\n",
    )
    c = load_config(write(tmp_path, text))
    assert (c.grader.adapter, c.grader.id) == ("claude-cli", "claude-haiku-5-5")


def test_crlf_and_bom_config(tmp_path: Path) -> None:
    path = tmp_path / "skill-be.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + MINIMAL.replace("\n", "\r\n").encode())
    assert load_config(path).reps == 3


def test_not_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "skill-be.yaml"
    path.write_bytes(MINIMAL.encode() + b"graderPrompt: caf\xe9\n")
    with pytest.raises(ConfigError) as e:
        load_config(path)
    assert str(e.value) == "skill-be.yaml:9: not valid UTF-8 (byte 0xe9); save the file as UTF-8"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            MINIMAL + "gate:\n\tblockOnZero: true\n",
            "skill-be.yaml: invalid YAML (a tab character; YAML indents with spaces only); replace the tab with spaces",
        ),
        (
            MINIMAL + "graderPrompt: !!python/object/apply:os.system [ls]\n",
            "skill-be.yaml: invalid YAML (the tag !!python/object/apply:os.system is not "
            "supported: only plain values are read); remove the tag",
        ),
        (
            MINIMAL + "---\nreps: 2\n",
            'skill-be.yaml: invalid YAML (a second document starts here with "---"); keep one document in the file',
        ),
        (
            MINIMAL.replace("model:\n  adapter: claude-cli\n  id: claude-sonnet-5-5\n", "model: claude\n"),
            "skill-be.yaml: model: must be an entry with adapter and id (such as adapter: claude-cli and "
            "id: claude-sonnet-5-5 on their own lines), not a string",
        ),
    ],
)
def test_messages_that_say_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, expected: str) -> None:
    assert error_of(tmp_path, text, monkeypatch) == expected


def test_a_control_character_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert error_of(tmp_path, MINIMAL + "graderPrompt: a\x06b\n", monkeypatch) == (
        "skill-be.yaml: invalid YAML (the control character U+0006 is not allowed); remove it"
    )


def test_the_models_defaults_are_the_records_defaults() -> None:
    """The fast path leaves out what a file leaves out, so the records' defaults must be the models'."""
    from skill_be.project.config import Config
    from skill_be.project.models import CodeTestsModel, ConfigModel, GateModel

    pairs = [(GateModel, GateConfig._field_defaults), (CodeTestsModel, CodeTestsConfig._field_defaults)]
    pairs.append((ConfigModel, {k: v for k, v in Config._field_defaults.items() if k in ConfigModel.model_fields}))
    for model, defaults in pairs:
        for name, field in model.model_fields.items():
            if name in defaults and field.default is not None and not isinstance(defaults[name], Path):
                assert field.default == defaults[name], (model.__name__, name)
    assert CodeTestsModel.model_fields["sandbox"].default == CodeTestsConfig().sandbox == "auto"


def test_a_list_that_contains_itself_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    message = error_of(tmp_path, MINIMAL + "codeTests:\n  allow: &a [x, *a]\n", monkeypatch)
    assert message == "skill-be.yaml: codeTests.allow[1]: must be a string, not a list"
