"""The real Codex CLI (the pinned version in skill-be's image) as an agent in its container, behind the
egress proxy, against the scripted model's Responses API on this machine, both ways out: the
with-skill arm over http (the proxy's fixed tunnel), the baseline over https (CONNECT through
HTTPS_PROXY to a TLS front of the same server). Codex's own sandbox is off (`-s danger-full-access`):
in this container, with Docker's default profile, it would fail every command while exiting 0.
The limit is skill-be's relay, which runs in the container too: a looping model ends at maxTurns."""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePosixPath
from typing import Any

from tests.integration.agent_run.test_agent_cli_containers import BODY, KEY, SKILL, Trusting, box, server, tls

from skill_be.agents.boxes.docker import IMAGE_PATH, DockerBox
from skill_be.agents.drivers import driver
from skill_be.agents.drivers.base import AgentLimits, AgentSetup, Launch, ModelEndpoint
from skill_be.agents.drivers.limit import LIMIT_ERROR
from skill_be.agents.workspace import git_repo

__all__ = ["box", "server", "tls"]  # the fixtures, shared with the other CLIs' container tests


def codex_setup(base_url: str, skills: tuple[Any, ...], max_turns: int = 8) -> AgentSetup:
    ep = ModelEndpoint("agent-mock", "openai", base_url + "/v1", KEY)
    return AgentSetup(
        "Greet the team in a file.", ep, skills, limits=AgentLimits(max_turns=max_turns, timeout_seconds=120)
    )


def test_codex_acts_in_its_container_with_and_without_the_skill(
    box: DockerBox, server: Any, tls: tuple[str, bytes]
) -> None:
    server.agent(skill="greet", load="offered", write={"path": "out.txt", "content": "hello team"},
                 command="echo ran > ran.txt", final="DONE")  # fmt: skip
    agent = Trusting(driver("codex", path=IMAGE_PATH), tls[1])
    files = git_repo({"README.md": b"# team\n"})
    for arm, skills, url in (("with-skill", (SKILL,), server.base_url), ("baseline", (), tls[0])):
        server.reset()
        s = codex_setup(url, skills)
        run = box.run_agent(agent, s, files)
        assert run.error is None and run.exit == "0", (arm, run.stderr[-2000:], run.stdout[-2000:])
        t = agent.parse(run.stdout, s)
        log = [e for e in server.agent_log() if e["cli"] == "codex"]
        seen = "\n".join(r["body"] for r in server.model_calls())
        assert t.error is None and t.final_message == "DONE", (arm, t.error, run.stderr[-2000:])
        assert run.workspace is not None and run.workspace["out.txt"] == b"hello team"
        assert run.workspace["ran.txt"] == b"ran\n"  # the shell ran: its own sandbox would have failed it
        if skills:
            assert t.skills_offered == ("greet",) and t.skills_loaded == {"greet": 1}
            assert log and all(e["offered"] for e in log) and BODY in seen
        else:
            assert t.skills_offered == () and t.skills_loaded == {}
            assert log and not any(e["offered"] for e in log) and BODY not in seen
            rows, error = box.run_checks(
                run.workspace, {}, [("out", "grep -q hello out.txt"), ("no", "test -f no")], 30
            )
            assert error is None and [r.exit for r in rows] == ["0", "1"]


def test_a_looping_model_ends_at_max_turns_in_the_container(
    box: DockerBox, server: Any, tls: tuple[str, bytes]
) -> None:
    server.reset()
    server.agent(skill="greet", forever=True)
    agent = Trusting(driver("codex", path=IMAGE_PATH), tls[1])
    s = codex_setup(server.base_url, (), max_turns=2)
    run = box.run_agent(agent, s, git_repo({"README.md": b"x\n"}))
    assert agent.parse(run.stdout, s).error == LIMIT_ERROR.format(max=2, next=3), run.stderr[-2000:]
    assert len([e for e in server.agent_log() if e["cli"] == "codex"]) == 2


class OwnSandbox(Trusting):
    """The control: Codex's own sandbox on (`-s workspace-write`), as it runs outside skill-be."""

    def prepare(self, setup: AgentSetup, workspace: PurePosixPath, home: PurePosixPath) -> Launch:
        launch = super().prepare(setup, workspace, home)
        argv = ["workspace-write" if a == "danger-full-access" else a for a in launch.argv]
        return replace(launch, argv=argv)


def test_the_control_codexs_own_sandbox_fails_every_command_in_the_container_and_still_exits_0(
    box: DockerBox, server: Any, tls: tuple[str, bytes]
) -> None:
    server.reset()
    server.agent(skill="greet", load="never", command="echo ran > ran.txt", final="DONE")
    agent = OwnSandbox(driver("codex", path=IMAGE_PATH), tls[1])
    s = codex_setup(server.base_url, ())
    run = box.run_agent(agent, s, git_repo({"README.md": b"x\n"}))
    assert run.exit == "0" and run.workspace is not None, run.stderr[-2000:]
    assert "ran.txt" not in run.workspace  # the command never ran, and nothing said the run failed
    assert agent.parse(run.stdout, s).error is None
