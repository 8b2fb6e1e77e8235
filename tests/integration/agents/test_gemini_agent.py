"""The pinned Gemini CLI (0.61.0), driven by skill-be's gemini driver, as an agent in a workspace against
the scripted agent model's Gemini API (`:streamGenerateContent`, functionCall parts) on loopback. A load
is its `activate_skill` tool called with the skill's name. The turn limit is in test_agent_clis.py
(every CLI); the controls here show what each setting of the launch stops."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_harness import PARENT_MARKERS, SKILL, bodies, git_workspace, plant_parent, run_agent, setup_for, skill

WORK = {"write": {"path": "out/table.md", "content": "| step | ok |\n"}, "command": "echo ran > ran.txt"}
NEIGHBOUR = "iso-dates"


def declared(server: Any) -> list[list[str]]:
    """The function declarations each agent request offers, by name."""
    return [[str(f.get("name")) for t in json.loads(r["body"]).get("tools") or []
             for f in t.get("functionDeclarations") or []] for r in server.model_calls()]  # fmt: skip


def skill_lists(server: Any) -> list[str]:
    """The `<available_skills>` block of each request's system instruction ('' when there is none)."""
    out = []
    for r in server.model_calls():
        text = json.dumps(json.loads(r["body"]).get("systemInstruction"))
        start = text.find("<available_skills>")
        out.append(text[start : text.find("</available_skills>")] if start >= 0 else "")
    return out


def test_the_two_arms_differ_only_by_the_skill_and_activate_skill_on_turn_2_is_the_load(
    agent_server: Any, tmp_path: Path
) -> None:
    plant_parent(tmp_path)
    script = {"skill": SKILL, "load": "after_read", "read": "notes.txt", "final": "ALL DONE", **WORK}
    agent_server.reset()
    agent_server.agent(**script)
    ws = git_workspace(tmp_path / "with", {"notes.txt": "step1 ok\nstep2 ok\n"}, git=False)
    run = run_agent(agent_server, "gemini", setup_for(agent_server, "gemini", skills=[skill()]), ws, tmp_path / "hw")
    t = run.transcript
    assert t.error is None, (t.error, run.stdout[-2000:], run.stderr[-2000:])
    assert t.skills_offered == (SKILL,) and t.skills_loaded == {SKILL: 2}
    names = ["read_file", "activate_skill", "write_file", "run_shell_command"]
    assert [(c.name, c.turn) for c in t.tool_calls] == list(zip(names, (1, 2, 3, 4), strict=True))
    assert "notes.txt" in json.dumps(t.tool_calls[0].arguments) and t.tool_calls[1].arguments == {"name": SKILL}
    assert not any(c.is_error for c in t.tool_calls)
    assert (ws / "out/table.md").read_text() == "| step | ok |\n"  # a file written comes back
    assert (ws / "ran.txt").read_text() == "ran\n"  # a command run comes back
    assert not (ws / ".agents").exists()  # the skill is in the private home, not the workspace
    assert t.final_message == "ALL DONE" and t.turns == 5
    assert (t.input_tokens, t.output_tokens) == (55, 35)  # five calls of 11 in and 7 out (cached ones included)
    assert [(e["cli"], e["offered"]) for e in agent_server.agent_log()] == [("gemini", True)] * 5
    listed = skill_lists(agent_server)
    assert all(f"<name>{SKILL}</name>" in x and x.count("<skill>") == 1 for x in listed)  # no built-in skill
    seen = bodies(agent_server)
    assert "TIDY-BODY" in seen and "step1 ok" in seen  # the body and the file reached the model
    assert [m for m in PARENT_MARKERS.values() if m in seen] == []  # no parent GEMINI.md, AGENTS.md or skill
    with_tools = declared(agent_server)[0]
    assert "activate_skill" in with_tools and "google_web_search" not in with_tools and "web_fetch" not in with_tools

    # Baseline: the same script and no skill: nothing offered or loaded, the same tools less activate_skill.
    agent_server.reset()
    agent_server.agent(**script)
    ws = git_workspace(tmp_path / "base", {"notes.txt": "step1 ok\nstep2 ok\n"})
    base = run_agent(agent_server, "gemini", setup_for(agent_server, "gemini"), ws, tmp_path / "hb").transcript
    assert base.error is None
    assert base.skills_offered == () and base.skills_loaded == {}
    assert [c.name for c in base.tool_calls] == ["read_file", "write_file", "run_shell_command"]
    assert (ws / "out/table.md").is_file()
    assert [e["offered"] for e in agent_server.agent_log()] == [False] * 4
    assert skill_lists(agent_server) == [""] * 4  # no skill list at all: the built-in skills are hidden too
    # The same tools: Gemini declares activate_skill with no skill too ("No skills are currently available").
    assert sorted(declared(agent_server)[0]) == sorted(with_tools)
    assert SKILL not in bodies(agent_server)


