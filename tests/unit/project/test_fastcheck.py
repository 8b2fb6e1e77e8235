"""The fast path (project/fastcheck.py) accepts a file only when its model would: checked on every
case of the bad-input corpus, on the example projects, and on a few hundred mutations of them; and
the records it builds are the ones the model's path builds."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel, ValidationError

from skill_be.errors import ConfigError
from skill_be.project import fastcheck
from skill_be.project.characters import refuse_bad_characters
from skill_be.project.config import load_config
from skill_be.project.evals import load_eval
from skill_be.project.models import ConfigModel, EvalFileModel
from skill_be.results.models import ResultFileModel
from skill_be.results.result_file import read_result_file
from skill_be.results.summary_models import SummaryModel

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "corpus" / "bad_input"
EXAMPLES = ROOT / "examples"
MODELS: dict[str, type[BaseModel]] = {
    "config": ConfigModel,
    "eval": EvalFileModel,
    "result": ResultFileModel,
    "summary": SummaryModel,
}


def accepts(model: type[BaseModel], data: object) -> bool:
    try:
        model.model_validate(data)
    except ValidationError:
        return False
    return True


def corpus_files() -> Iterator[tuple[str, str, object]]:
    """(case, format, data) of every file of every corpus case that parses as YAML or JSON."""
    for case in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        files = {p.relative_to(CORPUS / "_base").as_posix(): p for p in (CORPUS / "_base").rglob("*") if p.is_file()}
        if (case / "files").is_dir():
            files.update(
                {p.relative_to(case / "files").as_posix(): p for p in (case / "files").rglob("*") if p.is_file()}
            )
        for rel, path in files.items():
            fmt = "config" if rel.endswith(".yaml") else "eval" if rel.startswith("evals/") else None
            fmt = "result" if rel.endswith(".result.json") else fmt
            if fmt is None:
                continue
            try:
                text = path.read_text(encoding="utf-8")
                data = yaml.safe_load(text) if fmt == "config" else json.loads(text)
            except (UnicodeDecodeError, yaml.YAMLError, json.JSONDecodeError):
                continue
            if _refused_characters(data):
                continue  # the loader refuses it before either path sees it (project/characters.py)
            yield case.name, fmt, data


def _refused_characters(data: object) -> bool:
    try:
        refuse_bad_characters(data, "", "file", "json")
    except ConfigError:
        return True
    return False


def unsound(files: list[tuple[str, str, object]]) -> list[str]:
    """The files the fast path accepts and the model refuses: must be none."""
    return [
        f"{case} ({fmt})"
        for case, fmt, data in files
        if fastcheck.conforms(fmt, data) and not accepts(MODELS[fmt], data)
    ]


def test_the_fast_path_accepts_nothing_the_model_refuses_in_the_corpus() -> None:
    files = list(corpus_files())
    refused = [f for f in files if not accepts(MODELS[f[1]], f[2])]
    assert len(refused) >= 60  # the corpus really exercises the models
    assert unsound(files) == []


def test_the_check_above_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """The control: with a schema that allows everything, the corpus shows the fast path unsound."""
    monkeypatch.setattr(fastcheck, "schema", lambda name: {})
    assert len(unsound(list(corpus_files()))) >= 60


def example_files() -> list[tuple[str, Path]]:
    configs = [("config", p) for p in sorted(EXAMPLES.glob("*/skill-be*.yaml"))]
    evals = [("eval", p) for p in sorted(EXAMPLES.glob("*/evals/*.json"))]
    return configs + evals


def test_examples_take_the_fast_path() -> None:
    for fmt, path in example_files():
        text = path.read_text(encoding="utf-8")
        assert fastcheck.conforms(fmt, yaml.safe_load(text) if fmt == "config" else json.loads(text)), path


def slow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastcheck, "conforms", lambda fmt, data: False)


@pytest.mark.parametrize(("fmt", "path"), example_files(), ids=lambda x: str(x))
def test_both_paths_build_the_same_records(monkeypatch: pytest.MonkeyPatch, fmt: str, path: Path) -> None:
    load: Callable[[Path], Any] = load_config if fmt == "config" else load_eval
    fast = load(path)._replace(places=None)
    slow(monkeypatch)
    assert load(path)._replace(places=None) == fast


def test_both_paths_read_the_same_result_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    entry = {"date": "2026-11-30", "fingerprint": "f" * 64, "ready": False, "reasons": ["x"], "models": ["m"],
             "grader": "", "scores": [{"model": "m", "scenario": "s", "line": "l", "kind": "test", "critical": False,
                                        "baseline": {"passed": 0, "total": 3}, "withSkill": {"passed": 3, "total": 3}}]}  # fmt: skip
    entry["gate"] = {"rule": "evidence", "zero": "block"}
    path.write_text(json.dumps({"skillBeVersion": "1.0.0", "skills": {"a": entry}}))
    fast = read_result_file(path)
    slow(monkeypatch)
    assert read_result_file(path) == fast and fast is not None and fast.skills["a"].get("scores")
    assert fast.skills["a"].get("gate") == {"rule": "evidence", "zero": "block"}


# Mutations: each turns a valid value into one a careless edit could leave behind.
def _values(rng: random.Random) -> list[object]:
    return [None, "", " ", 0, -1, 2.5, True, False, [], {}, "x", 3, 10**9, ["a", ""], {"k": 1}, "a/b", "..", "con"]


def _paths(node: object, here: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield here
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*here, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*here, i))


def mutate(data: object, rng: random.Random) -> object:
    out = copy.deepcopy(data)
    paths = [p for p in _paths(out) if p]
    path = rng.choice(paths)
    parent: Any = out
    for part in path[:-1]:
        parent = parent[part]
    roll = rng.random()
    if roll < 0.15 and isinstance(parent, dict):
        del parent[path[-1]]
    elif roll < 0.25 and isinstance(parent, dict):
        parent[rng.choice(["bloking", "extra", "critical", "output", "preset", "command", "entry"])] = rng.choice(
            _values(rng)
        )
    else:
        parent[path[-1]] = rng.choice(_values(rng))
    return out


def test_mutations_of_the_examples_are_never_accepted_by_the_fast_path_alone() -> None:
    rng = random.Random(13)
    checked = refused = 0
    for fmt, path in example_files():
        text = path.read_text(encoding="utf-8")
        data = yaml.safe_load(text) if fmt == "config" else json.loads(text)
        for _ in range(60):
            bad = mutate(data, rng)
            ok_fast, ok_model = fastcheck.conforms(fmt, bad), accepts(MODELS[fmt], bad)
            assert not (ok_fast and not ok_model), (path, bad)
            checked += 1
            refused += not ok_model
    assert checked >= 500 and refused >= checked // 3  # most mutations are mistakes the model catches


def test_a_keyword_the_checker_does_not_know_sends_the_data_to_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastcheck, "schema", lambda name: {"type": "object", "dependentRequired": {"a": ["b"]}})
    assert fastcheck.conforms("config", {"a": 1}) is False
    monkeypatch.setattr(fastcheck, "schema", lambda name: {"type": "object"})
    assert fastcheck.conforms("config", {"a": 1}) is True
