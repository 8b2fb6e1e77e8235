"""An entry's adapter settings are checked by its adapter's model while the config is read: a mistake
has its line and column and its did-you-mean, and is listed with the file's other mistakes; the
folder checks run in the same pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from skill_be.adapters.base import AdapterEnv
from skill_be.adapters.credentials import Redactor
from skill_be.adapters.registry import BUILTINS, AdapterRegistry
from skill_be.errors import ConfigError
from skill_be.project.adapter_kinds import ADAPTERS
from skill_be.project.config import AdapterEntry, load_config
from skill_be.project.fastcheck import conforms
from skill_be.project.loader import load_project
from skill_be.project.models import ConfigModel
from skill_be.project.where import Where

# One valid entry per built-in adapter (the keys each one needs).
VALID: dict[str, dict[str, object]] = {
    "command": {"run": "python3 answer.py"},
    "claude-cli": {"apiKeyEnv": "K", "bin": "claude"},
    "pi-cli": {
        "provider": "anthropic",
        "thinking": "low",
        "baseUrl": "http://127.0.0.1:9",
        "api": "anthropic-messages",
    },
    "opencode-cli": {"provider": "openai"},
    "codex-cli": {"baseUrl": "http://127.0.0.1:9/v1"},
    "copilot-cli": {"provider": "anthropic"},
    "gemini-cli": {"apiKeyEnv": "G"},
    "anthropic": {"maxTokens": 100, "temperature": 0.5, "promptCaching": False},
    "openai": {"baseUrl": "https://example.test/v1", "temperature": 1.5},
    "gemini": {"maxTokens": 10},
    "fake": {},
}

CONFIG = """\
skills: ./skills
evals: ./evals
reps: three
model:
  adapter: anthropic
  id: claude-sonnet-4-5
  maxTokens: {tokens}
grader:
  adapter: claude-cli
  id: claude-haiku-4-5
gate:
  blokOnZero: true
