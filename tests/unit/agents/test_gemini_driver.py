"""The gemini driver's pure halves: its launch (settings, flags, where the skill goes) and its event
stream (a load, a refused activate_skill, the turn limit, an API error, a start that printed no result).
The real CLI is in tests/integration/agents/test_gemini_agent.py."""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any

import pytest

from skill_be.agents.drivers import driver, endpoint
from skill_be.agents.drivers.base import AgentLimits, AgentSetup, ModelEndpoint, SkillToInstall
from skill_be.agents.drivers.limit import LIMIT_ERROR

WS, HOME = PurePosixPath("/work/ws"), PurePosixPath("/work/home")
SKILL_MD = b"---\nname: tidy\ndescription: Tidy logs.\n---\nTIDY-BODY line\n"


def setup(**kw: Any) -> AgentSetup:
    skill = SkillToInstall("tidy", "Tidy logs.", {"SKILL.md": SKILL_MD})
    ep = ModelEndpoint("gem-m", "gemini", "http://127.0.0.1:9", "gem-unit-key")
    return AgentSetup(**{"prompt": "-do it", "endpoint": ep, "skills": (skill,), **kw})


def settings_of(launch: Any) -> dict[str, Any]:
    return dict(json.loads(launch.files[HOME / ".gemini/settings.json"]))


def test_the_launch_names_the_model_allows_the_tools_and_hides_the_users_setup() -> None:
    d = driver("gemini")
    assert d.name == "gemini" and getattr(d, "turn_limit", "") == "own"  # no relay: Gemini's own limit holds
    launch = d.prepare(setup(limits=AgentLimits(max_turns=4, max_tokens=99)), WS, HOME)
    argv = list(launch.argv)
    assert argv[:3] == ["gemini", "-m", "gem-m"] and argv[-1] == "--prompt=-do it"
    for flag in (["-o", "stream-json"], ["--skip-trust"], ["--approval-mode", "yolo"], ["-e", "none"]):
        i = argv.index(flag[0])
        assert argv[i : i + len(flag)] == flag
    conf = settings_of(launch)
    assert conf["security"] == {"auth": {"selectedType": "gemini-api-key"}}
    assert conf["privacy"] == {"usageStatisticsEnabled": False} and conf["general"]["maxAttempts"] == 1
    assert conf["skills"] == {"disabled": ["skill-creator", "antigravity-support"]}
    assert conf["model"] == {"maxSessionTurns": 4}
    assert conf["context"] == {"memoryBoundaryMarkers": []}
    assert conf["tools"]["core"][-1] == "activate_skill" and "google_web_search" not in conf["tools"]["core"]
    override = conf["modelConfigs"]["overrides"][0]
    assert override == {"match": {"model": "gem-m"}, "modelConfig": {"generateContentConfig": {"maxOutputTokens": 99}}}
    assert launch.files[HOME / ".agents/skills/tidy/SKILL.md"] == SKILL_MD  # the user-level folder Gemini reads
    env = launch.env
    assert env["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:9" and env["GEMINI_API_KEY"] == "gem-unit-key"
    assert env["TMPDIR"] == str(HOME / "tmp") and env["HOME"] == str(HOME)
    assert env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] == str(HOME / ".gemini/system-settings.json")
    assert all(b"gem-unit-key" not in data for data in launch.files.values())
    base = d.prepare(setup(skills=()), WS, HOME)
    assert not any(".agents" in str(p) for p in base.files)  # the baseline installs no skill
    assert "modelConfigs" not in settings_of(base)  # no maxTokens: Gemini's own output limit


def test_chosen_tools_keep_activate_skill_and_another_wire_is_refused() -> None:
    launch = driver("gemini").prepare(setup(tools=["read_file", "activate_skill"]), WS, HOME)
    assert settings_of(launch)["tools"]["core"] == ["read_file", "activate_skill"]
    trigger = driver("gemini").prepare(setup(tools=list(driver("gemini").trigger_tools)), WS, HOME)
    assert not {"write_file", "replace", "run_shell_command"} & set(settings_of(trigger)["tools"]["core"])
    with pytest.raises(ValueError, match="only the Gemini API"):
        driver("gemini").prepare(setup(endpoint=ModelEndpoint("m", "openai", None, None)), WS, HOME)


