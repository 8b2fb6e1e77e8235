"""wiring/assembly.py and the triage driver: the parts are built and preflighted only when asked,
the code-test session always closes, and triage makes every model call through Engine.call."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

import pytest

from skill_be.adapters.base import AdapterStartError, Answer, CallContext
from skill_be.engine.limiter import PriorityLimiter
from skill_be.engine.runner import Call, CallTag, Engine, Model
from skill_be.engine.triage import REASONS, Failure, Triage
from skill_be.project.loader import Project, load_project
from skill_be.wiring import assembly
from skill_be.wiring.assembly import assemble, engine_settings

CONFIG = """\
skills: ./skills
evals: ./evals
model:
  adapter: command
  id: m1
  run: ./missing-model.sh
grader:
  adapter: command
  id: judge
  run: ./missing-grader.sh
"""


def project(tmp_path: Path, extra: str = "") -> Project:
    (tmp_path / "skills" / "money").mkdir(parents=True)
    (tmp_path / "skills" / "money" / "SKILL.md").write_text("---\nname: money\n---\n# Money\nUse allocate.\n")
    (tmp_path / "evals").mkdir()
    scenario = {"id": "split", "prompt": "Split a bill.", "criteria": ["Uses allocate", "Uses format"]}
    (tmp_path / "evals" / "money.json").write_text(json.dumps({"scenarios": [scenario]}))
    (tmp_path / "skill-be.yaml").write_text(CONFIG + extra)
    return load_project(tmp_path / "skill-be.yaml")


class Scripted:
    """An adapter answering from a function of the prompt."""

    def __init__(self, label: str, answer: Callable[[str], str]) -> None:
        self.label = label
        self.answer = answer

    async def preflight(self) -> None:
        pass

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        return Answer(self.answer(prompt))

    def describe(self) -> Mapping[str, object]:
        return {"adapter": "scripted"}


class CountingEngine(Engine):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.calls: list[tuple[str, CallTag, str]] = []

    async def call(self, model: Model, prompt: str, priority: tuple[int, ...], tag: CallTag) -> Call:
        self.calls.append((model.label, tag, prompt))
        return await super().call(model, prompt, priority, tag)


def test_triage_makes_every_model_call_through_the_engine(tmp_path: Path) -> None:
    p = project(tmp_path)
    model = Model("m1", Scripted("m1", lambda prompt: "allocate(100)"))
    grader = Model("judge", Scripted("judge", lambda prompt: "1. uses it\n2. no format\nVERDICTS:\n1: YES\n2: NO"))
    classifier = Model("cls", Scripted("cls", lambda prompt: "CATEGORY: skill gap\nREASON: never shown"))
    engine = CountingEngine([model], grader, PriorityLimiter(2), engine_settings(p.config), None)
    triage = Triage(engine, p, {"m1": model}, classifier, 2, {})
    failure = Failure("money", "split", "m1", "Uses format", "universal 0%")
    [done] = asyncio.run(triage.all([failure]))
    assert done.proposal == ("skill gap", "never shown") and done.why == ""
    assert [s.passed for s in done.samples] == [False, False]
    assert [s.evidence for s in done.samples] == ["1. uses it\n2. no format"] * 2
    kinds = sorted(tag.kind for _, tag, _ in engine.calls)
    assert kinds == ["classify", "generate", "generate", "grade", "grade"]
    assert sorted(tag.rep for _, tag, _ in engine.calls if tag.kind == "generate") == [1, 2]  # samples apart
    grading_prompts = [prompt for label, tag, prompt in engine.calls if tag.kind == "grade"]
    assert all(label == "judge" for label, tag, _ in engine.calls if tag.kind == "grade")
    assert all(REASONS.strip() in prompt for prompt in grading_prompts)
    assert [label for label, tag, _ in engine.calls if tag.kind == "classify"] == ["cls"]


def test_a_failed_call_in_triage_is_data_not_a_crash(tmp_path: Path) -> None:
    p = project(tmp_path)

    def boom(prompt: str) -> str:
        raise RuntimeError("model down")

    model = Model("m1", Scripted("m1", boom))
    engine = CountingEngine([model], None, PriorityLimiter(2), engine_settings(p.config), None)
    triage = Triage(engine, p, {"m1": model}, None, 1, {})
    [done] = asyncio.run(triage.all([Failure("money", "split", "m1", "Uses format", "universal 0%")]))
    assert done.proposal is None and done.why == "no sample could be generated"
    assert done.samples[0].error == "model down"
    [gone] = asyncio.run(triage.all([Failure("money", "split", "old-model", "Uses format", "universal 0%")]))
    assert gone.why == 'the model "old-model" is no longer in the config'


def test_assemble_builds_and_preflights_only_what_is_asked(tmp_path: Path) -> None:
    p = project(tmp_path)

    async def nothing() -> None:
        async with assemble(p, models=False) as parts:
            assert (parts.models, parts.grader, parts.classifier, parts.tests) == ([], None, None, None)

    asyncio.run(nothing())  # the missing programs are never looked at

    async def with_grader() -> None:
        async with assemble(p, models=False, grader=True):
            raise AssertionError("preflight must stop this")

    with pytest.raises(AdapterStartError, match=r"missing-grader\.sh"):
        asyncio.run(with_grader())

    async def with_models() -> None:
        async with assemble(p):
            raise AssertionError("preflight must stop this")

    with pytest.raises(AdapterStartError, match=r"missing-model\.sh"):
        asyncio.run(with_models())


def test_the_classifier_is_built_only_when_the_config_names_one(tmp_path: Path) -> None:
    script = tmp_path / "ok.sh"
    script.write_text("#!/bin/sh\necho ok\n")
    script.chmod(0o755)
    p = project(tmp_path, "triage:\n  model:\n    adapter: command\n    id: cls\n    run: ./ok.sh\n")

    async def go() -> None:
        async with assemble(p, models=False, classifier=True) as parts:
            assert parts.classifier is not None and parts.classifier.label == "cls"
        async with assemble(p, models=False, classifier=False) as parts:
            assert parts.classifier is None

    asyncio.run(go())


def test_the_code_test_session_closes_even_when_the_work_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = project(tmp_path)
    closed: list[bool] = []

    async def close() -> None:
        closed.append(True)

    async def fake_open(project: Project, keep_deps: bool) -> tuple[object, Callable[[], Awaitable[None]]]:
        return object(), close

    monkeypatch.setattr(assembly, "open_code_tests", fake_open)

    async def go() -> None:
        async with assemble(p, models=False) as parts:
            assert parts.tests is not None
            raise ValueError("the work failed")

    with pytest.raises(ValueError, match="the work failed"):
        asyncio.run(go())
    assert closed == [True]
