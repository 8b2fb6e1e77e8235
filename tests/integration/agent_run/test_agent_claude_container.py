"""The real Claude Code (the pinned version in skill-be's image) as an agent in its container, behind
the egress proxy, against the scripted tool-use model (tests/support/agent_model_server.py) on this
machine's loopback: the skill is offered and loaded in the with-skill arm and not in the baseline,
the files it wrote (its Write tool and its Bash tool) come back, and a check passes and fails."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integration.agent_run.conftest import IMAGE

from skill_be.agents.base import AgentLimits, AgentSetup, ModelEndpoint, SkillToInstall
from skill_be.agents.container import BoxLimits, DockerBoxes, DockerSandbox
from skill_be.agents.egress import EgressProxy, plan_for
from skill_be.agents.registry import driver
from skill_be.agents.workspace import git_repo
from skill_be.commands.agent_parts import IMAGE_PATH

SUPPORT = Path(__file__).resolve().parents[2] / "support"
sys.path.insert(0, str(SUPPORT))
import agent_model_server as ams  # noqa: E402  (the folder is put on sys.path just above)

KEY = "sk-agent-test-key-claude"
SKILL = SkillToInstall(
    "greet",
    "Greets people in files. Use when asked to greet.",
    {
        "SKILL.md": b"---\nname: greet\ndescription: Greets people in files. Use when asked to greet.\n---\nWrite hello.\n"
    },
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    s = ams.AgentServer(str(tmp_path_factory.mktemp("agent-model")), netns=False)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def box(client: Any, server: Any) -> Iterator[DockerSandbox]:
    plan = plan_for([ModelEndpoint("agent-mock", "anthropic", base_url=server.base_url)])
    proxy = EgressProxy(client, IMAGE, plan)
    proxy.start()
    box = DockerSandbox(DockerBoxes(client, IMAGE, BoxLimits(memory_mb=1536), proxy), plan)
    yield box
    box.close()
    proxy.close()


def setup(server: Any, skills: tuple[SkillToInstall, ...]) -> AgentSetup:
    endpoint = ModelEndpoint("agent-mock", "anthropic", base_url=server.base_url, api_key=KEY)
    return AgentSetup(
        "Greet the team in a file.", endpoint, skills, limits=AgentLimits(max_turns=8, timeout_seconds=120)
    )


def test_claude_acts_in_its_container_with_and_without_the_skill(box: DockerSandbox, server: Any) -> None:
    server.agent(skill="greet", load="offered", write={"path": "out.txt", "content": "hello team"},
                 command="echo ran > ran.txt", final="DONE")  # fmt: skip
    claude = driver("claude", path=IMAGE_PATH)
    files = git_repo({"README.md": b"# team\n"})
    runs = {}
    for arm, skills in (("with-skill", (SKILL,)), ("baseline", ())):
        s = setup(server, skills)
        run = box.run_agent(claude, s, files)
        assert run.error is None and run.exit == "0", (run.stderr[-2000:], run.stdout[-2000:])
        runs[arm] = (run, claude.parse(run.stdout, s))
    run, t = runs["with-skill"]
    assert t.error is None and t.final_message == "DONE"
    assert "greet" in (t.skills_offered or []) and "greet" in t.skills_loaded
    assert (
        run.workspace is not None and run.workspace["out.txt"] == b"hello team" and run.workspace["ran.txt"] == b"ran\n"
    )
    run, t = runs["baseline"]
    assert "greet" not in (t.skills_offered or []) and t.skills_loaded == {}
    assert run.workspace is not None and "out.txt" in run.workspace
    rows, error = box.run_checks(run.workspace, {}, [("out", "grep -q hello out.txt"), ("nope", "test -f nope")], 30)
    assert error is None and [r.exit for r in rows] == ["0", "1"]
