"""The Copilot CLI driver's pure halves: what its launch holds (and does not), which cache it names, and
how its JSON event stream is parsed (offered, loaded, tokens, errors). The real binary is in
tests/integration/agents/ and tests/integration/agent_run/."""

from __future__ import annotations

import json
from pathlib import PurePosixPath

import pytest

from skill_be.adapters.copilot_cli import IMAGE_CACHE
from skill_be.agents.drivers import driver
from skill_be.agents.drivers.base import (
    AgentLimits,
    AgentSetup,
    McpServerSpec,
    ModelEndpoint,
    SkillToInstall,
    shared_tool,
)
from skill_be.agents.drivers.copilot import USAGE_EVENT, ignored_skill_dirs

WS, HOME = PurePosixPath("/work/a/ws"), PurePosixPath("/work/home")
KEY = "sk-unit-secret"
SKILL = SkillToInstall("tidy", "Tidy logs.", {"SKILL.md": b"---\nname: tidy\n---\nbody\n"})


def setup(provider: str = "openai", **kw: object) -> AgentSetup:
    ep = ModelEndpoint("m", provider, "http://127.0.0.1:9" + ("/v1" if provider == "openai" else ""), KEY)
    args: dict[str, object] = {"prompt": "-do it", "endpoint": ep, "skills": (SKILL,), **kw}
    return AgentSetup(**args)  # type: ignore[arg-type]


def test_the_launch_installs_in_the_home_hides_the_rest_and_keeps_the_key_in_the_environment() -> None:
    launch = driver("copilot").prepare(setup(limits=AgentLimits(max_turns=7, max_tokens=321)), WS, HOME)
    assert launch.files[HOME / ".agents" / "skills" / "tidy" / "SKILL.md"].startswith(b"---")
    assert all(p.is_relative_to(HOME) for p in launch.files)
    assert all(KEY.encode() not in data for data in launch.files.values()) and KEY not in " ".join(launch.argv)
    assert launch.env["COPILOT_PROVIDER_API_KEY"] == KEY and launch.env["COPILOT_OFFLINE"] == "true"
    assert launch.env["COPILOT_HOME"] == str(HOME / ".copilot") and launch.env["HOME"] == str(HOME)
    settings = json.loads(launch.files[HOME / ".copilot" / "settings.json"])
    assert settings["disabledSkills"] == ["customize-cloud-agent", "github-pr-media"]
    assert "/work/a/ws/.agents/skills" in settings["ignoredSkillsLocations"]
    assert "/.github/skills" in settings["ignoredSkillsLocations"]  # up to the root
    assert str(HOME / ".agents" / "skills") not in settings["ignoredSkillsLocations"]
    assert launch.files[HOME / ".skill-be" / "prompt.txt"] == b"-do it"  # on stdin: no option parsing
    assert "--available-tools=view,create,edit,bash,skill" in launch.argv
    # maxTurns is the relay's (it counts model calls); the wrapper's turn count is one past it, a backstop.
    assert json.loads(launch.files[HOME / ".skill-be" / "relay.json"])["max"] == 7
    assert launch.argv[launch.argv.index(str(HOME / ".skill-be" / "turn_limit.py")) + 1] == "8"
    assert launch.env["COPILOT_PROVIDER_MAX_OUTPUT_TOKENS"] == "321"
    assert "COPILOT_PROVIDER_TYPE" not in launch.env


def test_the_anthropic_wire_and_a_refused_one() -> None:
    launch = driver("copilot").prepare(setup("anthropic"), WS, HOME)
    assert launch.env["COPILOT_PROVIDER_TYPE"] == "anthropic"
    assert launch.env["COPILOT_PROVIDER_BASE_URL"] == "http://skill-be-relay.invalid"  # the relay's, once it listens
    assert json.loads(launch.files[HOME / ".skill-be" / "relay.json"])["upstream"] == "http://127.0.0.1:9"
    with pytest.raises(ValueError, match='not "gemini"'):
        driver("copilot").prepare(setup("gemini"), WS, HOME)


def test_the_image_s_cli_uses_the_image_s_cache_and_this_machine_s_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILL_BE_CACHE", "/var/cache/sb")
    assert driver("copilot").prepare(setup(), WS, HOME).env["XDG_CACHE_HOME"] == IMAGE_CACHE
    here = driver("copilot", bin="/usr/local/bin/copilot", path="/usr/bin").prepare(setup(), WS, HOME)
    assert here.env["XDG_CACHE_HOME"] == "/var/cache/sb/copilot"


def test_ignored_skill_dirs_cover_every_parent() -> None:
    dirs = ignored_skill_dirs(PurePosixPath("/a/b"))
    assert dirs[:3] == ["/a/b/.github/skills", "/a/b/.agents/skills", "/a/b/.claude/skills"]
    assert "/a/.claude/skills" in dirs and "/.agents/skills" in dirs and len(dirs) == 9


def event(kind: str, **data: object) -> str:
    return json.dumps({"type": kind, "data": data})


def stream(*lines: str) -> str:
    return "\n".join(lines) + "\n"


