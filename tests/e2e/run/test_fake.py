"""`skill-be run --fake` (adapters/fake.py, agents/drivers/fake.py): the whole pipeline on the user's own
skill before any key, every output marked as fake, never READY, the result file never written; and the
config `init` wrote runs for real, unchanged but for where the API is, once a key is set."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from tests.e2e.run.helpers import run, write

from skill_be.adapters.fake import MARK, answer

SKILL = "---\nname: greet\ndescription: Greets people politely in French.\n---\n# Greet\n\nSay Bonjour first.\n"


class Anthropic(BaseHTTPRequestHandler):
    """A scripted Messages API: answers "Bonjour" and grades every criterion YES."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        prompt = body["messages"][0]["content"]
        prompt = prompt if isinstance(prompt, str) else prompt[-1]["text"]
        criteria = prompt.split("Criteria:")[-1].split("<answer>")[0] if "VERDICTS:" in prompt else ""
        n = len(re.findall(r"^\d+\. ", criteria, re.MULTILINE))
        text = "VERDICTS:\n" + "\n".join(f"{i}: YES" for i in range(1, n + 1)) if n else "Bonjour, madame."
        data = json.dumps(
            {"content": [{"type": "text", "text": text}], "usage": {"input_tokens": 5, "output_tokens": 3}}
        )
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data.encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def api() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Anthropic)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def initialised(root: Path) -> Path:
    write(root / "skills" / "greet" / "SKILL.md", SKILL)
    done = run(root, "init")
    assert done.code == 0, done.stderr
    assert "skill-be run --fake" in done.stdout.strip().splitlines()[-1]
    assert (root / ".gitignore").read_text() == ".skill-be/\n"
    return root


def test_init_then_run_fake_runs_everything_and_records_nothing(tmp_path: Path) -> None:
    root = initialised(tmp_path)
    done = run(root, "run", "--fake", "--html", env={"ANTHROPIC_API_KEY": ""})
    assert done.code == 0, done.stderr
    assert "is still the placeholder of skill-be init" in done.stderr  # a warning, not a refusal
    assert "greet: NOT READY (fake run)" in done.stdout and "READY\n" not in done.stdout.replace("NOT READY", "")
    assert done.stdout.strip().splitlines()[-1].startswith("Result: fake run:")
    assert not (root / "skill-be.result.json").exists()
    run_dir = done.run_dir()
    report = (run_dir / "greet.md").read_text()
    assert report.startswith("> **FAKE RUN.**") and "**NOT READY**" in report
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["fakeRun"] is True and summary["skills"]["greet"]["ready"] is False
    assert "FAKE RUN" in (run_dir / "results.html").read_text()
    answers = sorted((run_dir / "greet").rglob("rep-*.md"))
    assert answers and all(p.read_text().startswith(MARK) for p in answers)  # every output marked


def test_a_real_run_of_the_same_config_records_its_result(tmp_path: Path, api: str) -> None:
    """The control: the config init wrote, with a key and a scripted API, runs for real."""
    root = initialised(tmp_path)
    eval_doc = json.loads((root / "evals" / "greet.json").read_text())
    eval_doc["scenarios"][0].update(prompt="Greet Ada.", criteria=["Says Bonjour"])
    (root / "evals" / "greet.json").write_text(json.dumps(eval_doc))
    config = (root / "skill-be.yaml").read_text()
    config = config.replace("  id: claude-sonnet-4-5", f"  id: claude-sonnet-4-5\n  baseUrl: {api}")
    config = config.replace("  id: claude-haiku-4-5", f"  id: claude-haiku-4-5\n  baseUrl: {api}")
    (root / "skill-be.yaml").write_text(config)
    done = run(root, "run", env={"ANTHROPIC_API_KEY": "sk-test"})
    assert done.code == 0, done.stdout + done.stderr
    assert "greet: READY" in done.stdout and "(fake run)" not in done.stdout
    assert json.loads((root / "skill-be.result.json").read_text())["skills"]["greet"]["ready"] is True


def test_adapter_fake_in_the_config_is_a_fake_run_too(tmp_path: Path) -> None:
    root = initialised(tmp_path)
    text = (root / "skill-be.yaml").read_text().replace("adapter: anthropic ", "adapter: fake      ")
    (root / "skill-be.yaml").write_text(text)
    eval_doc = json.loads((root / "evals" / "greet.json").read_text())
    eval_doc["scenarios"][0].update(prompt="Greet Ada.", criteria=["Says Bonjour"])
    (root / "evals" / "greet.json").write_text(json.dumps(eval_doc))
    done = run(root, "run", env={"ANTHROPIC_API_KEY": ""})
    assert done.code == 0, done.stderr
    assert "greet: NOT READY (fake run)" in done.stdout
    assert not (root / "skill-be.result.json").exists()


def test_the_fake_grader_answers_every_criterion_and_the_fake_model_reuses_the_prompts_code() -> None:
    from skill_be.engine.prompts import grader_prompt
    from skill_be.engine.verdicts import parse_verdicts

    reply = answer(grader_prompt(None, ["one", "two", "three"], "an answer"))
    assert reply.startswith(MARK) and len(parse_verdicts(reply, 3)) == 3
    assert answer(grader_prompt(None, ["one", "two", "three"], "an answer")) == reply  # reproducible
    contract = "Answer format: reply with exactly one Python code block. The code must be..."
    code = answer(f"Use this:\n```python\ndef f():\n    return 1\n```\nTask: x\n\n{contract}")
    assert "```py\ndef f():\n    return 1\n```" in code
    assert "```py\n# [skill-be fake]\n```" in answer(f"Task: x\n\n{contract}")  # the baseline has none
    assert answer("<available_skills>\n</available_skills>") == "none"