def test_a_neighbour_loaded_is_recorded_by_name_and_naming_a_skill_is_not_a_load(
    agent_server: Any, tmp_path: Path
) -> None:
    agent_server.reset()
    agent_server.agent(skill=NEIGHBOUR, load="offered", mention=SKILL, final="I tidied it.")
    ws = git_workspace(tmp_path / "ws", {"notes.txt": "x\n"})
    neighbour = skill(NEIGHBOUR, "Format dates as ISO 8601. Use for dates.", "NEIGHBOUR-BODY\n")
    setup = setup_for(agent_server, "gemini", prompt="-x: fix the dates", skills=[skill(), neighbour], max_tokens=321)
    t = run_agent(agent_server, "gemini", setup, ws, tmp_path / "home").transcript
    assert t.error is None
    assert sorted(t.skills_offered or ()) == sorted([SKILL, NEIGHBOUR])
    assert SKILL in t.final_message and t.skills_loaded == {NEIGHBOUR: 1}
    calls = [json.loads(r["body"]) for r in agent_server.model_calls()]
    assert len(calls) == 2 and all(SKILL in json.dumps(b) and NEIGHBOUR in json.dumps(b) for b in calls)
    texts = [p.get("text") for p in calls[0]["contents"][-1]["parts"]]
    assert "-x: fix the dates" in texts  # the prompt as written, though it starts with "-"
    # maxTokens reaches the request, per model response.
    assert {b["generationConfig"].get("maxOutputTokens") for b in calls} == {321}


def test_an_api_error_ends_the_run_as_the_transcripts_error_without_retrying(agent_server: Any, tmp_path: Path) -> None:
    agent_server.reset()
    agent_server.agent(skill=SKILL, load="never", final="never reached")
    agent_server.script(queue=[{"kind": "status", "status": 500}] * 6)
    ws = git_workspace(tmp_path / "ws", {})
    run = run_agent(agent_server, "gemini", setup_for(agent_server, "gemini"), ws, tmp_path / "home", timeout=60)
    t = run.transcript
    assert t.error is not None and "500" in t.error, (t.error, run.stdout[-1500:], run.stderr[-1500:])
    assert t.final_message != "never reached"
    assert len(agent_server.model_calls()) == 1  # general.maxAttempts 1: Gemini's own retries are off
    assert list((tmp_path / "home" / "tmp").glob("gemini-client-error-*"))  # its error report stays in the home


def test_the_control_without_yolo_the_shell_is_refused(agent_server: Any, tmp_path: Path) -> None:
    """Why the launch sets `--approval-mode yolo`: in the default mode a non-interactive Gemini refuses
    every tool that asks for a confirmation (the shell, writes), although `tools.core` still declares it."""
    agent_server.reset()
    agent_server.agent(skill=SKILL, load="offered", command="echo ran > ran.txt", final="ok")
    ws = git_workspace(tmp_path / "ws", {})

    def no_yolo(argv: list[str], env: dict[str, str]) -> None:
        i = argv.index("--approval-mode")
        del argv[i : i + 2]

    setup = setup_for(agent_server, "gemini", skills=[skill()])
    t = run_agent(agent_server, "gemini", setup, ws, tmp_path / "home", tamper=no_yolo).transcript
    assert [(c.name, c.is_error) for c in t.tool_calls] == [("activate_skill", False), ("run_shell_command", True)]
    assert "requires user confirmation" in (t.tool_calls[1].result or "")
    assert not (ws / "ran.txt").exists()


