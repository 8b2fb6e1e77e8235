"""`skill-be run` on the gemini adapter, as a user runs it, against a scripted Gemini API server on
127.0.0.1 (tests/support/gemini_server.py): a one-shot run whose model and judge are both Gemini models,
trigger evals with skills offered as function declarations, and a missing key refused before any call."""

from __future__ import annotations

import base64
import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.e2e.run.helpers import project, run, write
from tests.support.gemini_server import GeminiServer

from skill_be.reports.errors import EXIT_ERROR

KEY = {"GEMINI_E2E_KEY": "g-e2e-key-5678"}
SKILLED = "SKILLED allocate money"


@pytest.fixture(scope="module")
def gemini() -> Iterator[GeminiServer]:
    server = GeminiServer()
    yield server
    server.stop()


def entry(server: GeminiServer, model: str, **extra: object) -> dict[str, Any]:
    return {"adapter": "gemini", "id": model, "baseUrl": server.base_url, "apiKeyEnv": "GEMINI_E2E_KEY", **extra}


# The model answers SKILLED... when the skill's text is in its prompt; the judge says YES to an answer
# holding SKILLED, else NO. Both are one server: the judge's prompt asks for VERDICTS.
ONE_SHOT = {
    "kind": "text",
    "prompt_tokens": 100,
    "output_tokens": 10,
    "rules": [
        {"when": ["VERDICTS:", SKILLED], "text": "It uses allocate.\n\nVERDICTS:\n1: YES"},
        {"when": "VERDICTS:", "text": "No allocate.\n\nVERDICTS:\n1: NO"},
        {"when": "Use `allocate`", "text": SKILLED},
    ],
    "text": "plain answer",
}


def test_a_one_shot_run_with_a_gemini_model_and_a_gemini_judge(tmp_path: Path, gemini: GeminiServer) -> None:
    gemini.reset()
    gemini.script(default=ONE_SHOT)
    config = {"model": entry(gemini, "gemini-2.5-flash", maxTokens=512), "grader": entry(gemini, "gemini-2.5-pro")}
    root = project(tmp_path, config=config)
    r = run(root, "run", env=KEY)
    assert r.code == 0, r.stdout + r.stderr
    calls = gemini.model_calls()
    paths = sorted(c["path"] for c in calls)
    assert (
        paths
        == ["/v1beta/models/gemini-2.5-flash:generateContent"] * 4
        + ["/v1beta/models/gemini-2.5-pro:generateContent"] * 4
    )  # 2 reps x 2 arms, each graded once
    assert all(c["headers"]["x-goog-api-key"] == KEY["GEMINI_E2E_KEY"] for c in calls)
    answers = [json.loads(c["body"]) for c in calls if "flash" in c["path"]]
    assert all(b["generationConfig"] == {"maxOutputTokens": 512} for b in answers)
    m = r.summary()["skills"]["money"]["scenarios"][0]["models"]["gemini-2.5-flash"]
    assert m["lines"][0]["counts"] == {"baseline": [0, 2], "withSkill": [2, 2]}
    tokens = r.summary()["skills"]["money"]["tokens"]
    assert tokens == {
        "baseline": {"input": 200, "output": 20},
        "withSkill": {"input": 200, "output": 20},
        "estimated": False,
    }  # fmt: skip  (usageMetadata read back, not estimated)
    outputs = m["outputs"]
    assert [o["adapter"] for o in outputs] == [{"stop_reason": "STOP"}] * 4  # the finish reason, recorded
    assert all(o["usage"] == {"input": 100, "output": 10} for o in outputs) and not any(o["error"] for o in outputs)
    from skill_be.project import fastcheck

    assert fastcheck.conforms("summary", r.summary())
    # a judge of the model's own family is warned about, before any call
    assert "the judge gemini-2.5-pro and the model under test gemini-2.5-flash are both Google models" in r.stderr
    assert KEY["GEMINI_E2E_KEY"] not in (r.stdout + r.stderr)


