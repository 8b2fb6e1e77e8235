"""JUnit XML against the Jenkins JUnit schema, and the pricing: its config, the plan and the cost line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
import xmlschema

from skill_be.adapters.base import Usage
from skill_be.engine import pricing as p
from skill_be.engine.observations import Output
from skill_be.errors import ConfigError
from skill_be.project.config import load_config
from skill_be.reports.junit import GATE_CASE, junit_xml
from skill_be.results.summary_file import parse_summary, typed_skills

XSD = Path(__file__).parents[2] / "fixtures" / "junit" / "junit-10.xsd"
FIXTURES = Path(__file__).parents[2] / "fixtures" / "summary"


def line(name: str, b: int, w: int) -> dict[str, Any]:
    return {"line": name, "kind": "criterion", "baseline": b, "withSkill": w, "delta": w - b}


def out(seconds: float, errors: list[str] | None = None) -> dict[str, Any]:
    """One output as summary.json holds it: its time, one grading's, its errors."""
    grading = {"k": 1, "verdicts": None, "seconds": seconds / 2}
    return {"rep": 1, "arm": "withSkill", "seconds": seconds, "gradings": [grading], "errors": errors or []}


def scenario(sid: str, models: dict[str, Any]) -> dict[str, Any]:
    return {"id": sid, "critical": True, "prompt": "", "criteria": [], "tests": [], "models": models}


def summary(ready: bool, reasons: list[str], gate: dict[str, Any], scenarios: list[dict[str, Any]]) -> dict[str, Any]:
    """A skill's whole summary (results/summary_models.py `SkillSummary`): what the JUnit file is
    rendered from, the keys it does not read at their plainest."""
    return {"ready": ready, "reasons": reasons, "errors": gate["errors"], "seconds": 0, "fingerprint": "f" * 64,
            "graded": True, "gate": gate, "scenarios": scenarios}  # fmt: skip


SKILLS: dict[str, Any] = {
    "money": summary(
        False,
        ['universal 0%: split — "Uses allocate"', "regression: ..."],
        {
            "zero": [{"scenario": "split", "line": "Uses allocate"}],
            "regressions": [
                {"scenario": "split", "model": "m2", "line": "Rounds <half> & \x01up", "baseline": 100, "withSkill": 50}
            ],
            "errors": 1,
        },
        [
            scenario(
                "split",
                {
                    "m1": {
                        "lines": [line("Uses allocate", 0, 0), line("Rounds <half> & \x01up", 50, 100)],
                        "outputs": [out(1.0), out(2.0, ["rep 1 baseline: the generation failed (boom)"])],
                    },
                    "m2": {
                        "lines": [line("Uses allocate", 0, 0), line("Rounds <half> & \x01up", 100, 50)],
                        "outputs": [out(0.5)],
                    },
                },
            )
        ],
    ),
    "dates": summary(
        True,
        [],
        {"zero": [], "regressions": [], "errors": 0},
        [scenario("parse", {"m1": {"lines": [line("Uses parse", 0, 100)], "outputs": [out(1)]}})],
    ),
}
TYPED = typed_skills(SKILLS)
FROM_SUMMARY = XSD.parent / "from-summary"


def test_junit_is_valid_against_the_jenkins_schema_with_a_failure_per_blocking_line() -> None:
    text = junit_xml(TYPED)
    xmlschema.XMLSchema(str(XSD)).validate(text)  # raises on any violation
    root = ET.fromstring(text)
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == ["money", "dates"]
    money = suites["money"]
    cases = {(c.get("classname"), c.get("name")): c for c in money.findall("testcase")}
    assert set(cases) == {
        ("money.m1", "split / Uses allocate"),
        ("money.m1", "split / Rounds <half> & \ufffdup"),
        ("money.m2", "split / Uses allocate"),
        ("money.m2", "split / Rounds <half> & \ufffdup"),
        ("money", GATE_CASE),
    }
    # universal 0% fails on every model; the regression only on the model where it happened
    assert cases[("money.m1", "split / Uses allocate")].find("failure").get("type") == "universal-zero"  # type: ignore[union-attr]
    assert cases[("money.m2", "split / Uses allocate")].find("failure") is not None
    assert cases[("money.m1", "split / Rounds <half> & \ufffdup")].find("failure") is None
    reg = cases[("money.m2", "split / Rounds <half> & \ufffdup")].find("failure")
    assert reg is not None and reg.get("message") == "regression on a critical scenario: 100% → 50% (-50pp)"
    # the outputs' errors on m1 are an error on m1's cases; time is the outputs' generations and gradings
    err = cases[("money.m1", "split / Rounds <half> & \ufffdup")].find("error")
    assert err is not None and "the generation failed (boom)" in (err.text or "")
    assert cases[("money.m1", "split / Uses allocate")].get("time") == "4.500"
    gate = cases[("money", GATE_CASE)].find("failure")
    assert gate is not None and 'universal 0%: split — "Uses allocate"' in (gate.text or "")
    assert (money.get("tests"), money.get("failures"), money.get("errors")) == ("5", "4", "1")
    props = {pr.get("name"): pr.get("value") for pr in money.find("properties")}  # type: ignore[union-attr]
    assert props["ready"] == "false"
    assert props["split / Rounds <half> & \ufffdup / m2"] == "baseline 100%, with skill 50%, delta -50pp"
    dates = suites["dates"]
    assert (dates.get("tests"), dates.get("failures"), dates.get("errors")) == ("2", "0", "0")
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("7", "4", "1")


def test_the_schema_check_catches_a_broken_document() -> None:
    """The control: the validator rejects a test case without a name, so the test above can fail."""
    bad = junit_xml(TYPED).replace('name="split / Uses allocate"', "", 1)
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        xmlschema.XMLSchema(str(XSD)).validate(bad)