def test_a_parent_gemini_md_is_hidden_and_reaches_the_model_without_the_boundary_setting(
    agent_server: Any, tmp_path: Path
) -> None:
    """What `context.memoryBoundaryMarkers: []` hides: Gemini reads the GEMINI.md of every folder from a
    workspace up to its git root. A workspace's own GEMINI.md and skills are read in both arms (no
    setting hides them), as Gemini reads them for its users."""
    plant_parent(tmp_path)
    ws_skill = "---\nname: ws-skill\ndescription: MARKER-ws-skill\n---\nx\n"
    git_workspace(tmp_path / "ws", {"GEMINI.md": "MARKER-workspace-gemini-md\n", ".agents/skills/ws-skill/SKILL.md":
                                    ws_skill}, git=False)  # fmt: skip
    git_workspace(tmp_path / "repo", {}, git=True)
    (tmp_path / "repo" / ".git").rename(tmp_path / ".git")  # the parent is the repository, the workspace in it
    agent_server.reset()
    agent_server.agent(skill=SKILL, load="never", final="ok")
    run_agent(agent_server, "gemini", setup_for(agent_server, "gemini"), tmp_path / "ws", tmp_path / "h1")
    seen = bodies(agent_server)
    assert "MARKER-workspace-gemini-md" in seen and "MARKER-parent-gemini-md" not in seen
    assert "MARKER-ws-skill" in seen  # a workspace's own .agents/skills is offered in both arms

    def default_boundary(argv: list[str], env: dict[str, str]) -> None:
        path = Path(env["HOME"]) / ".gemini" / "settings.json"
        conf = json.loads(path.read_text())
        del conf["context"]
        path.write_text(json.dumps(conf))

    agent_server.reset()
    agent_server.agent(skill=SKILL, load="never", final="ok")
    setup = setup_for(agent_server, "gemini")
    run_agent(agent_server, "gemini", setup, tmp_path / "ws", tmp_path / "h2", tamper=default_boundary)
    seen = bodies(agent_server)
    assert "MARKER-parent-gemini-md" in seen and "MARKER-workspace-gemini-md" in seen


def outside_connects(trace: Path) -> list[str]:
    """The connect() calls of a strace log to an IPv4 or IPv6 address other than loopback."""
    lines = [line for line in trace.read_text().splitlines() if "connect(" in line and "sin" in line]
    return [line for line in lines if "127.0.0.1" not in line and "::1" not in line and "AF_UNIX" not in line]


def test_a_run_connects_to_nothing_but_the_endpoint_and_with_usage_statistics_on_it_looks_up_a_host(
    agent_server: Any, tmp_path: Path
) -> None:
    """Every connect() of the CLI and its children, under strace: with the driver's settings, only the
    endpoint on loopback; the control (usage statistics at Gemini's default) tries a DNS lookup."""
    agent_server.reset()
    agent_server.agent(skill=SKILL, load="never", final="ok")

    def traced(trace: Path, statistics: bool) -> Any:
        def tamper(argv: list[str], env: dict[str, str]) -> None:
            argv[:0] = ["strace", "-f", "-e", "trace=connect", "-o", str(trace)]
            if statistics:
                path = Path(env["HOME"]) / ".gemini" / "settings.json"
                conf = json.loads(path.read_text())
                del conf["privacy"]
                path.write_text(json.dumps(conf))

        return tamper

    for name, statistics in (("quiet", False), ("control", True)):
        ws = git_workspace(tmp_path / f"ws-{name}", {})
        trace = tmp_path / f"{name}.trace"
        t = run_agent(agent_server, "gemini", setup_for(agent_server, "gemini"), ws, tmp_path / f"home-{name}",
                      tamper=traced(trace, statistics)).transcript  # fmt: skip
        assert t.error is None and t.final_message == "ok", t.error
        assert any("127.0.0.1" in line for line in trace.read_text().splitlines() if "connect(" in line)
        if statistics:
            assert outside_connects(trace), "the control: Gemini's usage statistics look up their host"
        else:
            assert outside_connects(trace) == []
