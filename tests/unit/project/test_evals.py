"""Eval files: the rules of "Writing evals" and "The output contract"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.support.errors import error_of as one_line_error
from tests.unit.project.placed import unplaced

from skill_be.errors import ConfigError
from skill_be.project.evals import load_eval


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "money.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def error_of(tmp_path: Path, data: object, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    return unplaced(one_line_error(lambda: load_eval(write(tmp_path, data))))


def scenario(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {"id": "split", "prompt": "Split 100 in three.", "criteria": ["Adds up"]}
    base.update(fields)
    return {k: v for k, v in base.items() if v is not None}


def test_a_full_file(tmp_path: Path) -> None:
    data = {
        "skill": "ignored, the file name decides",
        "scenarios": [
            scenario(critical=True),
            {
                "id": "new-signup",
                "prompt": "p",
                "output": {"result": "a function", "reason": "why"},
            },
            {"id": "both", "prompt": "q", "criteria": ["a", "b"], "output": {"result": "r"}},
        ],
    }
    ev = load_eval(write(tmp_path, data))
    split, signup, both = ev.scenarios
    assert (split.id, split.prompt, split.critical, split.criteria, split.output) == (
        "split",
        "Split 100 in three.",
        True,
        ("Adds up",),
        None,
    )
    assert signup.critical is False  # the default
    assert signup.criteria == ()
    assert signup.output == (("result", "a function"), ("reason", "why"))  # the file's order
    assert signup.has_tests and not split.has_tests
    assert both.criteria == ("a", "b") and both.output == (("result", "r"),)
    assert ev.scenario("both") is both and ev.scenario("nope") is None


def test_output_keys_keep_the_file_order(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"scenarios": [{"id": "a", "prompt": "p", "output": {"zeta": "z", "result": "r", "alpha": "a"}}]}')
    assert [k for k, _ in load_eval(path).scenarios[0].output or ()] == ["zeta", "result", "alpha"]


@pytest.mark.parametrize("ident", ["result", "_x", "$el", "camelCase2", "café", "a$b"])
def test_identifier_keys_accepted(tmp_path: Path, ident: str) -> None:
    ev = load_eval(write(tmp_path, {"scenarios": [scenario(output={"result": "r", ident: "d"})]}))
    assert ev.scenarios[0].output == tuple({"result": "r", ident: "d"}.items())


@pytest.mark.parametrize("sid", ["a", "new-signup", "v1.2_x", "with space", "ünïcode"])
def test_valid_ids(tmp_path: Path, sid: str) -> None:
    assert load_eval(write(tmp_path, {"scenarios": [scenario(id=sid)]})).scenarios[0].id == sid


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            "{",
            "money.json: invalid JSON (Expecting property name enclosed in double quotes); fix the syntax there",
        ),
        ("[]", "money.json: must be a mapping of keys to values, not a list"),
        ({}, 'money.json: missing required key "scenarios" (a non-empty list of scenarios)'),
        ({"scenarios": []}, "money.json: scenarios: must be a non-empty list of scenarios, not an empty list"),
        ({"scenarios": {}}, "money.json: scenarios: must be a non-empty list of scenarios, not a mapping"),
        ({"scenarios": [scenario()], "scenario": 1}, 'money.json: unknown key "scenario" (did you mean "scenarios"?)'),
        ({"scenarios": ["x"]}, "money.json: scenarios[0]: must be a mapping of keys to values, not a string"),
        (
            {"scenarios": [scenario(id=None)]},
            'money.json: scenarios[0]: missing required key "id" (a unique name for the scenario)',
        ),
        ({"scenarios": [scenario(id=3)]}, "money.json: scenarios[0].id: must be a string, not a number"),
        ({"scenarios": [scenario(id="")]}, "money.json: scenarios[0].id: must not be empty"),
        (
            {"scenarios": [scenario(), scenario(prompt="other")]},
            'money.json: scenarios[1].id: "split" is used twice (also scenarios[0]); each scenario needs its own id',
        ),
        (
            {"scenarios": [scenario(prompt=None)]},
            'money.json: scenarios[0] (id "split"): missing required key "prompt" (the task given to the model)',
        ),
        ({"scenarios": [scenario(prompt="  ")]}, 'money.json: scenarios[0] (id "split").prompt: must not be empty'),
        (
            {"scenarios": [scenario(critical="yes")]},
            'money.json: scenarios[0] (id "split").critical: must be true or false, not a string',
        ),
        (
            {"scenarios": [scenario(criteria=None)]},
            'money.json: scenarios[0] (id "split"): needs "criteria" (a non-empty list of strings), an "output", "assertions", or more than one',
        ),
        (
            {"scenarios": [scenario(criteria=[])]},
            'money.json: scenarios[0] (id "split").criteria: must be a non-empty list of strings',
        ),
        (
            {"scenarios": [scenario(criteria="Adds up")]},
            'money.json: scenarios[0] (id "split").criteria: must be a list of strings, not a string',
        ),
        (
            {"scenarios": [scenario(criteria=["ok", 2])]},
            'money.json: scenarios[0] (id "split").criteria[1]: must be a string, not a number',
        ),
        (
            {"scenarios": [scenario(critera=["x"])]},
            'money.json: scenarios[0]: unknown key "critera" (did you mean "criteria"?)',
        ),
        (
            {"scenarios": [scenario(output={})]},
            'money.json: scenarios[0] (id "split").output: must name at least "result", the export the tests are written against',
        ),
        (
            {"scenarios": [scenario(output={"reason": "r"})]},
            'money.json: scenarios[0] (id "split").output: missing required key "result" (the export the tests are written against)',
        ),
        (
            {"scenarios": [scenario(output={"result": "r", "2fast": "x"})]},
            'money.json: scenarios[0] (id "split").output: "2fast" is not a name a module can export; use a JavaScript identifier',
        ),
        (
            {"scenarios": [scenario(output={"result": "r", "my-field": "x"})]},
            'money.json: scenarios[0] (id "split").output: "my-field" is not a name a module can export; use a JavaScript identifier',
        ),
        (
            {"scenarios": [scenario(output={"result": "r", "class": "x"})]},
            'money.json: scenarios[0] (id "split").output: "class" is not a name a module can export; use a JavaScript identifier',
        ),
        (
            {"scenarios": [scenario(output={"result": ""})]},
            'money.json: scenarios[0] (id "split").output.result: must not be empty',
        ),
        (
            {"scenarios": [scenario(output={"result": 1})]},
            'money.json: scenarios[0] (id "split").output.result: must be a string, not a number',
        ),
        (
            {"scenarios": [scenario(output={"result": "x" * 201})]},
            'money.json: scenarios[0] (id "split").output.result: is 201 characters; keep a description at most 200 '
            "(it shapes the answer, it does not teach it)",
        ),
        (
            {"scenarios": [scenario(output="result")]},
            'money.json: scenarios[0] (id "split").output: must be a mapping of keys to values, not a string',
        ),
        (
            '{"scenarios": [], "scenarios": [1]}',
            'money.json: key "scenarios" is written twice in one object; keep one of them',
        ),
    ],
)
def test_invalid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: object, expected: str) -> None:
    assert error_of(tmp_path, data, monkeypatch) == expected


def test_description_of_exactly_200_characters_is_fine(tmp_path: Path) -> None:
    ev = load_eval(write(tmp_path, {"scenarios": [scenario(output={"result": "x" * 200})]}))
    assert ev.scenarios[0].output == (("result", "x" * 200),)


def test_a_schema_key_for_editors_is_accepted_and_ignored(tmp_path: Path) -> None:
    data = {"$schema": "../eval.schema.json", "skill": "money", "scenarios": [scenario()]}
    ev = load_eval(write(tmp_path, data))
    assert [s.id for s in ev.scenarios] == ["split"]


def test_every_error_names_its_line_and_column(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = '{\n  "scenarios": [\n    {"id": "split", "prompt": "p",\n     "criteria": ["a", 7]}\n  ]\n}\n'
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as e:
        load_eval(write(tmp_path, text))
    assert str(e.value) == 'money.json:4:24: scenarios[0] (id "split").criteria[1]: must be a string, not a number'
    with pytest.raises(ConfigError) as e:
        load_eval(write(tmp_path, text.replace('"prompt"', '"promt"')))
    assert str(e.value).splitlines() == [  # both mistakes, in file order
        'money.json:3:21: scenarios[0]: unknown key "promt" (did you mean "prompt"?)',
        'money.json:4:24: scenarios[0] (id "split").criteria[1]: must be a string, not a number',
    ]


@pytest.mark.parametrize(
    "sid", ["a/b", "a\\b", "..", ".", "what?", "x:y", "trailing.", " padded", "CON", "nul.txt", "tab\there"]
)
def test_ids_that_are_not_file_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sid: str) -> None:
    message = error_of(tmp_path, {"scenarios": [scenario(id=sid)]}, monkeypatch)
    assert message == (
        f'money.json: scenarios[0].id: "{sid}" is not a valid file name (it names the scenario\'s output folder '
        "and test file); use letters, digits, '-', '_' and '.'"
    )


def test_not_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "money.json"
    path.write_bytes(b'{"scenarios": [\n{"id": "\xff"}]}')
    with pytest.raises(ConfigError) as e:
        load_eval(path)
    assert str(e.value) == "money.json:2: not valid UTF-8 (byte 0xff); save the file as UTF-8"
