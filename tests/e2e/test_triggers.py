"""Trigger evals as a user runs them: `run` against scripted Anthropic and OpenAI servers that read the
offered tools and call one by the test's rules; the rates, the confusion table and the gate come out
exactly as constructed; `triggers --description`; `--dry-run`; bad input is one line and exit 2."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.e2e.run.helpers import run, write

SUPPORT = Path(__file__).parents[1] / "support" / "mock_model_server.py"
KEY = {"TRIGGER_TEST_KEY": "dummy-key"}

DURATION = "Use when code reads, adds or prints lengths of time such as timeouts or elapsed times."
MONEY = "Use when code splits, rounds or formats amounts of money."
SHOULD = ["parse the build log duration 1h 5m", "add two timeout durations", "print the elapsed duration"]
SHOULD_NOT = ["what is the capital of Egypt?", "format this date as ISO"]
NEAR = "split the invoice money between three people"


@pytest.fixture(scope="module")
def mock(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    spec = importlib.util.spec_from_file_location("mock_model_server_triggers", SUPPORT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mock_model_server_triggers", module)
    spec.loader.exec_module(module)
    server = module.MockServer(str(tmp_path_factory.mktemp("mock")), netns=False)
    yield server
    server.stop()


def project(root: Path, model: dict[str, Any], config: dict[str, Any] | None = None, triggers: Any = "default") -> Path:
    write(root / "skills" / "duration" / "SKILL.md", f"---\nname: duration\ndescription: {DURATION}\n---\n# D\n")
    write(root / "skills" / "money" / "SKILL.md", f"---\nname: money\ndescription: {MONEY}\n---\n# M\n")
    scenarios = [{"id": "hi", "prompt": "Greet.", "criteria": ["Says hello"]}]
    trig = (
        {"should": SHOULD, "shouldNot": [*SHOULD_NOT, {"prompt": NEAR, "near": True}]}
        if triggers == "default"
        else triggers
    )
    doc: dict[str, Any] = {"scenarios": scenarios}
    if trig is not None:
        doc["triggers"] = trig
    write(root / "evals" / "duration.json", json.dumps(doc, indent=2))
    write(root / "grader.py", "print('VERDICTS:\\n1: YES')\n")
    cfg: dict[str, Any] = {
        "skills": "./skills",
        "evals": "./evals",
        "model": model,
        "grader": {"adapter": "command", "id": "judge", "run": f"{sys.executable} grader.py"},
        "reps": 2,
        "gradings": 1,
        "checks": {"typecheck": False},
    }
    cfg.update(config or {})
    write(root / "skill-be.yaml", yaml.safe_dump(cfg, sort_keys=False))
    return root


def anthropic(mock: Any) -> dict[str, Any]:
    return {"adapter": "anthropic", "id": "m1", "baseUrl": mock.base_url, "apiKeyEnv": "TRIGGER_TEST_KEY"}


def openai(mock: Any) -> dict[str, Any]:
    return {"adapter": "openai", "id": "m1", "baseUrl": mock.base_url + "/v1", "apiKeyEnv": "TRIGGER_TEST_KEY"}


def tools(*rules: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "tools", "rules": list(rules), "text": "Say hello"}


@pytest.mark.parametrize("adapter", [anthropic, openai])
def test_rates_and_confusion_come_out_as_the_server_chooses(tmp_path: Path, mock: Any, adapter: Any) -> None:
    # duration on "duration" queries, the neighbour on "money", nothing otherwise; one should query
    # ("parse the build log ...") is answered in text that names the skill without calling it.
    mock.reset()
    mock.script(
        default=tools(
            {"when": "parse", "say": "I would use the duration skill for this."},
            {"when": "duration", "call": "duration"},
            {"when": "money", "call": "money"},
        )
    )
    root = project(tmp_path, adapter(mock), {"gate": {"trigger": {"minRecall": 60, "maxFalseTrigger": 10}}})
    r = run(root, "run", "--html", env=KEY)
    assert r.code == 0, r.stderr + r.stdout
    calls = [c for c in mock.model_calls() if "tools" in json.loads(c["body"])]
    assert len(calls) == 6 * 2  # 6 queries x 2 reps
    offered = json.loads(calls[0]["body"])["tools"]
    names = sorted(t.get("name") or t["function"]["name"] for t in offered)
    assert names == ["duration", "money"]
    described = {
        t.get("name") or t["function"]["name"]: t.get("description") or t["function"]["description"] for t in offered
    }
    assert described == {"duration": DURATION, "money": MONEY}
    t = r.summary()["skills"]["duration"]["triggers"]
    m = t["models"]["m1"]
    assert (m["recall"]["hits"], m["recall"]["total"]) == (4, 6)  # the text-only mention is not a trigger
    assert (m["falseTrigger"]["hits"], m["falseTrigger"]["total"]) == (0, 4)
    assert (m["nearMiss"]["hits"], m["nearMiss"]["total"]) == (0, 2)
    assert m["confusion"] == {
        "should": {"duration": 4, "money": 0, "(none)": 2},
        "shouldNot": {"duration": 0, "money": 0, "(none)": 4},
        "near": {"duration": 0, "money": 2, "(none)": 0},
    }
    assert [c["outcome"] for c in t["checks"]] == ["pass", "pass"]
    report = (r.run_dir() / "duration.md").read_text() if (r.run_dir() / "duration.md").exists() else r.stdout
    assert "- Recall (loaded on should): 67% (4/6; 95% CI 30–90%)" in report
    assert "| near miss | 0 | 2 | 0 |" in report
    assert "Trigger calls: 12; tokens 600 in, 108 out (12 reported)." in report
    page = (r.run_dir() / "results.html").read_text()
    assert "<h3>Trigger evals</h3>" in page and '67% <span class="muted small">(4/6; [30–90])</span>' in page
    assert "<tr><td>near</td><td>0</td><td>2</td><td>0</td></tr>" in page
    # both files conform to their published schemas (and read through their models)
    from skill_be.project import fastcheck
    from skill_be.results.models import ResultFileModel
    from skill_be.results.summary_models import SummaryModel

    assert fastcheck.conforms("summary", r.summary()) and fastcheck.conforms("result", r.result_file())
    SummaryModel.model_validate(r.summary())
    ResultFileModel.model_validate(r.result_file())
    result = r.result_file()["skills"]["duration"]["triggers"]
    assert result["models"]["m1"]["recall"]["hits"] == 4 and "calls" not in result


def test_strict_blocks_on_the_point_estimate_and_evidence_is_inconclusive(tmp_path: Path, mock: Any) -> None:
    # Always this skill: recall 100%, false-trigger 100% (4 of 4 shouldNot calls).
    mock.reset()
    mock.script(default=tools({"call": "duration"}))
    gate = {"trigger": {"minRecall": 90, "maxFalseTrigger": 50}}
    root = project(tmp_path / "strict", anthropic(mock), {"gate": gate})
    r = run(root, "run", "--junit", "j.xml", env=KEY)
    assert r.code == 1, r.stderr + r.stdout
    t = r.summary()["skills"]["duration"]["triggers"]
    assert [(c["key"], c["outcome"]) for c in t["checks"]] == [("minRecall", "pass"), ("maxFalseTrigger", "block")]
    assert (
        "trigger false-trigger rate on m1: 100% (4/4; 95% CI 51–100%), needs at most 50%: blocks"
        in (r.result_file()["skills"]["duration"]["reasons"])
    )
    junit = (root / "j.xml").read_text()
    assert junit.count('name="trigger ') == 6
    assert junit.count('type="trigger"') == 3  # the two shouldNot queries and the near miss loaded it
    # Under evidence: 4/4 has a Wilson interval of 51-100%, wholly above 50% (blocks) but not above
    # 60% (inconclusive); recall 6/6 (61-100%) is inconclusive against 90%
    root = project(tmp_path / "evidence50", anthropic(mock), {"gate": {**gate, "rule": "evidence"}})
    r = run(root, "run", env=KEY)
    assert r.code == 1, r.stderr + r.stdout
    t = r.summary()["skills"]["duration"]["triggers"]
    assert [c["outcome"] for c in t["checks"]] == ["inconclusive", "block"]
    gate = {"trigger": {"minRecall": 90, "maxFalseTrigger": 60}}
    root = project(tmp_path / "evidence", anthropic(mock), {"gate": {**gate, "rule": "evidence"}})
    r = run(root, "run", env=KEY)
    assert r.code == 0, r.stderr + r.stdout
    t = r.summary()["skills"]["duration"]["triggers"]
    assert [c["outcome"] for c in t["checks"]] == ["inconclusive", "inconclusive"]
    assert all(c["reps"] > 2 for c in t["checks"])
    assert "about 29 reps per query would decide it" in r.stdout
    # gate.inconclusive: block turns it into a block
    root = project(
        tmp_path / "blocking", anthropic(mock), {"gate": {**gate, "rule": "evidence", "inconclusive": "block"}}
    )
    assert run(root, "run", env=KEY).code == 1


def test_evidence_blocks_when_the_whole_interval_is_on_the_wrong_side(tmp_path: Path, mock: Any) -> None:
    mock.reset()
    mock.script(default=tools())  # never calls a tool: recall 0/30
    gate = {"rule": "evidence", "trigger": {"minRecall": 50}}
    root = project(tmp_path, anthropic(mock), {"gate": gate, "reps": 10})
    r = run(root, "run", env=KEY)
    assert r.code == 1, r.stdout
    check = r.summary()["skills"]["duration"]["triggers"]["checks"][0]
    assert (check["outcome"], check["rate"]["hits"], check["rate"]["total"]) == ("block", 0, 30)


def test_description_comparison_and_dry_run(tmp_path: Path, mock: Any) -> None:
    # The server loads duration only when its description mentions "build logs".
    mock.reset()
    mock.script(default={"kind": "tools", "rules": [], "text": "x"})
    root = project(tmp_path, anthropic(mock))
    dry = run(root, "run", "--dry-run", env=KEY)
    assert dry.code == 0, dry.stderr
    assert "  duration: 12 trigger calls (2 skills offered); the cache holds 0" in dry.stdout
    assert mock.model_calls() == []
    r = run(root, "triggers", "--description", "Use for durations in build logs.", env=KEY)
    assert r.code == 0, r.stderr
    assert "recall: current 0% (0/6; 95% CI 0–39%); proposed 0% (0/6; 95% CI 0–39%); difference +0pp" in r.stdout
    bodies = [json.loads(c["body"]) for c in mock.model_calls()]
    descriptions = {t["description"] for b in bodies for t in b["tools"] if t["name"] == "duration"}
    assert descriptions == {DURATION, "Use for durations in build logs."}
    assert "description: " + DURATION in (root / "skills" / "duration" / "SKILL.md").read_text()


@pytest.mark.parametrize(
    ("triggers", "config", "message"),
    [
        ({"should": ["  "]}, {}, r"evals/duration\.json:\d+:\d+: triggers\.should\[0\]: is empty"),
        (
            {"should": ["a b"], "shouldNot": ["A  b"]},
            {},
            r"evals/duration\.json:\d+:\d+: triggers\.shouldNot\[0\]: the same query as triggers\.should\[0\]",
        ),
        ({"should": [{"prompt": "x", "near": True}]}, {}, r"triggers\.should\[0\]\.near: .*move it to shouldNot"),
        (
            "default",
            {"neighbours": ["./nowhere"]},
            r"skill-be\.yaml:\d+:\d+: neighbours\[0\]: .*nowhere has no SKILL\.md",
        ),
        (
            None,
            {"gate": {"trigger": {"minRecall": 80}}},
            r"skill-be\.yaml:\d+:\d+: gate\.trigger: skill \"duration\" has no trigger queries",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, triggers: Any, config: dict[str, Any], message: str) -> None:
    root = project(tmp_path, {"adapter": "command", "id": "m", "run": "true"}, config, triggers)
    r = run(root, "run", "--dry-run")
    assert r.code == 2, r.stdout
    errors = [line for line in r.stderr.strip().splitlines() if not line.startswith("warning: ")]
    assert len(errors) == 1, r.stderr  # (the project's warning that money has no eval file may come first)
    assert re.search(message, errors[0]), r.stderr


def test_should_without_should_not_warns(tmp_path: Path) -> None:
    root = project(tmp_path, {"adapter": "command", "id": "m", "run": "true"}, {}, {"should": ["x"]})
    r = run(root, "run", "--dry-run")
    assert r.code == 0, r.stderr
    assert "triggers has should queries and no shouldNot" in r.stderr


# A command model: answers scenarios with "Say hello", and a trigger block with the skill whose
# name is a word of the request (or none), counting each trigger call in trigger-calls.txt.
BLOCK_MODEL = """
import re, sys
p = sys.stdin.read()
if "<available_skills>" not in p:
    print("Say hello")
    raise SystemExit
