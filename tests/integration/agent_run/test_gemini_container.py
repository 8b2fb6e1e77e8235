"""The real Gemini CLI (the pinned version in skill-be's image) as an agent in its container, behind the
egress proxy, against the scripted model's Gemini API on this machine. Both ways out, the skill in the
with-skill arm only and the files coming back are in test_agent_cli_containers.py (every CLI); here:
Gemini's own turn limit (`model.maxSessionTurns`) holds in the container, with a model that finishes
as the control, and a failed request ends the run at once (one attempt, no backoff)."""

from __future__ import annotations

from typing import Any

from tests.integration.agent_run.test_agent_cli_containers import KEY, Trusting, box, server, tls

from skill_be.agents.boxes.docker import IMAGE_PATH, DockerBox
from skill_be.agents.drivers import driver
from skill_be.agents.drivers.base import AgentLimits, AgentSetup, ModelEndpoint
from skill_be.agents.drivers.limit import LIMIT_ERROR
from skill_be.agents.workspace import git_repo

__all__ = ["box", "server", "tls"]  # the fixtures, shared with the other CLIs' container tests


def gemini_setup(base_url: str, max_turns: int) -> AgentSetup:
    ep = ModelEndpoint("agent-mock", "gemini", base_url, KEY)
    return AgentSetup("Greet the team in a file.", ep, (), limits=AgentLimits(max_turns=max_turns, timeout_seconds=120))


def test_a_looping_model_ends_at_max_turns_in_the_container_and_one_that_finishes_does_not(
    box: DockerBox, server: Any, tls: tuple[str, bytes]
) -> None:
    agent = Trusting(driver("gemini", path=IMAGE_PATH), tls[1])
    server.reset()
    server.agent(skill="greet", forever=True)
    s = gemini_setup(server.base_url, max_turns=2)
    run = box.run_agent(agent, s, git_repo({"README.md": b"x\n"}))
    assert agent.parse(run.stdout, s).error == LIMIT_ERROR.format(max=2, next=3), run.stderr[-2000:]
    assert len([e for e in server.agent_log() if e["cli"] == "gemini"]) == 2

    server.reset()
    server.agent(skill="greet", load="never", command="echo ran > ran.txt", final="DONE")
    run = box.run_agent(agent, s, git_repo({"README.md": b"x\n"}))
    t = agent.parse(run.stdout, s)
    assert t.error is None and t.final_message == "DONE", (t.error, run.stderr[-2000:])
    assert run.workspace is not None and run.workspace["ran.txt"] == b"ran\n"


def test_a_failed_request_ends_the_run_at_once_in_the_container(
    box: DockerBox, server: Any, tls: tuple[str, bytes]
) -> None:
    agent = Trusting(driver("gemini", path=IMAGE_PATH), tls[1])
    server.reset()
    server.agent(skill="greet", load="never", final="never reached")
    server.script(queue=[{"kind": "status", "status": 500}] * 5)
    s = gemini_setup(tls[0], max_turns=4)  # over https, through CONNECT
    run = box.run_agent(agent, s, git_repo({"README.md": b"x\n"}))
    t = agent.parse(run.stdout, s)
    assert t.error is not None and "500" in t.error, (t.error, run.stderr[-2000:])
    assert len(server.model_calls()) == 1