def summaries() -> list[tuple[str, dict[str, Any]]]:
    """(name, summary.json's skills): every summary fixture, one with trigger calls, and SKILLS above."""
    found = sorted(p for p in FIXTURES.glob("*.json") if p.name != "shard_manifest.json")
    docs = [(p.stem, json.loads(p.read_text(encoding="utf-8"))) for p in found]
    docs.append(("triggers-summary", json.loads((XSD.parent / "triggers-summary.json").read_text(encoding="utf-8"))))
    return [*((name, doc["skills"]) for name, doc in docs), ("unit-skills", SKILLS)]


@pytest.mark.parametrize(("name", "skills"), summaries(), ids=lambda x: x if isinstance(x, str) else "")
def test_the_xml_from_the_typed_summary_is_what_the_dict_gave(name: str, skills: dict[str, Any]) -> None:
    """from-summary/*.xml: what the renderer wrote from summary.json's dicts, before it read types."""
    text = junit_xml(typed_skills(skills))
    assert text == (FROM_SUMMARY / f"{name}.xml").read_text(encoding="utf-8")
    xmlschema.XMLSchema(str(XSD)).validate(text)


def test_the_typed_summary_is_the_files() -> None:
    """The trigger fixture is a summary.json its reader takes, and the renderer sees its trigger calls."""
    path = XSD.parent / "triggers-summary.json"
    typed = parse_summary(path.read_text(encoding="utf-8"), path.name).skills
    assert junit_xml(typed) == (FROM_SUMMARY / "triggers-summary.xml").read_text(encoding="utf-8")
    assert "trigger shouldNot-0" in junit_xml(typed)


def test_control_another_summary_gives_other_xml() -> None:
    """The control: the comparison above sees a changed verdict, a changed score and a dropped call."""
    want = (FROM_SUMMARY / "unit-skills.xml").read_text(encoding="utf-8")
    flipped = {**SKILLS, "dates": {**SKILLS["dates"], "ready": False}}
    assert junit_xml(typed_skills(flipped)) != want
    moved = json.loads(json.dumps(SKILLS))
    moved["money"]["scenarios"][0]["models"]["m1"]["lines"][0]["withSkill"] = 1
    assert junit_xml(typed_skills(moved)) != want
    path = XSD.parent / "triggers-summary.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["skills"]["money"]["triggers"]["calls"].pop()
    assert junit_xml(typed_skills(doc["skills"])) != (FROM_SUMMARY / "triggers-summary.xml").read_text(encoding="utf-8")


def test_a_partial_summary_is_refused_not_rendered() -> None:
    """The typed summary needs every key it names (here "errors"): the fixtures above are whole."""
    partial = {k: v for k, v in SKILLS["dates"].items() if k != "errors"}
    with pytest.raises(ValueError, match="errors"):
        typed_skills({"dates": partial})


def test_pricing_config_and_its_mistakes(tmp_path: Path) -> None:
    """`pricing:` is validated by the config model, with the other keys: one line with the place."""
    config = tmp_path / "skill-be.yaml"
    base = "skills: ./skills\nevals: ./evals\nmodel: {adapter: claude-cli, id: sonnet}\ngrader: {adapter: claude-cli, id: s}\n"
    config.write_text(base + "pricing:\n  sonnet: {input: 3, output: 15}\n")
    assert load_config(config).pricing == {"sonnet": p.Price(3.0, 15.0)}
    cases = [
        ("[]", "pricing: must map each model id to its prices"),
        ("{sonnet: {input: 3}}", 'pricing.sonnet: missing required key "output"'),
        ('{sonnet: {input: "3", output: 1}}', "pricing.sonnet.input: must be a number of US dollars"),
        ("{sonnet: {input: -1, output: 1}}", "pricing.sonnet.input: must be a number"),
        ("{sonnet: {input: 1, output: 1, cached: 1}}", 'pricing.sonnet: unknown key "cached"'),
    ]
    for value, message in cases:
        config.write_text(base + f"pricing: {value}\n")
        with pytest.raises(ConfigError) as e:
            load_config(config)
        assert "skill-be.yaml:5:" in str(e.value) and f": {message}" in str(e.value), str(e.value)


def o(arm: str, chars: int, text: str, usage: Usage | None = None) -> Output:
    return Output(scenario="s", model="m1", rep=1, arm=arm, prompt_chars=chars, text=text, usage=usage)


def test_cost_per_arm_and_the_extra_cost_of_the_skill_text() -> None:
    prices = {"m1": p.Price(3.0, 15.0)}
    outputs = [
        o("baseline", 0, "", Usage(1000, 100)),
        o("with-skill", 0, "", Usage(5000, 100)),
    ]
    # baseline 1000*3/1e6 + 100*15/1e6 = 0.0045; with skill 0.015 + 0.0015 = 0.0165
    assert p.cost_line(outputs, prices, {"m1": "m1"}, "baseline", "with-skill") == (
        "Cost (pricing in skill-be.yaml): baseline $0.0045, with skill $0.0165 (+$0.0120 for the skill text)."
    )
    estimated = [o("baseline", 4000, "x" * 400), o("with-skill", 8000, "x" * 400)]
    line_ = p.cost_line(estimated, prices, {"m1": "m1"}, "baseline", "with-skill")
    assert "baseline $0.0045, with skill $0.0075 (+$0.0030 for the skill text)" in line_
    assert "estimated from characters" in line_
    assert p.cost_line(outputs, {}, {}, "baseline", "with-skill") == ""
    assert p.cost_line(outputs, {"other": p.Price(1, 1)}, {"m1": "m1"}, "baseline", "with-skill") == ""