def test_the_endpoint_of_a_gemini_cli_model_speaks_gemini() -> None:
    class Entry:
        adapter, id, settings = "gemini-cli", "gem-m", {"adapter": "gemini-cli", "id": "gem-m"}

    class Adapter:
        entry, base_url = Entry(), "http://127.0.0.1:9"

        def key(self) -> str:
            return "k"

    assert endpoint(Adapter()) == ModelEndpoint("gem-m", "gemini", "http://127.0.0.1:9", "k")


def stream(*events: Any) -> str:
    return "\n".join(json.dumps(e) for e in events) + "\nnot json\n"


def tool(n: int, name: str, params: dict[str, Any], status: str = "success", output: str = "") -> list[Any]:
    result: dict[str, Any] = {"type": "tool_result", "tool_id": f"t{n}", "status": status, "output": output}
    if status != "success":
        result["error"] = {"type": "x", "message": output}
    return [{"type": "tool_use", "tool_name": name, "tool_id": f"t{n}", "parameters": params}, result]


def result(status: str = "success", error: dict[str, Any] | None = None) -> dict[str, Any]:
    stats = {"input_tokens": 50, "output_tokens": 9, "cached": 20, "input": 30, "tool_calls": 2}
    return {"type": "result", "status": status, "stats": stats, **({"error": error} if error else {})}


def test_activate_skill_that_succeeds_is_the_load_and_the_answer_and_tokens_come_back() -> None:
    out = stream(
        {"type": "init", "model": "gem-m"},
        {"type": "message", "role": "user", "content": "-do it"},
        *tool(1, "read_file", {"file_path": "notes.txt"}),
        *tool(2, "activate_skill", {"name": "tidy"}, output="Skill **tidy** activated."),
        {"type": "message", "role": "assistant", "content": "AL", "delta": True},
        {"type": "message", "role": "assistant", "content": "L DONE", "delta": True},
        result(),
    )
    t = driver("gemini").parse(out, setup())
    assert t.error is None and t.final_message == "ALL DONE" and t.turns == 3
    assert t.skills_offered == ("tidy",) and t.skills_loaded == {"tidy": 2}
    assert [(c.name, c.turn) for c in t.tool_calls] == [("read_file", 1), ("activate_skill", 2)]
    assert (t.input_tokens, t.output_tokens) == (50, 9)  # input_tokens counts the cached ones
    assert t.usage.cache_read_tokens == 20 and t.usage.cache_write_tokens == 0


def test_a_refused_activate_skill_is_no_load_and_a_read_of_its_skill_md_is_one() -> None:
    out = stream(
        *tool(1, "activate_skill", {"name": "tidy"}, status="error", output="Skill not found"),
        *tool(2, "read_file", {"file_path": "/work/home/.agents/skills/tidy/notes.md"}),
        *tool(3, "read_file", {"file_path": "/work/home/.agents/skills/tidy/SKILL.md"}, status="error"),
        {"type": "message", "role": "assistant", "content": "ok"},
        result(),
    )
    t = driver("gemini").parse(out, setup())
    assert t.skills_loaded == {} and t.tool_calls[0].is_error and t.error is None
    read = stream(*tool(1, "read_file", {"file_path": "/work/home/.agents/skills/tidy/SKILL.md"}), result())
    assert driver("gemini").parse(read, setup()).skills_loaded == {"tidy": 1}


def test_the_turn_limit_is_skill_bes_error_and_other_failures_are_the_model_calls() -> None:
    limit = {"type": "FatalTurnLimitedError", "message": "Reached max session turns for this session."}
    out = stream(*tool(1, "run_shell_command", {"command": "echo 0"}), result("error", limit))
    t = driver("gemini").parse(out, setup(limits=AgentLimits(max_turns=1)))
    assert t.error == LIMIT_ERROR.format(max=1, next=2) and t.turns == 1
    api = {"type": "unknown", "message": '[API Error: {"error":{"code":500,"message":"boom"}}]'}
    t = driver("gemini").parse(stream(result("error", api)), setup())
    assert t.error is not None and t.error.startswith("the model call failed: [API Error") and "500" in t.error
    # The control: the same stream ended with success is no error.
    assert driver("gemini").parse(stream(*tool(1, "run_shell_command", {}), result()), setup()).error is None


def test_a_run_that_printed_no_result_is_an_error() -> None:
    t = driver("gemini").parse("Please set an Auth method in your settings.json\n", setup())
    assert t.error is not None and "without a result" in t.error
