"""The codex driver's pure halves (its launch, its event stream), and skill-be's turn-limit relay
(drivers/limit.py) run as a program against a scripted upstream on loopback, with its controls."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path, PurePosixPath
from typing import Any, ClassVar

import pytest

from skill_be.agents.drivers import driver
from skill_be.agents.drivers.base import (
    AgentLimits,
    AgentSetup,
    McpServerSpec,
    ModelEndpoint,
    SkillToInstall,
    shared_tool,
)
from skill_be.agents.drivers.limit import LIMIT_ERROR, RELAY, TOKEN, RelayLimited

WS, HOME = PurePosixPath("/work/ws"), PurePosixPath("/work/home")
SKILL_MD = b"---\nname: tidy\ndescription: Tidy logs.\n---\nTIDY-BODY line\n"


def setup(**kw: Any) -> AgentSetup:
    skill = SkillToInstall("tidy", "Tidy logs.", {"SKILL.md": SKILL_MD})
    ep = ModelEndpoint("m", "openai", "http://127.0.0.1:9/v1", "sk-codex-unit")
    return AgentSetup(**{"prompt": "-do it", "endpoint": ep, "skills": (skill,), **kw})


def test_the_launch_hides_the_users_setup_and_runs_under_the_relay() -> None:
    d = driver("codex")
    assert isinstance(d, RelayLimited)  # Codex has no turn limit of its own
    launch = d.prepare(setup(limits=AgentLimits(max_turns=4)), WS, HOME)
    argv = launch.argv
    assert argv[:3] == ["python3", str(HOME / ".skill-be/relay.py"), str(HOME / ".skill-be/relay.json")]
    assert argv[3:9] == ["codex", "exec", "--json", "--ephemeral", "--skip-git-repo-check", "-s"]
    assert argv[argv.index("-s") + 1] == "danger-full-access" and argv[-2:] == ["--", "-do it"]
    config = " ".join(argv)
    for c in ("skills.bundled.enabled=false", "project_doc_max_bytes=0", "analytics.enabled=false",
              "check_for_update_on_startup=false", 'wire_api="responses"', "request_max_retries=0"):  # fmt: skip
        assert c in config
    assert f'base_url="http://{TOKEN}/v1"' in config  # the relay's address, filled in when it listens
    assert json.loads(launch.files[HOME / ".skill-be/relay.json"])["upstream"] == "http://127.0.0.1:9"
    assert launch.files[HOME / ".agents/skills/tidy/SKILL.md"] == SKILL_MD  # the user-level folder Codex reads
    assert launch.env["CODEX_HOME"] == str(HOME / ".codex") and launch.env["TMPDIR"] == str(HOME / "tmp")
    assert "sk-codex-unit" not in config and launch.env["SKILL_BE_AGENT_API_KEY"] == "sk-codex-unit"
    base = driver("codex").prepare(setup(skills=()), WS, HOME)
    assert not any(".agents" in str(p) for p in base.files)  # the baseline installs no skill


def test_tools_it_cannot_choose_and_a_wire_it_cannot_speak_are_refused() -> None:
    with pytest.raises(ValueError, match="cannot choose its tools"):
        driver("codex").prepare(setup(tools=["Read"]), WS, HOME)
    driver("codex").prepare(setup(tools=["exec_command"]), WS, HOME)  # a trigger call's tools: accepted
    with pytest.raises(ValueError, match="Responses API"):
        driver("codex").prepare(setup(endpoint=ModelEndpoint("m", "anthropic", None, None)), WS, HOME)


def command(n: int, cmd: str, output: str, code: int = 0) -> list[dict[str, Any]]:
    item = {"id": f"item_{n}", "type": "command_execution", "command": f"/bin/bash -c '{cmd}'"}
    return [{"type": "item.started", "item": {**item, "aggregated_output": "", "exit_code": None}},
            {"type": "item.completed", "item": {**item, "aggregated_output": output, "exit_code": code}}]  # fmt: skip


def stream(*events: Any) -> str:
    return "\n".join(json.dumps(e) for e in events) + "\n"


def test_a_cat_of_skill_md_is_a_load_and_the_tokens_count_the_cached_input() -> None:
    path = "/work/home/.agents/skills/tidy/SKILL.md"
    out = stream(
        {"type": "thread.started"},
        {"type": "item.completed", "item": {"type": "error", "message": "Model metadata for `m` not found."}},
        *command(1, "cat notes.txt", "step1\n"),
        *command(2, f"cat {path}", SKILL_MD.decode()),
        {"type": "item.completed", "item": {"id": "item_3", "type": "agent_message", "text": "DONE"}},
        {"type": "turn.completed", "usage": {"input_tokens": 50, "cached_input_tokens": 20, "output_tokens": 9}},
    )
    t = driver("codex").parse(out, setup())
    assert (t.final_message, t.turns, t.skills_offered, t.skills_loaded) == ("DONE", 3, ("tidy",), {"tidy": 2})
    assert (t.input_tokens, t.output_tokens, t.error) == (50, 9, None)
    assert (t.cache_write_tokens, t.cache_read_tokens) == (0, 20)  # the cached input, priced apart
    first = t.tool_calls[0]
    assert (first.name, first.turn, first.result) == ("exec_command", 1, "step1\n")


@pytest.mark.parametrize(
    ("cmd", "output", "code"),
    [
        ("cat /work/home/.agents/skills/tidy/README.md", "TIDY-BODY line\n", 0),  # another file of the skill
        ("ls /work/home/.agents/skills/tidy/SKILL.md", "/work/home/.agents/skills/tidy/SKILL.md\n", 0),  # no read
        ("cat /work/home/.agents/skills/tidy/SKILL.md", "cat: No such file\n", 1),  # a failed read
        ("echo TIDY-BODY line", "TIDY-BODY line\n", 0),  # the content without the file
    ],
)
def test_what_is_not_a_load(cmd: str, output: str, code: int) -> None:
    t = driver("codex").parse(stream(*command(1, cmd, output, code)), setup())
    assert t.skills_loaded == {} and len(t.tool_calls) == 1


def test_a_failed_turn_is_the_error() -> None:
    out = stream(
        {"type": "error", "message": "stream disconnected"}, {"type": "turn.failed", "error": {"message": "x"}}
    )
    assert driver("codex").parse(out, setup()).error == "stream disconnected"


# -- the relay ------------------------------------------------------------------------------------
class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: ClassVar[list[str]] = []

    def log_message(self, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        Upstream.seen.append(self.path + " " + body.decode())
        reply = b'data: {"ok": true}\n\n'
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


@pytest.fixture
def upstream() -> Iterator[str]:
    Upstream.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


# A stand-in CLI: posts to the base URL in its environment until an answer is refused, then waits.
CLIENT = """
import json, os, sys, time, urllib.request, urllib.error
url = os.environ["BASE"] + "/responses"
for i in range(int(sys.argv[1])):
    body = json.dumps({"tools": [{"name": "x"}]} if sys.argv[2] == "tools" else {"input": "title"}).encode()
    try:
        print(urllib.request.urlopen(urllib.request.Request(url, data=body)).read().decode().strip(), flush=True)
    except urllib.error.HTTPError as e:
        print("refused", e.code, e.read().decode(), flush=True)
        time.sleep(60)  # the relay must stop it
