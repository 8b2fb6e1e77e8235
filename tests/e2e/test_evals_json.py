"""`<skill>/evals/evals.json` (agentskills.io, skill-creator) read as an eval file, run with scripted
models, and converted to skill-be's own eval file with the same prompts and lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

MODEL = """import sys
prompt = sys.stdin.read()
print("Resolved 09:14-09:41 UTC. " + ("Saw the attached CSV." if "File `evals/files/log.csv`" in prompt else ""))
"""
# Says YES to every criterion it is given and records the prompt, so the test can read what it saw.
# Gradings run at once: each appends under a lock (a read-then-write lost the others' prompts).
GRADER = """import fcntl, re, sys, pathlib
prompt = sys.stdin.read()
with open(pathlib.Path(__file__).with_name("grader-prompts.txt"), "a") as log:
    fcntl.flock(log, fcntl.LOCK_EX)
    log.write(prompt + "\\n=====\\n")
head = prompt.rpartition("<answer>")[0].split("Criteria:")[1].split("What a good answer looks like")[0]
n = len(re.findall(r"^\\d+\\. ", head, re.M))
print("VERDICTS:\\n" + "\\n".join(f"{i}: YES" for i in range(1, n + 1)))
"""

# The agentskills.io guide's shape (string assertions, files) and skill-creator's (expectations).
AGENTSKILLS = {
    "skill_name": "status-page",
    "evals": [
        {
            "id": 1,
            "prompt": "Summarise the outage in the attached log for the status page.",
            "expected_output": "A one-paragraph summary that starts with Resolved and the window in UTC.",
            "files": ["evals/files/log.csv"],
            "assertions": [
                "Starts with Resolved",
                {"name": "mentions UTC", "type": "contains", "value": "UTC"},
                {"name": "no host names", "type": "not_contains", "value": "pay-gw"},
            ],
        },
        {"id": "ongoing", "prompt": "An incident is still going on.", "expectations": ["Says Ongoing"]},
    ],
}


def project(tmp_path: Path, evals: object) -> Path:
    skill = tmp_path / "skills" / "status-page"
    (skill / "evals" / "files").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: status-page\ndescription: Status page summaries.\n---\n# Do it\n")
    (skill / "evals" / "evals.json").write_text(json.dumps(evals, indent=2))
    (skill / "evals" / "files" / "log.csv").write_text("time,host\n09:14,pay-gw-3\n")
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "grader.py").write_text(GRADER)
    (tmp_path / "skill-be.yaml").write_text(
        "skills: ./skills\nevals: ./evals\nreps: 1\ngradings: 1\n"
        "model: {adapter: command, id: m, run: python3 model.py}\n"
        "grader: {adapter: command, id: g, run: python3 grader.py}\n"
        "checks: {typecheck: false}\n"
    )
    return tmp_path


def skill_be(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    return subprocess.run(
        [sys.executable, "-m", "skill_be", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=300
    )


def report(root: Path) -> str:
    (run,) = (root / ".skill-be" / "results").iterdir()
    return (run / "status-page.md").read_text(encoding="utf-8")


def test_an_evals_json_runs_with_its_criteria_assertions_files_and_expected_output(tmp_path: Path) -> None:
    root = project(tmp_path, AGENTSKILLS)
    done = skill_be(root, "run")
    assert done.returncode == 0, done.stdout + done.stderr
    text = report(root)
    for line in ("Starts with Resolved", "Says Ongoing", "[assert] mentions UTC", "[assert] no host names"):
        assert line in text, line
    prompts = (root / "grader-prompts.txt").read_text()
    assert "A one-paragraph summary that starts with Resolved" in prompts  # the judge's context
    assert "1. Starts with Resolved\n\nWhat a good answer" in prompts  # ... and not a criterion
    assert "Saw the attached CSV." in prompts  # the model saw the file


def test_convert_writes_the_equivalent_eval_file_and_the_run_reads_it_the_same(tmp_path: Path) -> None:
    root = project(tmp_path, AGENTSKILLS)
    done = skill_be(root, "convert")
    assert done.returncode == 0, done.stderr
    assert "wrote evals/status-page.json (2 scenarios) from skills/status-page/evals/evals.json" in done.stdout
    converted = json.loads((root / "evals" / "status-page.json").read_text())
    first = converted["scenarios"][0]
    assert first["id"] == "eval-1" and first["expectedOutput"].startswith("A one-paragraph")
    assert first["assertions"] == [
        {"type": "contains", "value": "UTC", "name": "mentions UTC"},
        {"type": "not_contains", "value": "pay-gw", "name": "no host names"},
    ]
    assert "File `evals/files/log.csv`:\n```\ntime,host" in first["prompt"]
    assert skill_be(root, "check").returncode == 0
    again = skill_be(root, "convert")
    assert "nothing to do" in again.stdout  # the skill now reads its own eval file


@pytest.mark.parametrize(
    ("evals", "message"),
    [
        ({"evals": []}, 'evals: needs "evals", a non-empty list of test cases'),
        ({"evals": [{"id": 1}]}, 'evals[0]: needs "prompt"'),
        (
            {"evals": [{"id": 1, "prompt": "x", "assertions": [{"type": "regex", "value": 1}]}]},
            "evals[0].assertions[0]: must be a string",
        ),
        (
            {"evals": [{"id": 1, "prompt": "x", "files": ["../secret"], "assertions": ["a"]}]},
            "is outside the skill folder",
        ),
        ({"evals": [{"id": 1, "prompt": "x", "files": ["nope.txt"], "assertions": ["a"]}]}, '"nope.txt": not found'),
        (
            {"evals": [{"id": 1, "prompt": "x", "assertions": ["a"]}, {"id": 1, "prompt": "y", "assertions": ["b"]}]},
            "used twice",
        ),
    ],
)
def test_a_malformed_evals_json_is_one_line_with_its_place_and_exit_2(
    tmp_path: Path, evals: object, message: str
) -> None:
    root = project(tmp_path, evals)
    done = skill_be(root, "check")
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("skills/status-page/evals/evals.json:"), line
    assert message in line, line


# --- evals.json as authors write it: the corpus, cases without assertions, attached PDFs and images ---

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "evals_json"
CONFIG = (
    "skills: ./skills\nevals: ./evals\nreps: 1\ngradings: 1\n"
    "model: {adapter: command, id: m, run: python3 model.py}\n"
    "grader: {adapter: command, id: g, run: python3 grader.py}\n"
    "checks: {typecheck: false}\n"
)


def corpus_project(root: Path, names: list[str], config: str = CONFIG) -> Path:
    import shutil

    for name in names:
        shutil.copytree(CORPUS / name, root / "skills" / name)
    (root / "model.py").write_text(MODEL)
    (root / "grader.py").write_text(GRADER)
    (root / "skill-be.yaml").write_text(config)
    return root


def test_every_file_of_the_corpus_is_read_by_check_with_a_warning_for_what_is_not_read(tmp_path: Path) -> None:
    names = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
    root = corpus_project(tmp_path, [n for n in names if n not in ("pdf-attachment", "image-attachment")])
    done = skill_be(root, "check")
    assert done.returncode == 0, done.stderr
    warned = done.stderr.splitlines()
    assert all(w.startswith("warning: skills/") for w in warned), warned
    for words in ('"name" is not read', '"expected_behavior" is not read', '"category" is not read',
                  "is the skill's own SKILL.md", "2 cases are not graded: no assertions"):  # fmt: skip
        assert any(words in w for w in warned), words


def test_a_case_without_assertions_runs_keeps_its_answers_and_is_never_ready_alone(tmp_path: Path) -> None:
    root = corpus_project(tmp_path, ["prompts-only"])
    done = skill_be(root, "run")
    assert done.returncode == 1, done.stdout + done.stderr
    (run,) = (root / ".skill-be" / "results").iterdir()
    text = (run / "prompts-only.md").read_text(encoding="utf-8")
    assert text.count("*not graded: no assertions* (its answers are kept in the run folder for review).") == 2
    assert "- **BLOCKED** (not graded: no assertions): no scenario has a line to grade" in text
    assert text.rstrip().endswith("**NOT READY**")
    kept = sorted(p.relative_to(run).as_posix() for p in (run / "prompts-only").rglob("*") if p.is_file())
    assert any("eval-1" in k for k in kept) and any("eval-2" in k for k in kept), kept
    entry = json.loads((root / "skill-be.result.json").read_text())["skills"]["prompts-only"]
    assert entry["ready"] is False and any(r.startswith("not graded: no assertions") for r in entry["reasons"])
    assert "not graded: no assertions" in done.stderr  # the warning that says how to add them


def test_a_graded_case_beside_an_ungraded_one_decides_the_gate(tmp_path: Path) -> None:
    root = corpus_project(tmp_path, ["mixed"])
    done = skill_be(root, "run")
    assert done.returncode == 0, done.stdout + done.stderr  # the grader says YES to the graded case
    (run,) = (root / ".skill-be" / "results").iterdir()
    text = (run / "mixed.md").read_text(encoding="utf-8")
    assert "Suggests pinning the tag" in text and "*not graded: no assertions*" in text
    assert text.rstrip().endswith("**READY** — No universal 0% criteria. No critical regressions.")


def test_convert_keeps_ungraded_cases_and_attachments(tmp_path: Path) -> None:
    root = corpus_project(tmp_path, ["creator-start", "pdf-attachment"])
    done = skill_be(root, "convert")
    assert done.returncode == 0, done.stderr
    start = json.loads((root / "evals" / "creator-start.json").read_text())
    assert [sc.get("graded") for sc in start["scenarios"]] == [False, False]
    assert start["scenarios"][0]["expectedOutput"].startswith("Three bullet points")
    pdf = json.loads((root / "evals" / "pdf-attachment.json").read_text())
    assert pdf["scenarios"][0]["attachments"] == ["../skills/pdf-attachment/evals/files/invoice.pdf"]
    again = skill_be(root, "check")
    assert again.returncode == 0, again.stderr  # the converted files read as skill-be's own


@pytest.fixture(scope="module")
def mock(tmp_path_factory: pytest.TempPathFactory) -> Any:
    import importlib.util

    path = Path(__file__).parents[1] / "support" / "mock_model_server.py"
    spec = importlib.util.spec_from_file_location("mock_model_server_attachments", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mock_model_server_attachments", module)
    spec.loader.exec_module(module)
    server = module.MockServer(str(tmp_path_factory.mktemp("mock")), netns=False)
    yield server
    server.stop()


def http_config(adapter: str, base_url: str) -> str:
    return CONFIG.replace(
        "model: {adapter: command, id: m, run: python3 model.py}",
        f"model: {{adapter: {adapter}, id: m1, baseUrl: '{base_url}', apiKeyEnv: ATTACH_TEST_KEY}}",
    )


def run_with_key(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"} | {"ATTACH_TEST_KEY": "dummy"}
    return subprocess.run(
        [sys.executable, "-m", "skill_be", *args], cwd=root, capture_output=True, text=True, env=env, timeout=300
    )


def test_an_attached_pdf_reaches_anthropic_as_a_document_block(tmp_path: Path, mock: Any) -> None:
    import base64

    mock.reset()
    root = corpus_project(tmp_path, ["pdf-attachment"], http_config("anthropic", mock.base_url))
    done = run_with_key(root, "run")
    assert done.returncode in (0, 1), done.stdout + done.stderr
    calls = mock.model_calls()
    assert len(calls) == 2  # baseline and with skill, one rep
    pdf = base64.b64encode((CORPUS / "pdf-attachment/evals/files/invoice.pdf").read_bytes()).decode()
    for call in calls:
        content = json.loads(call["body"])["messages"][0]["content"]
        assert content[0] == {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": pdf},
        }
        assert content[1]["type"] == "text" and content[1]["text"].endswith(
            "File `evals/files/invoice.pdf` is attached."
        )


def test_an_attached_image_reaches_openai_as_an_image_part(tmp_path: Path, mock: Any) -> None:
    mock.reset()
    root = corpus_project(tmp_path, ["image-attachment"], http_config("openai", mock.base_url + "/v1"))
    done = run_with_key(root, "run")
    assert done.returncode in (0, 1), done.stdout + done.stderr
    calls = mock.model_calls()
    assert len(calls) == 2
    for call in calls:
        text, image = json.loads(call["body"])["messages"][0]["content"]
        assert text["type"] == "text" and image["type"] == "image_url"
        assert image["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGgo")


@pytest.mark.parametrize(
    ("adapter", "words"),
    [
        (
            "openai",
            "a PDF is attached, which the model m1 (adapter openai) cannot take as content; run it on the anthropic or gemini adapter",
        ),
        ("command", "a PDF is attached, which the model m1 (adapter command) cannot take as content"),
    ],
)
def test_an_attachment_an_adapter_cannot_take_is_refused_before_any_call(
    tmp_path: Path, mock: Any, adapter: str, words: str
) -> None:
    mock.reset()
    config = http_config(adapter, mock.base_url + "/v1")
    if adapter == "command":
        config = CONFIG.replace("id: m, run: python3 model.py", "id: m1, run: python3 model.py")
    root = corpus_project(tmp_path, ["pdf-attachment"], config)
    done = run_with_key(root, "run")
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("skills/pdf-attachment/evals/evals.json:9:9: evals[0].files[0]: ") and words in line, line
    assert mock.model_calls() == [] and not (root / ".skill-be" / "results").exists()