"""


def lines_of(action: object) -> list[str]:
    with pytest.raises(ConfigError) as e:
        action()  # type: ignore[operator]
    return str(e.value).splitlines()


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "skill-be.yaml").write_text(text, encoding="utf-8")
    return tmp_path / "skill-be.yaml"


def test_every_adapter_has_its_model_in_the_one_table() -> None:
    assert set(VALID) == set(ADAPTERS) == set(BUILTINS)


@pytest.mark.parametrize("adapter", sorted(VALID))
def test_a_valid_entry_passes_both_paths_and_an_unknown_key_neither(adapter: str) -> None:
    entry = {"adapter": adapter, "id": "m", **VALID[adapter]}
    data = {"skills": "s", "evals": "e", "model": entry, "grader": {**entry, "template": "generic"}}
    assert conforms("config", data)  # the fast path (no pydantic) takes it
    ConfigModel.model_validate(data)  # and so does the model
    if adapter in ("fake", "command"):
        # fake keeps any other key (run --fake swaps it in for another adapter's entry); command too,
        # as it always did (a wrapper script may read its own settings; they change the cache key)
        assert conforms("config", {**data, "model": {**entry, "maxTokenz": 5}})
        return
    wrong = {**data, "model": {**entry, "maxTokenz": 5}}
    assert not conforms("config", wrong)  # the control: neither path takes an unknown key
    with pytest.raises(ValueError, match="maxTokenz"):
        ConfigModel.model_validate(wrong)


def test_an_adapter_setting_mistake_is_listed_in_file_order_with_its_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    lines = lines_of(lambda: load_config(write(tmp_path, CONFIG.format(tokens="many"))))
    assert lines == [
        "skill-be.yaml:3:7: reps: must be a positive integer, not a string",
        "skill-be.yaml:7:14: model.maxTokens: must be a positive integer, not a string",
        'skill-be.yaml:12:3: gate: unknown key "blokOnZero" (did you mean "blockOnZero"?)',
    ]
    # the control: a right maxTokens leaves the two other mistakes
    lines = lines_of(lambda: load_config(write(tmp_path, CONFIG.format(tokens="100"))))
    assert [line.split(": ")[0] for line in lines] == ["skill-be.yaml:3:7", "skill-be.yaml:12:3"]


def test_a_misspelt_adapter_setting_gets_its_did_you_mean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    text = CONFIG.format(tokens="100").replace("reps: three\n", "").replace("gate:\n  blokOnZero: true\n", "")
    lines = lines_of(lambda: load_config(write(tmp_path, text.replace("maxTokens", "maxTokenz"))))
    assert lines == ['skill-be.yaml:6:3: model: unknown key "maxTokenz" (did you mean "maxTokens"?)']
    # a key of another adapter is not close to any of this one's: the keys are listed instead
    lines = lines_of(lambda: load_config(write(tmp_path, text.replace("maxTokens: 100", "thinking: low"))))
    assert lines == [
        'skill-be.yaml:6:3: model: unknown key "thinking"; the keys here are: adapter, id, apiKeyEnv, baseUrl, '
        "maxTokens, temperature, promptCaching"
    ]
    # the control: the same text with the key spelt right loads
    (tmp_path / "skills").mkdir()
    (tmp_path / "evals").mkdir()
    assert load_config(write(tmp_path, text)).models[0].settings["maxTokens"] == 100


def test_a_grader_setting_and_a_cross_key_rule_have_their_places(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    text = (
        "skills: ./skills\nevals: ./evals\nmodel:\n  adapter: pi-cli\n  id: m\n  provider: p\n"
        "  api: anthropic-messages\ngrader:\n  adapter: command\n  id: g\n  run: python3 \"'x\n  template: generic\n"
    )
    assert lines_of(lambda: load_config(write(tmp_path, text))) == [
        "skill-be.yaml:7:8: model.api: only applies with baseUrl; add baseUrl or remove api",
        "skill-be.yaml:11:8: grader.run: cannot split the command line (No closing quotation); close the quote",
    ]


def test_an_unknown_adapter_gives_its_line_when_the_config_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    text = CONFIG.format(tokens="100").replace("reps: three\n", "").replace("gate:\n  blokOnZero: true\n", "")
    wrong = text.replace("adapter: claude-cli", "adapter: claude-clj")
    line = (
        'skill-be.yaml:8:12: grader.adapter: unknown adapter "claude-clj" (did you mean "claude-cli"?); use one of '
        f"{', '.join(sorted(BUILTINS))} or a path to your own adapter module (.py, or .js/.mjs/.cjs as in the Node tool)"
    )
    assert lines_of(lambda: load_config(write(tmp_path, wrong))) == [line]
    # the registry words an entry built in code the same way
    entry = AdapterEntry("claude-clj", "m", {"adapter": "claude-clj", "id": "m"}, Where("skill-be.yaml", "grader"))
    env = AdapterEnv(root=tmp_path, environ={}, redactor=Redactor(), label="m")
    with pytest.raises(ConfigError) as e:
        AdapterRegistry().create(entry, env)
    assert str(e.value) == line.replace(":8:12", "")
    path_like = text.replace("adapter: claude-cli", "adapter: ./adapters/mine")
    assert lines_of(lambda: load_config(write(tmp_path, path_like))) == [
        'skill-be.yaml:8:12: grader.adapter: "./adapters/mine" is not an adapter module skill-be can load; name a '
        "Python file (.py) or a JavaScript module (.js, .mjs, .cjs)"
    ]
    # the control: a module of the user's own takes any settings
    (tmp_path / "skills").mkdir()
    (tmp_path / "evals").mkdir()
    mine = text.replace("adapter: claude-cli", "adapter: ./mine.py\n  anything: 1")
    assert load_config(write(tmp_path, mine)).grader.settings["anything"] == 1


def test_the_folder_checks_are_listed_when_the_model_check_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    text = CONFIG.format(tokens="0").replace("reps: three\n", "tests: ./tests\n")
    lines = lines_of(lambda: load_project(write(tmp_path, text)))
    assert lines == [
        "skill-be.yaml:1:9: skills: folder skills does not exist; create it or fix the path",
        "skill-be.yaml:2:8: evals: folder evals does not exist; create it or fix the path",
        "skill-be.yaml:3:8: tests: folder tests does not exist; create it or fix the path",
        "skill-be.yaml:7:14: model.maxTokens: must be a positive integer, not 0",
        'skill-be.yaml:12:3: gate: unknown key "blokOnZero" (did you mean "blockOnZero"?)',
    ]
    # a folder key whose value is itself wrong is the model's line only: never checked as a path
    bad = text.replace("skills: ./skills", "skills: [a, b]").replace("tests: ./tests", "tests: ''")
    lines = lines_of(lambda: load_project(write(tmp_path, bad)))
    assert [line.split(": ")[1] for line in lines] == ["skills", "tests", "model.maxTokens", "gate"]
    assert "must be a string, not a list" in lines[0] and "must not be empty" in lines[1]
    # the control: with the folders there, only the model's lines are left
    for name in ("skills", "evals", "tests"):
        (tmp_path / name).mkdir()
    assert [line.split(": ")[1] for line in lines_of(lambda: load_project(write(tmp_path, text)))] == [
        "model.maxTokens",
        "gate",
    ]