names = re.findall(r"<name>(.+?)</name>", p)
request = p.split("<user_request>")[1].split("</user_request>")[0]
open("trigger-calls.txt", "a").write("call\\n")
print(next((n for n in names if n in request.split()), "none"))
"""


def test_command_adapters_answer_the_documented_block_and_the_cache_covers_them(tmp_path: Path) -> None:
    write(tmp_path / "model.py", BLOCK_MODEL)
    model = {"adapter": "command", "id": "m1", "run": f"{sys.executable} model.py"}
    trig = {"should": ["add two duration values", "print the elapsed time"], "shouldNot": ["money split"]}
    root = project(tmp_path, model, {"cache": True}, trig)
    r = run(root, "run")
    assert r.code == 0, r.stderr
    m = r.summary()["skills"]["duration"]["triggers"]["models"]["m1"]
    assert (m["recall"]["hits"], m["recall"]["total"], m["falseTrigger"]["hits"]) == (2, 4, 0)
    assert m["confusion"]["shouldNot"] == {"duration": 0, "money": 2, "(none)": 0}
    assert len((root / "trigger-calls.txt").read_text().splitlines()) == 6
    dry = run(root, "run", "--dry-run")
    assert "  duration: 6 trigger calls (2 skills offered); the cache holds 6" in dry.stdout, dry.stdout
    again = run(root, "run")
    assert again.code == 0 and len((root / "trigger-calls.txt").read_text().splitlines()) == 6
    assert again.summary()["skills"]["duration"]["triggers"]["models"]["m1"] == m
    # a changed neighbour description is a new key: every call is made again
    md = root / "skills" / "money" / "SKILL.md"
    md.write_text(md.read_text().replace("amounts of money", "sums of money"))
    assert run(root, "run").code == 0
    assert len((root / "trigger-calls.txt").read_text().splitlines()) == 12


def test_shards_split_the_trigger_calls(tmp_path: Path) -> None:
    write(tmp_path / "model.py", BLOCK_MODEL)
    model = {"adapter": "command", "id": "m1", "run": f"{sys.executable} model.py"}
    trig = {"should": ["add two duration values", "print the elapsed time"], "shouldNot": ["money split"]}
    root = project(tmp_path, model, {}, trig)
    made, dirs = [], []
    for k in (1, 2):
        r = run(root, "run", "--shard", f"{k}/2")
        assert r.code == 0, r.stderr
        made.append(len(r.summary()["skills"]["duration"]["triggers"]["calls"]))
        dirs.append(str(r.run_dir()))
    assert made == [3, 3]
    assert len((root / "trigger-calls.txt").read_text().splitlines()) == 6
    merged = run(root, "merge", *dirs)
    assert merged.code == 0, merged.stderr
    t = merged.summary()["skills"]["duration"]["triggers"]
    whole = run(root, "run").summary()["skills"]["duration"]["triggers"]
    assert t["models"] == whole["models"] and len(t["calls"]) == 6
    assert merged.result_file()["skills"]["duration"]["triggers"]["models"]["m1"]["recall"]["hits"] == 2


def test_verify_shows_the_recorded_rates_and_a_changed_neighbour_needs_a_run(tmp_path: Path) -> None:
    write(tmp_path / "model.py", BLOCK_MODEL)
    model = {"adapter": "command", "id": "m1", "run": f"{sys.executable} model.py"}
    trig = {"should": ["add two duration values", "print the elapsed time"], "shouldNot": ["money split"]}
    root = project(tmp_path, model, {}, trig)
    assert run(root, "run").code == 0
    v = run(root, "verify")
    assert v.code == 0, v.stdout + v.stderr
    assert (
        "  duration triggers on m1: recall 50% (2/4; 95% CI 15–85%), false-trigger 0% (0/2; 95% CI 0–66%)" in v.stdout
    )
    md = root / "skills" / "money" / "SKILL.md"
    md.write_text(md.read_text().replace("amounts of money", "sums of money"))
    v = run(root, "verify")
    assert v.code == 1 and 'skill "duration": changed since its last run' in v.stdout


def test_the_triggers_command_reads_a_description_file_and_needs_exactly_one(tmp_path: Path) -> None:
    write(tmp_path / "model.py", BLOCK_MODEL)
    model = {"adapter": "command", "id": "m1", "run": f"{sys.executable} model.py"}
    trig = {"should": ["add two duration values", "print the elapsed time"], "shouldNot": ["money split"]}
    root = project(tmp_path, model, {"reps": 1}, trig)
    write(root / "new.txt", "Use for money.\n")
    r = run(root, "triggers", "--description-file", "new.txt")
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines()[0] == 'Proposed description: "Use for money."'
    assert "    recall: current 50% (1/2; 95% CI 9–91%); proposed 50% (1/2; 95% CI 9–91%); difference +0pp" in r.stdout
    for args in ((), ("--description", "x", "--description-file", "new.txt")):
        bad = run(root, "triggers", *args)
        assert bad.code == 2 and "needs the proposed description" in bad.stderr, bad.stderr
    assert run(root, "triggers", "--description", "  ").code == 2


def test_regrade_carries_the_earlier_trigger_calls_without_asking_again(tmp_path: Path) -> None:
    write(tmp_path / "model.py", BLOCK_MODEL)
    model = {"adapter": "command", "id": "m1", "run": f"{sys.executable} model.py"}
    trig = {"should": ["add two duration values", "print the elapsed time"], "shouldNot": ["money split"]}
    root = project(tmp_path, model, {"gate": {"trigger": {"minRecall": 75}}}, trig)
    first = run(root, "run")
    assert first.code == 1  # recall 50% < 75%
    before = first.summary()["skills"]["duration"]["triggers"]
    r = run(root, "regrade")
    assert r.code == 1, r.stderr
    after = r.summary()["skills"]["duration"]["triggers"]
    assert after["models"] == before["models"] and after["checks"][0]["outcome"] == "block"
    assert len((root / "trigger-calls.txt").read_text().splitlines()) == 6  # the first run's 3 x 2, no more
    # changed queries: the earlier calls no longer stand for them
    doc = json.loads((root / "evals" / "duration.json").read_text())
    doc["triggers"]["should"][1] = "print the elapsed duration"
    (root / "evals" / "duration.json").write_text(json.dumps(doc))
    r = run(root, "regrade")
    assert "regrade: duration: its trigger queries changed since that run" in r.stderr
    assert "triggers" not in r.summary()["skills"]["duration"]
