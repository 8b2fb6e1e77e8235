"""Generated bad input through every command that reads the project's files: never a traceback.

Strings with control characters, lone surrogates and NUL, very long values and deep nesting are put
in an eval file, a skill's agentskills.io evals.json or skill-be.yaml, and `check`, `run --dry-run`,
`verify` and `convert` read them in this process (skill_be.cli.main, as `python -m skill_be` calls it).
Whatever the value, the command ends with one of its exit codes; exit 2 (bad input) is one line on
stderr. stdout and stderr are strict UTF-8 streams, as a terminal's are, so a line that cannot be
printed fails here too. Derandomized and bounded: the same examples on every run, a few seconds.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skill_be.cli import main
from skill_be.project.validation import MAX_SHOWN

BASE = Path(__file__).resolve().parents[1] / "corpus" / "bad_input" / "_base"
COMMANDS = (["check"], ["run", "--dry-run"], ["verify"])

_nasty = st.sampled_from(
    ["\x00", "\ud800", "\udfff", "\x1b[2J", "\r", "\n", "\t", "\x7f", "\u2028", "\ufeff", "/", ".."]
)
_small = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x24F, exclude_categories=()), max_size=12)
_mixed = st.lists(st.one_of(_small, _nasty), max_size=4).map("".join)
_long = st.tuples(st.sampled_from(["x", "\x00", "é", "\ud800"]), st.integers(1000, 200_000)).map(lambda t: t[0] * t[1])
strings = st.one_of(_mixed, _long)


class Deep:
    """A value nested `depth` levels (lists in objects), written as JSON text by `_dumps`."""

    def __init__(self, depth: int, leaf: str) -> None:
        self.text = "".join("[" if i % 2 else '{"k": ' for i in range(depth)) + json.dumps(leaf)
        self.text += "".join("]" if i % 2 else "}" for i in reversed(range(depth)))


_MARK = "\ue000deep\ue000"


def _dumps(doc: object, **kw: Any) -> str:
    """JSON text of `doc`, each Deep value in place (json.dumps would recurse past Python's limit)."""
    found: list[Deep] = []

    def mark(value: object) -> object:
        found.append(value)  # type: ignore[arg-type]
        return _MARK

    text = json.dumps(doc, default=mark, **kw)
    for d in found:
        text = text.replace(json.dumps(_MARK), d.text, 1)
    return text


values: st.SearchStrategy[Any] = st.recursive(
    st.one_of(strings, st.integers(), st.floats(allow_nan=False), st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(strings, inner, max_size=3)),
    max_leaves=8,
)
deep = st.tuples(st.integers(50, 3000), strings).map(lambda t: Deep(*t))
anything = st.one_of(values, deep)

SCENARIO_KEYS = [
    "id",
    "prompt",
    "criteria",
    "attachments",
    "expectedOutput",
    "mode",
    "workspace",
    "checkFiles",
    "output",
]


def _scenario(key: str, value: object, as_key: bool) -> dict[str, Any]:
    s: dict[str, Any] = {"id": "split", "prompt": "Split 100 in three.", "criteria": ["The shares add up to 100"]}
    if key in ("workspace", "checkFiles"):
        s["mode"] = "agent"
    if as_key and isinstance(value, str):
        s[key] = {"files": {value: "x"}} if key == "workspace" else {value: "x"}
    elif key in ("criteria", "attachments", "checkFiles"):
        s[key] = [value]
    else:
        s[key] = value
    return s


def _run(project: Path, args: list[str]) -> tuple[int, str, str]:
    out, err = io.BytesIO(), io.BytesIO()
    out_text = io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True)
    err_text = io.TextIOWrapper(err, encoding="utf-8", errors="strict", write_through=True)
    cwd = Path.cwd()
    os.chdir(project)
    try:
        with contextlib.redirect_stdout(out_text), contextlib.redirect_stderr(err_text):
            code = main([*args, "--config", "skill-be.yaml"])
    finally:
        os.chdir(cwd)
    return code, out.getvalue().decode("utf-8"), err.getvalue().decode("utf-8")


def _check(project: Path, args: list[str]) -> None:
    code, _, err = _run(project, args)
    assert code in (0, 1, 2, 3), (args, code, err[-2000:])
    assert "Traceback" not in err, err[-2000:]
    if code == 2:  # a line per mistake of the file a person wrote, at most MAX_SHOWN and the count
        lines = err.splitlines()
        assert err.endswith("\n") and 1 <= len(lines) <= MAX_SHOWN + 1, (args, err[-2000:])
        assert all(line.strip() for line in lines), (args, err[-2000:])


def _project() -> Path:
    root = Path(tempfile.mkdtemp(prefix="skill-be-fuzz-")) / "p"
    shutil.copytree(BASE, root)
    return root


_settings = settings(
    derandomize=True,
    max_examples=20,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


@_settings
@given(key=st.sampled_from(SCENARIO_KEYS), value=anything, as_key=st.booleans(), command=st.sampled_from(COMMANDS))
def test_a_generated_value_in_an_eval_file(key: str, value: object, as_key: bool, command: list[str]) -> None:
    project = _project()
    try:
        text = _dumps({"scenarios": [_scenario(key, value, as_key)]}, indent=2)
        (project / "evals" / "money.json").write_text(text, encoding="utf-8")
        _check(project, command)
    finally:
        shutil.rmtree(project.parent)


@_settings
@given(where=st.sampled_from(["whole", "scenarios", "id"]), value=anything, command=st.sampled_from(COMMANDS))
def test_a_generated_value_as_the_file(where: str, value: object, command: list[str]) -> None:
    project = _project()
    try:
        doc = value if where == "whole" else {"scenarios": value} if where == "scenarios" else {"scenarios": [value]}
        (project / "evals" / "money.json").write_text(_dumps(doc), encoding="utf-8")
        _check(project, command)
    finally:
        shutil.rmtree(project.parent)


@_settings
@given(key=st.sampled_from(["id", "run", "adapter", "new"]), value=anything, command=st.sampled_from(COMMANDS))
def test_a_generated_value_in_the_config(key: str, value: object, command: list[str]) -> None:
    project = _project()
    try:
        config = yaml.safe_load((project / "skill-be.yaml").read_text(encoding="utf-8"))
        config["model"][key] = value
        (project / "skill-be.yaml").write_text(_dumps(config), encoding="utf-8")  # JSON is YAML
        _check(project, command)
    finally:
        shutil.rmtree(project.parent)


@_settings
@given(key=st.sampled_from(["prompt", "expected_output", "files", "id", "skill_name"]), value=anything)
def test_a_generated_value_in_an_agentskills_evals_json(key: str, value: object) -> None:
    project = _project()
    try:
        (project / "evals" / "money.json").unlink()
        item: dict[str, Any] = {"id": 1, "prompt": "Split 100 in three.", "expected_output": "Three shares"}
        doc: dict[str, Any] = {"skill_name": "money", "evals": [item]}
        if key == "skill_name":
            doc[key] = value
        else:
            item[key] = value
        folder = project / "skills" / "money" / "evals"
        folder.mkdir()
        (folder / "evals.json").write_text(_dumps(doc), encoding="utf-8")
        _check(project, ["convert", "money"])
    finally:
        shutil.rmtree(project.parent)
