"""The drivers' pure halves: what a launch holds (and does not), and how each CLI's stream is parsed,
errors and limits included. The real CLIs are in tests/integration/agents/."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import PurePosixPath

import pytest

from skill_be.agents.drivers import driver
from skill_be.agents.drivers.base import AgentLimits, AgentSetup, ModelEndpoint, SkillToInstall

WS, HOME = PurePosixPath("/work/ws"), PurePosixPath("/work/home")
KEY = "sk-unit-secret"
PROVIDER = {"claude": "anthropic", "pi": "openai", "opencode": "openai", "codex": "openai", "gemini": "gemini"}


def setup(cli: str, **kw: object) -> AgentSetup:
    skill = SkillToInstall("tidy", "Tidy logs.", {"SKILL.md": b"---\nname: tidy\n---\nbody\n", "scripts/a.sh": b"x"})
    ep = ModelEndpoint(
        "m", PROVIDER[cli], "http://127.0.0.1:9" + ("/v1" if cli not in ("claude", "gemini") else ""), KEY
    )
    args: dict[str, object] = {"prompt": "do it", "endpoint": ep, "skills": (skill,), **kw}
    return AgentSetup(**args)  # type: ignore[arg-type]


@pytest.mark.parametrize("cli", ["claude", "pi", "opencode", "codex", "gemini"])
def test_a_launch_writes_only_under_home_keeps_the_key_out_of_files_and_the_callers_env_out(
    cli: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILL_BE_CANARY", "canary-value")
    launch = driver(cli).prepare(setup(cli), WS, HOME)
    assert launch.cwd == WS
    assert all(p.is_relative_to(HOME) for p in launch.files)  # the workspace stays as the scenario wrote it
    assert any(p.parts[-2:] == ("tidy", "SKILL.md") for p in launch.files)
    assert any(p.parts[-3:] == ("tidy", "scripts", "a.sh") for p in launch.files)
    assert all(KEY.encode() not in data for data in launch.files.values())
    assert KEY in launch.env.values() or KEY in json.dumps(dict(launch.env))
    assert KEY not in " ".join(launch.argv)
    assert "canary-value" not in json.dumps(dict(launch.env)) and "SKILL_BE_CANARY" not in launch.env
    assert launch.env["HOME"] == str(HOME)
    if cli == "opencode":  # on stdin, through the wrapper: opencode quotes an argument with spaces
        assert launch.files[HOME / ".skill-be" / "prompt.txt"] == b"do it"
    elif cli == "gemini":  # one argument, so a prompt that starts with "-" is no option
        assert launch.argv[-1] == "--prompt=do it"
    else:
        assert launch.argv[-1] == "do it"


def test_default_and_chosen_tools_keep_the_skill_tool_where_the_cli_has_one() -> None:
    assert driver("claude").tools(setup("claude")) == ["Skill", "Read", "Write", "Edit", "Bash"]  # type: ignore[attr-defined]
    assert driver("claude").tools(setup("claude", tools=["Read"])) == ["Skill", "Read"]  # type: ignore[attr-defined]
    assert driver("opencode").tools(setup("opencode", tools=["bash"])) == ["bash", "skill"]  # type: ignore[attr-defined]
    launch = driver("pi").prepare(setup("pi", tools=["bash"]), WS, HOME)
    assert launch.argv[launch.argv.index("--tools") + 1] == "bash"
    # pi offers skills only with its read tool: the transcript says so.
    assert driver("pi").parse("", setup("pi", tools=["bash"])).skills_offered == ()
    assert driver("pi").parse("", setup("pi")).skills_offered == ("tidy",)


def test_limits_reach_each_cli() -> None:
    limits = AgentLimits(max_turns=7, max_tokens=321)
    claude = driver("claude").prepare(setup("claude", limits=limits), WS, HOME)
    assert claude.argv[claude.argv.index("--max-turns") + 1] == "7"
    assert claude.env["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] == "321"
    pi = driver("pi").prepare(setup("pi", limits=limits), WS, HOME)
    ext = next(data for p, data in pi.files.items() if p.name.endswith(".ts"))
    assert b"MAX_TURNS = 7;" in ext
    models = next(data for p, data in pi.files.items() if p.name == "models.json")
    assert json.loads(models)["providers"]["skill-be"]["models"][0]["maxTokens"] == 321
    oc = driver("opencode").prepare(setup("opencode", limits=limits), WS, HOME)
    # skill-be's relay holds the limit (7 model calls); the wrapper's step count is a second lock.
    assert oc.argv[1:3] == [str(HOME / ".skill-be/relay.py"), str(HOME / ".skill-be/relay.json")]
    assert json.loads(oc.files[HOME / ".skill-be/relay.json"])["max"] == 7
    assert oc.argv[5:7] == ["8", '"type":"step_start"']


def test_a_prompt_that_looks_like_an_option_stays_a_prompt() -> None:
    assert driver("claude").prepare(setup("claude", prompt="-rf"), WS, HOME).argv[-2:] == ["--", "-rf"]
    assert driver("pi").prepare(setup("pi", prompt="@etc/passwd"), WS, HOME).argv[-1] == " @etc/passwd"


@pytest.mark.parametrize("name", ["../evil", "a/b", ".."])
def test_a_skill_that_would_leave_its_folder_is_refused(name: str) -> None:
    bad = SkillToInstall(name, "d", {"SKILL.md": b""})
    with pytest.raises(ValueError, match="folder"):
        driver("pi").prepare(AgentSetup("p", setup("pi").endpoint, skills=(bad,)), WS, HOME)
    escape = SkillToInstall("ok", "d", {"../../.bashrc": b""})
    with pytest.raises(ValueError, match="leaves the skill folder"):
        driver("claude").prepare(AgentSetup("p", setup("claude").endpoint, skills=(escape,)), WS, HOME)


def test_a_wire_format_the_cli_cannot_speak_is_refused() -> None:
    with pytest.raises(ValueError, match="anthropic"):
        driver("claude").prepare(setup("pi"), WS, HOME)


def lines(*events: object) -> str:
    return "warning: not json\n" + "\n".join(json.dumps(e) for e in events) + "\n"


def test_claude_stream_tool_calls_load_tokens_and_a_bounded_result() -> None:
    s = setup("claude")
    out = lines(
        {"type": "system", "subtype": "init", "skills": ["tidy"]},
        {"type": "assistant", "message": {"id": "m1", "content": [{"type": "tool_use", "id": "t1", "name": "Skill",
                                                                   "input": {"skill": "tidy"}}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x" * 5000}]},
         "tool_use_result": {"success": True, "commandName": "tidy"}},
        {"type": "assistant", "message": {"id": "m2", "content": [{"type": "text", "text": "done"}]}},
        {"type": "result", "subtype": "success", "result": "done", "num_turns": 2, "total_cost_usd": 0.5,
         "usage": {"input_tokens": 3, "cache_read_input_tokens": 4, "output_tokens": 5}},
    )  # fmt: skip
    t = driver("claude").parse(out, s)
    assert (t.turns, t.final_message, t.skills_offered, t.skills_loaded) == (2, "done", ("tidy",), {"tidy": 1})
    assert (t.input_tokens, t.output_tokens, t.cost_usd, t.error) == (7, 5, 0.5, None)
    assert (t.cache_write_tokens, t.cache_read_tokens) == (0, 4)
    result = t.tool_calls[0].result or ""
    assert result.startswith("x" * 2000) and "3000 more characters cut" in result


def test_claude_errors_turn_limit_and_api() -> None:
    s = setup("claude", limits=AgentLimits(max_turns=3))
    limit = driver("claude").parse(lines({"type": "result", "subtype": "error_max_turns", "num_turns": 4}), s)
    assert limit.error == "turn limit reached (maxTurns 3: the agent asked for model call 4)"
    api = lines({"type": "result", "subtype": "success", "is_error": True, "api_error_status": 500, "result": "boom"})
    assert driver("claude").parse(api, s).error == "API error 500: boom"
    # A failed Skill call is no load; a Read of an installed SKILL.md is one.
    failed = lines(
        {"type": "assistant", "message": {"id": "a", "content": [
            {"type": "tool_use", "id": "t1", "name": "Skill", "input": {"skill": "tidy"}},
            {"type": "tool_use", "id": "t2", "name": "Read", "input": {"file_path": "/h/.claude/skills/tidy/SKILL.md"}}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": True,
                                                  "content": "no"}]}, "tool_use_result": "Error: no"},
    )  # fmt: skip
    t = driver("claude").parse(failed, s)
    assert t.skills_loaded == {"tidy": 1} and t.tool_calls[0].is_error


def test_pi_stream_a_failed_read_of_skill_md_is_no_load_and_the_abort_at_the_limit_is_the_error() -> None:
    s = setup("pi", limits=AgentLimits(max_turns=1))
    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "/h/skills/tidy/SKILL.md"}}
    out = lines(
        {"type": "message_end", "message": {"role": "assistant", "content": [call], "stopReason": "toolUse",
                                            "usage": {"input": 2, "output": 1}}},
        {"type": "tool_execution_end", "toolCallId": "c1", "result": {"content": [{"type": "text", "text": "ENOENT"}]},
         "isError": True},
        {"type": "message_end", "message": {"role": "assistant", "content": [], "stopReason": "aborted"}},
    )  # fmt: skip
    t = driver("pi").parse(out, s)
    assert t.skills_loaded == {} and t.tool_calls[0].is_error and t.tool_calls[0].result == "ENOENT"
    assert (t.turns, t.error) == (1, "turn limit reached (maxTurns 1: the agent asked for model call 2)")
    err = lines({"type": "message_end", "message": {"role": "assistant", "content": [], "stopReason": "error",
                                                    "errorMessage": "429 slow down"}})  # fmt: skip
    assert driver("pi").parse(err, setup("pi")).error == "the model call failed: 429 slow down"


def test_opencode_stream_load_and_error_event() -> None:
    s = setup("opencode")
    done = {"status": "completed", "input": {"name": "other"}, "output": "<skill_content>"}
    out = lines(
        {"type": "step_start", "part": {}},
        {"type": "tool_use", "part": {"tool": "skill", "callID": "c1", "state": done}},
        {"type": "step_finish", "part": {"tokens": {"input": 5, "output": 2, "reasoning": 1, "cache": {"read": 1}}}},
        {"type": "error", "error": {"name": "SkillBeTurnLimit", "data": {"message": "turn limit reached (maxTurns 1: the agent asked for model call 2)"}}},
    )  # fmt: skip
    t = driver("opencode").parse(out, s)
    assert t.skills_loaded == {"other": 1}  # a neighbour's load is recorded by its name
    assert (t.input_tokens, t.output_tokens, t.error) == (
        6,
        3,
        "turn limit reached (maxTurns 1: the agent asked for model call 2)",
    )


def test_the_registry_imports_a_driver_only_when_it_is_named() -> None:
    code = (
        "import sys; from skill_be.agents.drivers import driver, DRIVERS;"
        "assert 'skill_be.agents.drivers.opencode' not in sys.modules;"
        "d = driver('opencode-cli'); assert d.name == 'opencode';"
        "assert 'skill_be.agents.drivers.claude' not in sys.modules"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    with pytest.raises(KeyError):
        driver("command")
