"""JUnit XML from summary.json's skills, typed (`results/summary_models.py` `SkillSummary`): a test suite per skill, a test case per line and model.

A line that blocks the gate is a failure with the reason; an output that could not be generated,
graded or tested is an error on its scenario's test cases; a "Release Gate" test case carries every
blocking reason, so a rule without a line of its own still shows. The schema (Jenkins' junit-10.xsd,
what CI test reporters read) has no properties on a test case: the scores go in the suite's properties
and in each test case's system-out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING
from xml.etree import ElementTree as ET

from skill_be.reports import strings
from skill_be.reports.quote import one_line
from skill_be.reports.strings import signed

if TYPE_CHECKING:
    from skill_be.results.summary_models import LineSummary, OutputSummary, SkillSummary

GATE_CASE = "Release Gate"
# Characters XML 1.0 cannot hold, even escaped: an answer's error text may carry them.
_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _flat(text: object, limit: int = 2_000) -> str:
    return one_line(text, limit, hidden="\ufffd")


def _seconds(outputs: Sequence[OutputSummary]) -> float:
    """The outputs' time: every generation and every grading of them."""
    total = 0.0
    for o in outputs:
        total += float(o.seconds or 0)
        total += sum(float(g.seconds or 0) for g in o.gradings)
    return total


def _scores(x: LineSummary) -> str:
    return f"baseline {x.baseline}%, with skill {x.with_skill}%, delta {signed(int(x.delta))}pp"


def _line_cases(name: str, skill: SkillSummary, props: ET.Element) -> tuple[list[ET.Element], float]:
    """A test case per line and model (its scores also as a suite property), and the outputs' time."""
    zero = {(z.scenario, z.line) for z in skill.gate.zero}
    regressions = {(r.scenario, r.model, r.line): r for r in skill.gate.regressions}
    cases: list[ET.Element] = []
    total = 0.0
    for sc in skill.scenarios:
        for model, m in sc.models.items():
            seconds = _seconds(m.outputs)
            total += seconds
            # One line each: an error may carry the answer's text (a runner's fatal event, a test message).
            problems = [_flat(e) for o in m.outputs for e in o.errors]
            for x in m.lines:
                line = _flat(x.line, 500)
                ET.SubElement(props, "property", name=f"{sc.id} / {line} / {model}", value=_scores(x))
                case = ET.Element("testcase", name=f"{sc.id} / {line}", classname=f"{name}.{model}")
                case.set("time", f"{seconds:.3f}")
                if (sc.id, x.line) in zero:
                    why = "universal 0%: it scored 0% with the skill on every model"
                    ET.SubElement(case, "failure", message=why, type="universal-zero").text = why
                reg = regressions.get((sc.id, model, x.line))
                if reg is not None:
                    why = (
                        f"regression on a critical scenario: {reg.baseline}% → {reg.with_skill}% "
                        f"({signed(int(reg.with_skill) - int(reg.baseline))}pp)"
                    )
                    ET.SubElement(case, "failure", message=why, type="regression").text = why
                if problems:
                    ET.SubElement(
                        case, "error", message=f"{len(problems)} error(s) in this scenario's outputs", type="error"
                    ).text = "\n".join(problems)
                ET.SubElement(case, "system-out").text = _scores(x)
                cases.append(case)
    return cases, total


def _suite(name: str, skill: SkillSummary) -> ET.Element:
    suite = ET.Element("testsuite", name=name)
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="ready", value="true" if skill.ready else "false")
    cases, total = _line_cases(name, skill, props)
    if skill.triggers is not None:
        from skill_be.reports.triggers import junit_cases

        cases += junit_cases(name, skill.triggers)
    gate_case = ET.Element("testcase", name=GATE_CASE, classname=name, time="0.000")
    if not skill.ready:
        reasons = [_flat(r) for r in skill.reasons] or [strings.NOT_READY]
        ET.SubElement(gate_case, "failure", message=strings.NOT_READY, type="gate").text = "\n".join(reasons)
    cases.append(gate_case)
    suite.extend(cases)
    # A case counts once: as a failure when a rule blocks on it, else as an error when its outputs had any.
    failed = sum(1 for c in cases if c.find("failure") is not None)
    errored = sum(1 for c in cases if c.find("failure") is None and c.find("error") is not None)
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(failed))
    suite.set("errors", str(errored))
    suite.set("skipped", "0")
    suite.set("time", f"{total:.3f}")
    return suite


def junit_xml(skills: Mapping[str, SkillSummary], name: str = "skill-be") -> str:
    """The whole document: `skills` is summary.json's skills, typed (`results/summary_file.typed_skills`
    turns the document a run builds into them), in its order."""
    root = ET.Element("testsuites", name=name)
    suites = [_suite(skill_name, skill) for skill_name, skill in skills.items()]
    root.extend(suites)
    for attr in ("tests", "failures", "errors"):
        root.set(attr, str(sum(int(s.get(attr) or 0) for s in suites)))
    root.set("time", f"{sum(float(s.get('time') or 0) for s in suites):.3f}")
    for el in root.iter():
        if el.text:
            el.text = _INVALID.sub("\ufffd", el.text)
        for k, val in el.attrib.items():
            el.set(k, _INVALID.sub("\ufffd", val))
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
