"""summary.json and shard.json are their models' dumps: files written before the models existed (by
dict literals, kept under tests/fixtures/summary/) come back byte for byte, and readers get types."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skill_be.errors import ConfigError
from skill_be.results.shard_models import ShardManifest
from skill_be.results.summary_file import failures, parse_summary, read_summary
from skill_be.results.summary_models import SummaryModel

FIXTURES = Path(__file__).parents[2] / "fixtures" / "summary"
SUMMARIES = sorted(p for p in FIXTURES.glob("*.json") if p.name != "shard_manifest.json")


@pytest.mark.parametrize("path", SUMMARIES, ids=lambda p: p.stem)
def test_a_summary_written_by_dict_literals_is_the_models_dump(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert read_summary(path).to_json() == text


def test_the_dump_keeps_the_writers_nulls_and_absences_and_unknown_keys() -> None:
    doc = json.loads((FIXTURES / "basic.json").read_text(encoding="utf-8"))
    skill = next(iter(doc["skills"].values()))
    output = skill["scenarios"][0]["models"][next(iter(skill["scenarios"][0]["models"]))]["outputs"][0]
    assert output["file"] is not None
    output["file"] = None  # written as null: stays null
    del skill["graded"]  # missing required key: the reader says so
    doc["triggers"] = {"added": "by a later feature"}  # unknown: kept, after the known keys
    with pytest.raises(ConfigError, match=r'skills\.[a-z-]+: missing required key "graded"'):
        parse_summary(json.dumps(doc), "summary.json")
    skill["graded"] = True
    dumped = parse_summary(json.dumps(doc), "summary.json").to_doc()
    out = next(iter(dumped["skills"].values()))["scenarios"][0]
    assert next(iter(out["models"].values()))["outputs"][0]["file"] is None
    assert list(dumped)[-1] == "triggers" and dumped["triggers"] == {"added": "by a later feature"}
    # control: a key the writer left out stays out (the intervals of a run without the evidence rule)
    assert "deltaInterval" not in json.dumps(SummaryModel.of({**doc, "skills": {}}).to_doc())


def test_the_models_order_is_the_files_order_whatever_the_input_order() -> None:
    text = (FIXTURES / "basic.json").read_text(encoding="utf-8")
    doc = json.loads(text)
    shuffled = dict(reversed(list(doc.items())))
    assert json.dumps(shuffled, indent=2, ensure_ascii=False) + "\n" != text  # control: the order shows
    assert SummaryModel.of(shuffled).to_json() == text


def test_a_broken_summary_is_one_line_with_the_place_and_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "summary.json"
    path.write_text('{"schema": 1, "skillBeVersion": "1.0.0", "skills": {"a": {"ready": "yes"}}}\n')
    with pytest.raises(ConfigError) as e:
        read_summary(path, "run it again")
    assert "\n" not in str(e.value)
    assert str(e.value).endswith("run it again") and "skills.a" in str(e.value)


def test_failures_read_the_typed_gate() -> None:
    summary = read_summary(FIXTURES / "evidence_blocks.json")
    found = failures(summary, list(summary.skills), below=101)
    assert found, "every line is below 101%"
    assert {f.skill for f in found} <= set(summary.skills)
    assert all(f.why.endswith("below 101%") or f.why.startswith(("universal", "regression")) for f in found)


def test_a_shard_manifest_is_its_models_dump() -> None:
    text = (FIXTURES / "shard_manifest.json").read_text(encoding="utf-8")
    manifest = ShardManifest.of_doc(json.loads(text))
    assert manifest.to_json() == text
    assert manifest.complete and manifest.skills


@pytest.mark.parametrize("rule", ["strict", "evidence"])
def test_what_the_writer_builds_is_the_models_dump(rule: str, tmp_path: Path) -> None:
    """The run writes summary.json from reports/summary.py without importing pydantic: every document
    it builds must be exactly what the model would write (fresh runs here, old files above)."""
    import asyncio

    from tests.support.engine import Scripted, engine, scenario, settings, skill, verdicts

    from skill_be.engine.calls import Model
    from skill_be.project.config import GateConfig
    from skill_be.reports.summary import run_summary, skill_summary

    replies = iter([verdicts(True, False), "no verdicts", RuntimeError("grader down")] * 100)
    grader = Scripted(lambda prompt, n: next(replies))
    model = Scripted(lambda prompt, n: RuntimeError("quota") if n == 3 else "Use allocate.")
    s = settings(reps=3, gradings=2, gate=GateConfig(rule=rule))
    crit = skill(scenarios=[scenario("split", ("Uses allocate", "Sums up"), critical=True), scenario("plain")])
    run = asyncio.run(engine([Model("m", model)], Model("g", grader), s).run_skill(crit, 0))
    doc = run_summary(
        {"startedAt": "2026-12-01T00:00:00.000+00:00", "reps": 3, "models": [{"label": "m"}], "cache": None},
        {"money": skill_summary(run, ["m"], "f" * 64, lambda o: tmp_path / "x.md" if o.text else None, tmp_path)},
        None,
    )
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    assert run.errors, "the run had failures to record"
    assert SummaryModel.of(json.loads(text)).to_json() == text


def test_the_merged_features_keys_are_typed_in_the_writers_order(tmp_path: Path) -> None:
    """Trigger evals (a skill's `triggers`, after `scenarios`), Ctrl-C (`interrupted`, run-level before
    `skills` and per skill at the end) and the evidence rule's `why`/`oneScenario`: fields of the model in
    the writer's positions, so the dump is the writer's bytes (an unknown key would move to the end)."""
    import asyncio
    from dataclasses import replace

    from tests.support.engine import Scripted, engine, scenario, settings, skill, verdicts

    from skill_be.engine.calls import Model
    from skill_be.engine.trigger_scores import Observation, decide
    from skill_be.project.config import GateConfig
    from skill_be.project.triggers import TriggerQuery
    from skill_be.reports.summary import run_summary, skill_summary
    from skill_be.results.summary_models import SkillSummary

    grader = Scripted(lambda prompt, n: verdicts(True))
    model = Scripted(lambda prompt, n: "Use allocate.")
    gate = GateConfig(rule="evidence")
    crit = skill(scenarios=[scenario("split", ("Uses allocate",), critical=True)])
    run = asyncio.run(engine([Model("m", model)], Model("g", grader), settings(reps=2, gate=gate)).run_skill(crit, 0))
    queries = [
        TriggerQuery("split the bill", "should", ("triggers", "should", 0)),
        TriggerQuery("weather?", "shouldNot", ("triggers", "shouldNot", 0)),
    ]
    seen = [Observation(queries[0], "m", 1, "money", seconds=0.25), Observation(queries[1], "m", 1, None, seconds=1)]
    run.gate = replace(run.gate, trigger=decide("money", ["money", "other"], queries, ["m"], seen, 1, gate))
    doc = skill_summary(run, ["m"], "f" * 64, lambda o: None, tmp_path)
    skills = {
        "money": {**doc, "tokens": {"baseline": {"input": 1, "output": 2}, "withSkill": {"input": 3, "output": 4}}}
    }
    skills["money"] = {**skills["money"], "ready": False, "interrupted": True}
    text = json.dumps(run_summary({"cache": None, "interrupted": True}, skills, None), indent=2) + "\n"
    assert list(doc)[-1] == "triggers" and "why" in doc["effect"] and "oneScenario" in doc["effect"]
    assert SummaryModel.of(json.loads(text)).to_json() == text
    typed = SummaryModel.of(json.loads(text))
    assert typed.interrupted is True and typed.skills["money"].interrupted is True
    assert typed.skills["money"].triggers is not None and typed.skills["money"].triggers.calls
    # control: the same keys unknown to the model move after the known ones, and the bytes differ
    assert "triggers" in SkillSummary.model_fields
    bare = json.loads(text)
    bare["skills"]["money"] = {"triggersX" if k == "triggers" else k: v for k, v in bare["skills"]["money"].items()}
    moved = json.dumps(bare, indent=2) + "\n"
    assert SummaryModel.of(json.loads(moved)).to_json() != moved


def test_an_outputs_agent_part_is_typed_and_its_adapter_keys_kept() -> None:
    """An agent scenario's output records its run under `adapter.agent` (agents/record.py summary_of);
    an ordinary adapter's own keys stay as written."""
    from skill_be.agents.record import summary_of

    doc = json.loads((FIXTURES / "basic.json").read_text(encoding="utf-8"))
    skill = next(iter(doc["skills"].values()))
    outputs = next(iter(skill["scenarios"][0]["models"].values()))["outputs"]
    transcript = {"skillsLoaded": {"money": 2}, "turns": 3, "toolCalls": [{}], "inputTokens": 5, "costUsd": 0.5}
    outputs[0]["adapter"] = {"agent": summary_of({"transcript": transcript, "seconds": 1.5, "exit": "0"}, "money")}
    outputs[1]["adapter"] = {"cli": "claude", "version": "2.1"}
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    typed = parse_summary(text, "summary.json")
    assert typed.to_json() == text
    out = next(iter(typed.skills.values())).scenarios[0].models
    agent = next(iter(out.values())).outputs[0].adapter.agent
    assert agent is not None and agent.loaded and agent.loaded_turn == 2 and agent.tool_calls == 1
    outputs[0]["adapter"]["agent"]["turns"] = "three"  # control: a wrong type is one line, not a traceback
    with pytest.raises(ConfigError, match=r"adapter\.agent\.turns") as e:
        parse_summary(json.dumps(doc), "summary.json")
    assert "\n" not in str(e.value)