SKILLS_LOADED = event("session.skills_loaded", skills=[
    {"name": "tidy", "enabled": True, "source": "personal-agents"},
    {"name": "customize-cloud-agent", "enabled": False, "source": "builtin"},
])  # fmt: skip


def test_a_run_offered_loaded_wrote_and_counted_its_tokens() -> None:
    usage = {"modelMetrics": {"m": {"usage": {"inputTokens": 10, "outputTokens": 4, "cacheReadTokens": 5,
                                              "cacheWriteTokens": 1}}}}  # fmt: skip
    out = stream(
        SKILLS_LOADED,
        event("assistant.turn_start", turnId="0"),
        event("tool.execution_start", toolCallId="c1", toolName="skill", arguments={"skill": "tidy"}),
        event("tool.execution_complete", toolCallId="c1", success=True, result={"content": "Skill loaded"}),
        event("assistant.turn_start", turnId="1"),
        event("tool.execution_start", toolCallId="c2", toolName="skill", arguments={"skill": "other"}),
        event("tool.execution_complete", toolCallId="c2", success=False, error={"message": "no such skill"}),
        event("assistant.turn_start", turnId="2"),
        event("assistant.message", content="DONE"),
        json.dumps({"type": "result", "exitCode": 0}),
        json.dumps({"type": USAGE_EVENT, "usage": usage}),
    )
    t = driver("copilot").parse(out, setup())
    assert t.skills_offered == ("tidy",) and t.skills_loaded == {"tidy": 1}  # a failed load is none
    assert t.turns == 3 and t.final_message == "DONE" and t.error is None
    assert [(c.name, c.is_error) for c in t.tool_calls] == [("skill", False), ("skill", True)]
    assert (t.input_tokens, t.output_tokens) == (16, 4)
    assert t.cache_read_tokens == 5


def test_errors_the_cli_s_the_wrapper_s_and_an_exit_code() -> None:
    d = driver("copilot")
    out = stream(SKILLS_LOADED, event("session.error", message="Failed to get response: 500"))
    assert d.parse(out, setup()).error == "Failed to get response: 500"
    limit = {
        "type": "error",
        "error": {
            "name": "SkillBeTurnLimit",
            "data": {"message": "turn limit reached (maxTurns 3: the agent asked for model call 4)"},
        },
    }
    assert (
        d.parse(stream(json.dumps(limit)), setup()).error
        == "turn limit reached (maxTurns 3: the agent asked for model call 4)"
    )
    api = {"type": "error", "error": {"name": "SkillBeApiError", "data": {"message": "429"}}}
    assert "HTTP 429" in (d.parse(stream(json.dumps(api)), setup()).error or "")
    assert d.parse(stream(json.dumps({"type": "result", "exitCode": 1})), setup()).error == (
        "Copilot CLI exited with code 1"
    )
    assert d.parse("", setup()).skills_offered is None  # no list seen: not "none offered"


def test_mcp_servers_go_in_a_file_and_their_names_are_available_tools() -> None:
    facts = McpServerSpec("facts", "python3", ("/opt/m.py",), {"FACT": "x"})
    launch = driver("copilot").prepare(setup(mcp=(facts,)), PurePosixPath("/w"), PurePosixPath("/h"))
    argv = list(launch.argv)
    assert argv[argv.index("--additional-mcp-config") + 1] == "@/h/.skill-be/mcp.json"
    assert "--disable-builtin-mcps" in argv and "--available-tools=view,create,edit,bash,skill,facts" in argv
    config = json.loads(launch.files[PurePosixPath("/h/.skill-be/mcp.json")])
    assert config == {"mcpServers": {"facts": {"type": "local", "command": "python3", "args": ["/opt/m.py"],
                                               "env": {"FACT": "x"}, "tools": ["*"]}}}  # fmt: skip
    plain = driver("copilot").prepare(setup(), PurePosixPath("/w"), PurePosixPath("/h"))
    assert "--additional-mcp-config" not in plain.argv and PurePosixPath("/h/.skill-be/mcp.json") not in plain.files
    d = driver("copilot")
    assert shared_tool(d, "facts-lookup", ["facts"]) == "mcp:facts/lookup"
    assert shared_tool(d, "facts-lookup", []) == "facts-lookup" and shared_tool(d, "bash", ["facts"]) == "shell"


def test_follow_ups_set_the_session_id_and_resume_it_each_with_its_prompt_file() -> None:
    launch = driver("copilot").prepare(setup(follow_ups=("again",)), PurePosixPath("/w"), PurePosixPath("/h"))
    (then,) = launch.then
    session = launch.argv[launch.argv.index("--session-id") + 1]
    assert list(then[then.index("--resume") :]) == ["--resume", session] and "--session-id" not in then
    assert launch.files[PurePosixPath("/h/.skill-be/prompt-1.txt")] == b"again"
    assert "/h/.skill-be/prompt-1.txt" in then and "/h/.skill-be/usage-1.json" in then
    assert "--session-id" not in driver("copilot").prepare(setup(), PurePosixPath("/w"), PurePosixPath("/h")).argv