print("finished", flush=True)
"""


def run_relay(tmp_path: Path, upstream: str, max_turns: int, calls: int, kind: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "relay.py").write_text(RELAY)
    (tmp_path / "client.py").write_text(CLIENT)
    spec = {"max": max_turns, "upstream": upstream, "token": TOKEN, "files": {}, "count": str(tmp_path / "count")}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    argv = [sys.executable, str(tmp_path / "relay.py"), str(tmp_path / "spec.json"),
            sys.executable, str(tmp_path / "client.py"), str(calls), kind]  # fmt: skip
    env = {"BASE": f"http://{TOKEN}/v1", "PATH": "/usr/bin:/bin"}
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30)


def test_the_relay_answers_max_turns_calls_and_stops_the_next(tmp_path: Path, upstream: str) -> None:
    done = run_relay(tmp_path, upstream, max_turns=2, calls=5, kind="tools")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    # The third call is refused and the client killed at once (it may not live to print the refusal).
    assert lines[:2] == ['data: {"ok": true}'] * 2 and "finished" not in done.stdout
    assert json.loads(lines[-1]) == {"type": "skill-be.turn-limit", "maxTurns": 2}
    assert len(Upstream.seen) == 2 and all(s.startswith("/v1/responses ") for s in Upstream.seen)
    s = setup(limits=AgentLimits(max_turns=2))
    assert driver("codex").parse(done.stdout, s).error == LIMIT_ERROR.format(max=2, next=3)


def test_the_control_calls_under_the_limit_and_side_calls_pass(tmp_path: Path, upstream: str) -> None:
    under = run_relay(tmp_path, upstream, max_turns=3, calls=3, kind="tools")
    assert (under.returncode, under.stdout.splitlines()[-1]) == (0, "finished")
    side = run_relay(tmp_path, upstream, max_turns=1, calls=4, kind="side")  # no tools: not a turn
    assert (side.returncode, side.stdout.splitlines()[-1]) == (0, "finished")
    assert len(Upstream.seen) == 7


def test_expect_tools_names_codex_s_shell_shell() -> None:
    from skill_be.agents.drivers.base import shared_tool

    assert shared_tool(driver("codex"), "exec_command") == "shell"
    assert shared_tool(driver("copilot"), "view") == "read" and shared_tool(driver("copilot"), "create") == "write"


def test_mcp_servers_go_on_the_command_line_and_an_mcp_call_is_read_with_its_server() -> None:
    facts = McpServerSpec("facts-db", "python3", ("/opt/m.py", 'a "q"'), {"FACT": "x y"})
    argv = driver("codex").prepare(setup(mcp=(facts,)), WS, HOME).argv
    assert 'mcp_servers.facts-db={command="python3",args=["/opt/m.py","a \\"q\\""],env={"FACT"="x y"}}' in argv
    assert not any(a.startswith("mcp_servers.") for a in driver("codex").prepare(setup(), WS, HOME).argv)
    item = {"id": "i1", "type": "mcp_tool_call", "server": "facts-db", "tool": "lookup", "arguments": {"key": "k"}}
    done = {**item, "result": {"content": [{"type": "text", "text": "ANSWER"}]}, "error": None, "status": "completed"}
    failed = {**item, "id": "i2", "error": {"message": "no such key"}, "status": "failed"}
    stream = [{"type": "turn.started"}, {"type": "item.started", "item": item},
              {"type": "item.completed", "item": done}, {"type": "item.completed", "item": failed},
              {"type": "item.completed", "item": {"id": "m", "type": "agent_message", "text": "ok"}}]  # fmt: skip
    t = driver("codex").parse("\n".join(json.dumps(e) for e in stream), setup())
    assert [(c.name, c.arguments, c.result, c.is_error) for c in t.tool_calls] == [
        ("mcp__facts-db__lookup", {"key": "k"}, "ANSWER", False), ("mcp__facts-db__lookup", {"key": "k"}, "no such key", True)
    ]  # fmt: skip
    d = driver("codex")
    assert {shared_tool(d, c.name, ["facts-db", "facts"]) for c in t.tool_calls} == {"mcp:facts-db/lookup"}
    assert shared_tool(d, "mcp__facts-db__lookup", []) == "mcp__facts-db__lookup"  # an undeclared server: its own name


def test_follow_ups_keep_the_session_and_resume_it_and_the_turns_add_up() -> None:
    launch = driver("codex").prepare(setup(follow_ups=("-again", "more")), WS, HOME)
    assert "--ephemeral" not in launch.argv and launch.argv[-2:] == ["--", "-do it"]
    first = list(launch.argv[:-2])
    assert [list(t) for t in launch.then] == [[*first, "resume", "--last", "--", m] for m in ("-again", "more")]
    assert (
        "--ephemeral" in driver("codex").prepare(setup(), WS, HOME).argv
        and not driver("codex").prepare(setup(), WS, HOME).then
    )

    def run(n: int, text: str) -> list[dict[str, object]]:
        cmd = {"id": f"c{n}", "type": "command_execution", "command": "ls", "aggregated_output": "", "exit_code": 0}
        return [{"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
                {"type": "item.started", "item": cmd}, {"type": "item.completed", "item": cmd},
                {"type": "item.completed", "item": {"id": f"m{n}", "type": "agent_message", "text": text}},
                {"type": "turn.completed", "usage": {"input_tokens": 10, "output_tokens": 2}}]  # fmt: skip

    stream = [*run(1, "ONE"), *run(2, "TWO")]
    t = driver("codex").parse("\n".join(json.dumps(e) for e in stream), setup())
    assert [c.turn for c in t.tool_calls] == [1, 3] and t.turns == 4 and t.final_message == "TWO"
    assert (t.input_tokens, t.output_tokens) == (20, 4)
