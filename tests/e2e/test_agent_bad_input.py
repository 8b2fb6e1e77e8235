"""Agent scenarios: bad input is one line with its place and exit 2, before any model call."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import yaml
from tests.e2e.run.helpers import run, write

CLIS = "/work/main/.ci/cache/clis/bin"
MODEL = """
import sys
open("model-called.txt", "a").write("x")
print("answer")
"""


def agent_project(root: Path, scenario: dict[str, object], model: dict[str, object] | None = None) -> Path:
    write(root / "skills/greet/SKILL.md", "---\nname: greet\ndescription: Greets.\n---\n# Greet\n")
    write(root / "evals/ws/a.txt", "a\n")
    base = {"id": "act", "mode": "agent", "prompt": "Do it.", "criteria": ["It is done"]}
    write(root / "evals/greet.json", json.dumps({"scenarios": [{**base, **scenario}]}, indent=2))
    write(root / "model.py", MODEL)
    doc = {
        "skills": "./skills",
        "evals": "./evals",
        "model": model
        or {"adapter": "claude-cli", "id": "m", "baseUrl": "http://127.0.0.1:9", "apiKeyEnv": "ANTHROPIC_API_KEY"},
        "grader": {"adapter": "command", "id": "judge", "run": f"{sys.executable} model.py"},
        "reps": 1,
        "gradings": 1,
        "checks": {"typecheck": False},
    }
    write(root / "skill-be.yaml", yaml.safe_dump(doc, sort_keys=False))
    return root


ENV = {"PATH": f"{CLIS}:{os.environ['PATH']}", "ANTHROPIC_API_KEY": "sk-test-key-123456"}


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        ({"workspace": {"from": ["../../outside"]}}, '"../../outside" is outside the project'),
        (
            {"workspace": {"from": ["nope"]}},
            'scenarios[0].workspace.from[0]: "nope" does not exist beside the eval file',
        ),
        ({"workspace": {"from": ["/etc"]}}, '"/etc" is an absolute path'),
        ({"mode": "one-shot", "workspace": {"git": True}}, '"workspace" is a key of agent scenarios; add mode: agent'),
        ({"output": {"result": "the answer"}}, 'in agent mode needs "file"'),
        ({"agent": {"maxTurns": 0}}, "agent.maxTurns: must be a positive integer, not 0"),
    ],
)
def test_bad_agent_keys_are_one_line_and_exit_2(tmp_path: Path, scenario: dict[str, object], expected: str) -> None:
    (tmp_path / "outside").mkdir()
    root = agent_project(tmp_path / "project", scenario)
    result = run(root, "run", env=ENV)
    line = one_line(result.stderr)
    assert result.code == 2 and expected in line, line
    assert not (root / "model-called.txt").exists()


def test_a_workspace_outside_the_project_names_its_place(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    root = agent_project(tmp_path / "project", {"workspace": {"from": ["../../outside"]}})
    line = one_line(run(root, "run", env=ENV).stderr)
    assert line.startswith("evals/greet.json:") and 'workspace.from[0]: "../../outside" is outside the project' in line


@pytest.mark.parametrize("adapter", ["command", "anthropic", "openai", "gemini"])
def test_an_adapter_that_cannot_act_as_an_agent_is_refused(tmp_path: Path, adapter: str) -> None:
    model = {"adapter": adapter, "id": "m", "run": f"{sys.executable} model.py"} if adapter == "command" else {
        "adapter": adapter, "id": "m", "baseUrl": "http://127.0.0.1:9"}  # fmt: skip
    root = agent_project(tmp_path, {}, model)
    result = run(root, "run", env={**ENV, "OPENAI_API_KEY": "sk-test-key-123456"})
    line = one_line(result.stderr)
    assert result.code == 2, line
    assert f"uses adapter {adapter}, which cannot act as an agent; use claude-cli, pi-cli, opencode-cli" in line
    assert line.startswith("evals/greet.json:")
    assert not (root / "model-called.txt").exists()


def test_docker_missing_is_one_line(tmp_path: Path) -> None:
    root = agent_project(tmp_path, {"workspace": {"from": ["ws"]}})
    result = run(root, "run", env={**ENV, "DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    line = one_line(result.stderr)
    assert result.code == 2 and "Docker is not reachable" in line and "agent.sandbox: process" in line


@pytest.mark.parametrize("sandbox", ["process", "docker"])
def test_a_check_command_that_is_not_found_is_refused(tmp_path: Path, sandbox: str) -> None:
    checks = ["test -f a.txt", "no-such-checker --all"]
    root = agent_project(tmp_path, {"agent": {"sandbox": sandbox}, "checks": checks})
    result = run(root, "run", env=ENV, timeout=180)
    lines = [x for x in result.stderr.splitlines() if x.strip() and not x.startswith("agent.sandbox: process")]
    assert result.code == 2 and len(lines) == 1, result.stderr
    assert (
        lines[0].startswith("evals/greet.json:")
        and "scenarios[0].checks[1]: 'no-such-checker' is not a command" in lines[0]
    )
    assert not (root / "model-called.txt").exists()


CLI_MODELS = {  # each agent CLI, pointed at a port where nothing listens, with no apiKeyEnv
    "claude-cli": {"adapter": "claude-cli", "id": "m", "baseUrl": "http://127.0.0.1:9"},
    "pi-cli": {"adapter": "pi-cli", "id": "m", "provider": "openai", "baseUrl": "http://127.0.0.1:9"},
    "opencode-cli": {"adapter": "opencode-cli", "id": "m", "provider": "openai", "baseUrl": "http://127.0.0.1:9"},
    "codex-cli": {"adapter": "codex-cli", "id": "m", "baseUrl": "http://127.0.0.1:9"},
    "copilot-cli": {"adapter": "copilot-cli", "id": "m", "provider": "openai", "baseUrl": "http://127.0.0.1:9"},
    "gemini-cli": {"adapter": "gemini-cli", "id": "m", "baseUrl": "http://127.0.0.1:9"},
}


@pytest.mark.parametrize("cli", sorted(CLI_MODELS))
def test_a_stored_login_never_reaches_the_container_and_is_refused_before_any_call(tmp_path: Path, cli: str) -> None:
    root = agent_project(tmp_path / "docker", {"agent": {"sandbox": "docker"}}, CLI_MODELS[cli])
    line = one_line(run(root, "run", env=ENV).stderr)
    assert line.startswith("skill-be.yaml:") and "model: " in line, line
    assert f'model "m" ({cli}) runs agent scenario "act" of greet in skill-be\'s container, where a stored login is never read, and it has no apiKeyEnv; set apiKeyEnv' in line  # fmt: skip
    assert not (root / "model-called.txt").exists()
    # A variable that is named but empty says so.
    named = {**CLI_MODELS[cli], "apiKeyEnv": "SKB_EMPTY_KEY"}
    root = agent_project(tmp_path / "empty", {"agent": {"sandbox": "docker"}}, named)
    assert "SKB_EMPTY_KEY is unset or empty" in one_line(run(root, "run", env={**ENV, "SKB_EMPTY_KEY": ""}).stderr)
    # The controls: the key set, or the scenario on this machine (where the stored login is read), pass the check.
    root = agent_project(tmp_path / "keyed", {"agent": {"sandbox": "docker"}}, named)
    keyed = run(root, "run", "--dry-run", env={**ENV, "SKB_EMPTY_KEY": "sk-test-key-123456"})
    assert keyed.code == 0, keyed.stderr
    root = agent_project(tmp_path / "process", {"agent": {"sandbox": "process"}}, CLI_MODELS[cli])
    here = run(root, "run", "--dry-run", env=ENV)
    assert here.code == 0, here.stderr


def test_a_bin_the_container_does_not_use_is_a_warning(tmp_path: Path) -> None:
    model = {**CLI_MODELS["claude-cli"], "apiKeyEnv": "ANTHROPIC_API_KEY", "bin": "/opt/my/claude"}
    root = agent_project(tmp_path / "docker", {"agent": {"sandbox": "docker"}}, model)
    result = run(root, "run", "--dry-run", env=ENV)
    warned = [x for x in result.stderr.splitlines() if x.startswith("warning: ")]
    assert result.code == 0 and warned == [
        "warning: skill-be.yaml:8:8: model.bin: not used by the agent scenarios in skill-be's container (the "
        "image's own claude runs there); it is used on this machine only"
    ], result.stderr
    # The control: on this machine the bin is the CLI that runs; nothing to warn about, and the dry run
    # notes that it cannot start (above, nothing starts here: no note).
    root = agent_project(tmp_path / "process", {"agent": {"sandbox": "process"}}, model)
    here = run(root, "run", "--dry-run", env=ENV).stderr
    assert "model.bin: not used" not in here and 'cannot start "/opt/my/claude"' in here, here


def test_the_cli_must_start_on_this_machine_only_where_something_runs_it_here(tmp_path: Path) -> None:
    """Every scenario in the container: this machine needs no claude (the run goes on to Docker, which
    is made unreachable here so nothing runs); with a one-shot scenario beside it, claude must start here."""
    model = {**CLI_MODELS["claude-cli"], "apiKeyEnv": "ANTHROPIC_API_KEY"}
    no_cli = {**ENV, "PATH": "/usr/bin:/bin", "DOCKER_HOST": "unix:///nonexistent/docker.sock"}
    root = agent_project(tmp_path / "boxed", {"agent": {"sandbox": "docker"}}, model)
    line = one_line(run(root, "run", env=no_cli).stderr)
    assert "Docker is not reachable" in line and "cannot start" not in line, line
    root = agent_project(tmp_path / "mixed", {"agent": {"sandbox": "docker"}}, model)
    evals = json.loads((root / "evals/greet.json").read_text())
    evals["scenarios"].append({"id": "ask", "prompt": "Say hi.", "criteria": ["It says hi"]})
    (root / "evals/greet.json").write_text(json.dumps(evals))
    line = one_line(run(root, "run", env=no_cli).stderr)
    assert 'claude-cli cannot start "claude" (not found on PATH)' in line, line
    assert not (root / "model-called.txt").exists()


@pytest.mark.parametrize("cli", ["pi-cli", "opencode-cli"])
def test_a_provider_of_your_own_cli_setup_is_refused_for_every_agent_feature_alone(tmp_path: Path, cli: str) -> None:
    """`provider: local` (a provider in your own pi or opencode setup) works one-shot, which reads that
    setup; an agent run starts the CLI with a fresh home, where it cannot. One rule for agent scenarios
    and trigger evals, before any call; with a baseUrl (skill-be's own provider) it passes."""
    model = {"adapter": cli, "id": "m", "provider": "local", "apiKeyEnv": "ANTHROPIC_API_KEY"}
    expected = f'model.provider: model "m" ({cli}): "local" is not a provider skill-be can give the CLI when it runs as an agent'  # fmt: skip
    agent = agent_project(tmp_path / "agent", {"agent": {"sandbox": "process"}}, model)
    triggers = agent_project(tmp_path / "triggers", {"mode": "one-shot"}, model)
    evals = json.loads((triggers / "evals/greet.json").read_text())
    evals["triggers"] = {"should": ["Greet the team, please."], "shouldNot": ["What is 2 + 2?"]}
    (triggers / "evals/greet.json").write_text(json.dumps(evals))
    for root in (agent, triggers):
        line = one_line(run(root, "run", "--dry-run", env=ENV).stderr)
        assert line.startswith("skill-be.yaml:") and expected in line, line
    assert expected in one_line(run(triggers, "triggers", "--description", "Greets.", env=ENV).stderr)
    # The controls: one-shot alone reads your setup (no refusal); a baseUrl gives skill-be's own provider.
    alone = agent_project(tmp_path / "alone", {"mode": "one-shot"}, model)
    assert "is not a provider" not in run(alone, "run", "--dry-run", env=ENV).stderr
    local = {**model, "baseUrl": "http://127.0.0.1:9/v1"}
    root = agent_project(tmp_path / "local", {"agent": {"sandbox": "process"}}, local)
    assert run(root, "run", "--dry-run", env=ENV).code == 0