def test_control_a_judge_of_another_family_is_not_warned_about(tmp_path: Path, gemini: GeminiServer) -> None:
    gemini.reset()
    gemini.script(default=ONE_SHOT)
    root = project(tmp_path, config={"model": entry(gemini, "gemini-2.5-flash")})  # the command judge
    r = run(root, "run", env=KEY)
    assert r.code == 0, r.stdout + r.stderr
    assert "both Google models" not in r.stderr and len(gemini.model_calls()) == 4


DURATION = "Use when code reads, adds or prints lengths of time such as timeouts or elapsed times."
MONEY = "Use when code splits, rounds or formats amounts of money."


def trigger_project(root: Path, model: dict[str, Any]) -> Path:
    write(root / "skills" / "duration" / "SKILL.md", f"---\nname: duration\ndescription: {DURATION}\n---\n# D\n")
    write(root / "skills" / "money" / "SKILL.md", f"---\nname: money\ndescription: {MONEY}\n---\n# M\n")
    triggers = {
        "should": ["parse the build log duration 1h 5m", "add two timeout durations", "print the elapsed duration"],
        "shouldNot": ["what is the capital of Egypt?", {"prompt": "split the invoice money three ways", "near": True}],
    }
    doc = {"scenarios": [{"id": "hi", "prompt": "Greet.", "criteria": ["Says hello"]}], "triggers": triggers}
    write(root / "evals" / "duration.json", json.dumps(doc, indent=2))
    write(root / "grader.py", "print('VERDICTS:\\n1: YES')\n")
    cfg = {
        "skills": "./skills",
        "evals": "./evals",
        "model": model,
        "grader": {"adapter": "command", "id": "judge", "run": f"{sys.executable} grader.py"},
        "reps": 2,
        "gradings": 1,
        "checks": {"typecheck": False},
    }
    write(root / "skill-be.yaml", yaml.safe_dump(cfg, sort_keys=False))
    return root


def test_trigger_rates_come_out_as_the_server_calls_functions(tmp_path: Path, gemini: GeminiServer) -> None:
    # duration on "duration" queries but one ("parse ...") answered in text naming the skill, money
    # on "money", nothing otherwise.
    gemini.reset()
    rules = [
        {"when": "parse", "say": "I would use the duration skill for this."},
        {"when": "duration", "call": "duration"},
        {"when": "money", "call": "money"},
    ]
    gemini.script(default={"kind": "tools", "rules": rules, "text": "Say hello"})
    root = trigger_project(tmp_path, entry(gemini, "gemini-2.5-flash"))
    r = run(root, "run", env=KEY)
    assert r.code == 0, r.stdout + r.stderr
    bodies = [b for b in gemini.bodies() if "tools" in b]
    assert len(bodies) == 5 * 2  # 5 queries x 2 reps
    declared = {d["name"]: d["description"] for d in bodies[0]["tools"][0]["functionDeclarations"]}
    assert declared == {"duration": DURATION, "money": MONEY}
    m = r.summary()["skills"]["duration"]["triggers"]["models"]["gemini-2.5-flash"]
    assert (m["recall"]["hits"], m["recall"]["total"]) == (4, 6)  # the text-only mention is not a load
    assert (m["falseTrigger"]["hits"], m["falseTrigger"]["total"]) == (0, 2)
    assert (m["nearMiss"]["hits"], m["nearMiss"]["total"]) == (0, 2)
    assert m["confusion"]["near"] == {"duration": 0, "money": 2, "(none)": 0}
    assert m["confusion"]["should"] == {"duration": 4, "money": 0, "(none)": 2}


def test_a_missing_key_is_one_line_and_exit_2_before_any_call(tmp_path: Path, gemini: GeminiServer) -> None:
    gemini.reset()
    model = {"adapter": "gemini", "id": "gemini-2.5-flash", "baseUrl": gemini.base_url}  # GEMINI_API_KEY unset
    root = project(tmp_path, config={"model": model})
    r = run(root, "run", env={"GEMINI_API_KEY": ""})
    assert r.code == 2, r.stdout + r.stderr
    (line,) = r.stderr.splitlines()
    assert line == (
        "skill-be.yaml: model.apiKeyEnv: GEMINI_API_KEY is unset or empty; "
        "the gemini adapter sends an API key with every request: export GEMINI_API_KEY"
    )
    assert gemini.requests() == [] and not (root / ".skill-be" / "results").exists()
    # control: with the key set the same project runs
    assert run(root, "run", env={"GEMINI_API_KEY": "g-1234"}).code in (0, 1) and gemini.model_calls()


CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "evals_json"


def attachment_project(root: Path, gemini: GeminiServer, attach: tuple[str, bytes] | None = None) -> Path:
    """The corpus's pdf-attachment skill (evals.json), its file swapped for `attach` when given."""
    shutil.copytree(CORPUS / "pdf-attachment", root / "skills" / "pdf-attachment")
    if attach is not None:
        name, data = attach
        (root / "skills/pdf-attachment/evals/files" / name).write_bytes(data)
        evals = root / "skills/pdf-attachment/evals/evals.json"
        evals.write_text(evals.read_text().replace("evals/files/invoice.pdf", f"evals/files/{name}"))
    write(root / "grader.py", "print('VERDICTS:\\n1: YES')\n")
    cfg = {
        "skills": "./skills",
        "evals": "./evals",
        "reps": 1,
        "gradings": 1,
        "model": entry(gemini, "gemini-2.5-flash"),
        "grader": {"adapter": "command", "id": "judge", "run": f"{sys.executable} grader.py"},
        "checks": {"typecheck": False},
    }
    write(root / "skill-be.yaml", yaml.safe_dump(cfg, sort_keys=False))
    return root


def test_an_attached_pdf_reaches_gemini_as_inline_data(tmp_path: Path, gemini: GeminiServer) -> None:
    gemini.reset()
    r = run(attachment_project(tmp_path, gemini), "run", env=KEY)
    assert r.code in (0, 1), r.stdout + r.stderr
    pdf = base64.b64encode((CORPUS / "pdf-attachment/evals/files/invoice.pdf").read_bytes()).decode()
    bodies = gemini.bodies()
    assert len(bodies) == 2  # baseline and with skill, one rep
    for body in bodies:
        [turn] = body["contents"]
        first, text = turn["parts"]
        assert first == {"inlineData": {"mimeType": "application/pdf", "data": pdf}}
        assert text["text"].endswith("File `evals/files/invoice.pdf` is attached.")


def test_a_gif_is_refused_before_any_call(tmp_path: Path, gemini: GeminiServer) -> None:
    gemini.reset()
    r = run(attachment_project(tmp_path, gemini, ("chart.gif", b"GIF89a\x01\x00\x01\x00")), "run", env=KEY)
    assert r.code == 2, r.stdout + r.stderr
    (line,) = r.stderr.splitlines()
    assert line.startswith("skills/pdf-attachment/evals/evals.json:9:9: evals[0].files[0]: ")
    assert line.endswith(
        "a GIF image is attached, which the model gemini-2.5-flash (adapter gemini) cannot take as content; "
        "run it on the anthropic or openai adapter, or remove the attachment"
    )
    assert gemini.requests() == []


def test_a_gemini_endpoint_that_never_answers_is_cut_off_by_the_breaker(tmp_path: Path, gemini: GeminiServer) -> None:
    gemini.reset()
    gemini.script(default={"kind": "hang"})  # the control: the runs above, on the answering server, are not cut off
    config = {"model": entry(gemini, "gemini-2.5-flash"), "reps": 10, "concurrency": 4, "timeoutSeconds": 1}
    r = run(project(tmp_path, config=config), "run", env=KEY)
    assert r.code == EXIT_ERROR, r.stdout + r.stderr
    assert len(gemini.model_calls()) <= 8  # a first wave at concurrency 4, and those already waiting
    assert f"calls in a row to {gemini.base_url} failed to connect or timed out" in r.stderr
    assert "the remaining calls of gemini-2.5-flash are not sent and count as errors" in r.stderr
