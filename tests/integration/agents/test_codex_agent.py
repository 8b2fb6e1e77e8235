"""The pinned Codex CLI (0.169.0), driven by skill-be's codex driver, as an agent in a workspace against
the scripted agent model's Responses API on loopback. Codex has no skill tool and no file tools: it
reads, writes and runs through its shell (`exec_command`), and a load is a shell read of SKILL.md.
The turn limit is in test_agent_clis.py (every CLI); the controls here show what each hiding stops."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_harness import PARENT_MARKERS, SKILL, bodies, git_workspace, plant_parent, run_agent, setup_for, skill

WORK = {"write": {"path": "out/table.md", "content": "| step | ok |\n"}, "command": "echo ran > ran.txt"}
NEIGHBOUR = "iso-dates"


def offered_text(server: Any) -> list[str]:
    """The `<skills_instructions>` developer message of each agent request ('' when there is none)."""
    out = []
    for r in server.model_calls():
        text = json.dumps(json.loads(r["body"]).get("input"))
        start = text.find("<skills_instructions>")
        out.append(text[start : text.find("</skills_instructions>")] if start >= 0 else "")
    return out


def tools(server: Any) -> list[list[str]]:
    return [[str(t.get("name") or t.get("type")) for t in json.loads(r["body"]).get("tools") or []]
            for r in server.model_calls()]  # fmt: skip


def test_the_two_arms_differ_only_by_the_skill_and_a_shell_read_of_skill_md_on_turn_2_is_the_load(
    agent_server: Any, tmp_path: Path
) -> None:
    plant_parent(tmp_path)
    script = {"skill": SKILL, "load": "after_read", "read": "notes.txt", "final": "ALL DONE", **WORK}
    agent_server.reset()
    agent_server.agent(**script)
    ws = git_workspace(tmp_path / "with", {"notes.txt": "step1 ok\nstep2 ok\n"}, git=False)
    run = run_agent(agent_server, "codex", setup_for(agent_server, "codex", skills=[skill()]), ws, tmp_path / "hw")
    t = run.transcript
    assert t.error is None, (t.error, run.stderr[-2000:])
    assert t.skills_offered == (SKILL,) and t.skills_loaded == {SKILL: 2}
    assert [(c.name, c.turn) for c in t.tool_calls] == [("exec_command", n) for n in (1, 2, 3, 4)]
    assert "notes.txt" in str(t.tool_calls[0].arguments) and "step1 ok" in (t.tool_calls[0].result or "")
    assert f".agents/skills/{SKILL}/SKILL.md" in str(t.tool_calls[1].arguments)
    assert (ws / "out/table.md").read_text() == "| step | ok |\n"  # a file written comes back
    assert (ws / "ran.txt").read_text() == "ran\n"  # a command run comes back
    assert not (ws / ".agents").exists()  # the skill is in the private home, not the workspace
    assert t.final_message == "ALL DONE" and t.turns == 5
    assert (t.input_tokens, t.output_tokens) == (55, 35)  # five calls of 11 in and 7 out (cached ones included)
    log = agent_server.agent_log()
    assert [(e["cli"], e["offered"]) for e in log] == [("codex", True)] * 5
    listed = offered_text(agent_server)
    assert all(f"- {SKILL}: Tidy a build log" in x for x in listed) and all(x.count("(file: ") == 1 for x in listed)
    seen = bodies(agent_server)
    assert "TIDY-BODY" in seen  # the body reached the model once the shell read it
    assert [m for m in PARENT_MARKERS.values() if m in seen] == []  # no parent AGENTS.md or skill
    with_tools = tools(agent_server)
    assert "web_search" not in with_tools[0]

    # Baseline: the same script and no skill: nothing offered or loaded, the same tools.
    agent_server.reset()
    agent_server.agent(**script)
    ws = git_workspace(tmp_path / "base", {"notes.txt": "step1 ok\nstep2 ok\n"})
    base = run_agent(agent_server, "codex", setup_for(agent_server, "codex"), ws, tmp_path / "hb").transcript
    assert base.error is None
    assert base.skills_offered == () and base.skills_loaded == {}
    assert len(base.tool_calls) == 3 and (ws / "out/table.md").is_file()
    assert [e["offered"] for e in agent_server.agent_log()] == [False] * 4
    assert offered_text(agent_server) == [""] * 4  # no skill list at all: the bundled skills are hidden too
    assert tools(agent_server)[0] == with_tools[0]
    assert SKILL not in bodies(agent_server)


def test_a_cat_of_another_file_is_no_load_and_a_neighbour_read_is_recorded_by_name(
    agent_server: Any, tmp_path: Path
) -> None:
    agent_server.reset()
    agent_server.agent(skill=NEIGHBOUR, load="after_read", read="notes.txt", mention=SKILL, final="I tidied it.")
    ws = git_workspace(tmp_path / "ws", {"notes.txt": f"see .agents/skills/{SKILL}/SKILL.md\n"})
    neighbour = skill(NEIGHBOUR, "Format dates as ISO 8601. Use for dates.", "NEIGHBOUR-BODY\n")
    setup = setup_for(agent_server, "codex", prompt="-x: fix the dates", skills=[skill(), neighbour])
    t = run_agent(agent_server, "codex", setup, ws, tmp_path / "home").transcript
    assert t.error is None
    assert sorted(t.skills_offered or ()) == sorted([SKILL, NEIGHBOUR])
    assert t.skills_loaded == {NEIGHBOUR: 2}  # the cat of notes.txt (which names the skill) is no load
    assert SKILL in t.final_message
    first = json.loads(agent_server.model_calls()[0]["body"])
    assert "-x: fix the dates" in json.dumps(first["input"][-1])  # the prompt as written, after --


def test_an_api_error_ends_the_run_as_the_transcripts_error_without_retrying(agent_server: Any, tmp_path: Path) -> None:
    agent_server.reset()
    agent_server.agent(skill=SKILL, load="never", final="never reached")
    agent_server.script(queue=[{"kind": "status", "status": 500}] * 6)
    ws = git_workspace(tmp_path / "ws", {})
    run = run_agent(agent_server, "codex", setup_for(agent_server, "codex"), ws, tmp_path / "home", timeout=60)
    t = run.transcript
    assert t.error is not None and t.final_message != "never reached", (run.stdout[-1500:], run.stderr[-1500:])
    assert len(agent_server.model_calls()) == 1


def test_the_control_codex_home_agents_md_and_a_workspace_skill_do_reach_the_model(
    agent_server: Any, tmp_path: Path
) -> None:
    """What the fresh home hides, planted where the launch's home is: Codex injects it (so the
    hiding is the fresh CODEX_HOME, not a setting)."""
    agent_server.reset()
    agent_server.agent(skill=SKILL, load="never", final="ok")
    ws = git_workspace(tmp_path / "ws", {".agents/skills/ws-skill/SKILL.md":
                                         "---\nname: ws-skill\ndescription: MARKER-ws-skill\n---\nx\n"})  # fmt: skip

    def plant(argv: list[str], env: dict[str, str]) -> None:
        (Path(env["CODEX_HOME"]) / "AGENTS.md").write_text("MARKER-codex-home-agents\n")

    run_agent(agent_server, "codex", setup_for(agent_server, "codex"), ws, tmp_path / "home", tamper=plant)
    seen = bodies(agent_server)
    assert "MARKER-codex-home-agents" in seen
    assert "MARKER-ws-skill" in seen  # a workspace's own .agents/skills is offered in both arms
