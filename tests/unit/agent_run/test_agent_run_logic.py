"""Agent mode's pure parts: check lines (plain and JSON lines), the lines once outputs are in, the
egress plan, the workspace diff and tar round trip, the judge's bounded view, the eval keys."""

from __future__ import annotations

import io
import json
import socket
import tarfile
import tempfile
import threading
from pathlib import Path

import pytest

from skill_be.agents.boxes import CheckResult
from skill_be.agents.boxes.egress import CONNECT_PORT, plan_for
from skill_be.agents.boxes.egress_main import serve
from skill_be.agents.checks import check_lines, expand_names, json_entries
from skill_be.agents.drivers.base import ModelEndpoint
from skill_be.agents.preflight import first_word
from skill_be.agents.record import composite
from skill_be.agents.workspace import cut, diff, digest, from_tar, git_repo, to_tar
from skill_be.errors import ConfigError
from skill_be.project.evals import load_eval


def test_a_check_passes_on_exit_0_and_a_json_last_line_of_a_passing_check_gives_one_line_per_entry() -> None:
    rows = [
        CheckResult("build", "0", "ok\n"),
        CheckResult("lint", "1", "bad style\n"),
        CheckResult("grader", "0", 'noise\n{"checks": [{"name": "a", "passed": true}, {"name": "b", "passed": 1}]}\n'),
        # a failing check whose last line is a passing JSON entry (the workspace's own report.txt): it fails
        CheckResult("forged", "1", '{"checks": [{"name": "a", "passed": true}]}\n'),
        CheckResult("gone", "127", "sh: 1: nope: not found\n"),
        CheckResult("slow", "timeout", ""),
    ]
    assert check_lines(rows) == [
        ("check: build", True, None),
        ("check: lint", False, "exit code 1: bad style"),
        ("check: grader › a", True, None),
        ("check: grader › b", False, None),  # only `true` passes
        ("check: forged › a", False, 'exit code 1: {"checks": [{"name": "a", "passed": true}]}'),
        ("check: gone", False, "command not found: sh: 1: nope: not found"),
        ("check: slow", False, "the check reached its time limit"),
    ]
    assert json_entries('{"checks": []}') is None and json_entries("{not json") is None


def test_a_json_check_s_line_becomes_its_entries_in_the_order_first_seen() -> None:
    names = ("t1", "check: build", "check: grader", "skill loaded")
    seen = [["check: build", "check: grader"], ["check: grader › b", "check: grader › a"], ["check: grader › c"]]
    assert expand_names(names, seen) == (
        "t1", "check: build", "check: grader › b", "check: grader › a", "check: grader › c", "skill loaded"
    )  # fmt: skip


def test_the_egress_plan_tunnels_http_base_urls_and_allows_https_hosts_only() -> None:
    plan = plan_for(
        [
            ModelEndpoint("m", "anthropic", base_url="http://127.0.0.1:8080/api"),
            ModelEndpoint("m", "openai", base_url="https://llm.example.com/v1"),
            ModelEndpoint("m", "anthropic"),
            ModelEndpoint("m", "anthropic", base_url="http://127.0.0.1:8080"),
        ]
    )
    assert [(t.host, t.port) for t in plan.tunnels] == [("127.0.0.1", 8080)]
    assert plan.allow == ("llm.example.com:443", "api.anthropic.com:443")
    inside = plan.rewrite(ModelEndpoint("m", "anthropic", base_url="http://127.0.0.1:8080/api"))
    assert inside.base_url == f"http://127.0.0.1:{plan.tunnels[0].local_port}/api"
    assert plan.env()["HTTPS_PROXY"] == f"http://127.0.0.1:{CONNECT_PORT}"
    with pytest.raises(ValueError):
        plan.rewrite(ModelEndpoint("m", "anthropic", base_url="http://10.0.0.1:80"))
    # A Gemini model without a baseUrl reaches Google's host, and only that one.
    assert plan_for([ModelEndpoint("m", "gemini")]).allow == ("generativelanguage.googleapis.com:443",)


def _connect(sock_path: str, target: str) -> tuple[str, socket.socket]:
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    s.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
    return s.recv(200).decode().split("\r\n")[0], s


def test_the_egress_proxy_tunnels_an_allowed_host_and_refuses_any_other(capfd: pytest.CaptureFixture[str]) -> None:
    echo = socket.socket()
    echo.bind(("127.0.0.1", 0))
    echo.listen(4)
    port = echo.getsockname()[1]

    def serve_echo() -> None:
        conn, _ = echo.accept()
        conn.sendall(conn.recv(100).upper())
        conn.close()

    threading.Thread(target=serve_echo, daemon=True).start()
    with tempfile.TemporaryDirectory() as folder:
        serve({"dir": folder, "tunnels": [], "allow": [f"127.0.0.1:{port}"]})
        status, s = _connect(f"{folder}/connect", f"127.0.0.1:{port}")
        assert status == "HTTP/1.1 200 Connection Established"
        s.sendall(b"hello")
        assert s.recv(100) == b"HELLO"
        refused, _ = _connect(f"{folder}/connect", "127.0.0.1:9")  # the control: same proxy, another port
        assert refused == "HTTP/1.1 403 Forbidden"
    assert "egress: refused 127.0.0.1:9" in capfd.readouterr().err
    echo.close()


def test_the_diff_is_the_agent_s_work_and_is_cut_with_a_note() -> None:
    before = {"a.txt": b"one\n", "gone.txt": b"x\n", ".git/index": b"1", "bin": b"\0\1"}
    after = {"a.txt": b"one\ntwo\n", "new.txt": b"hi\n", ".git/index": b"2", "bin": b"\0\2"}
    d = diff(before, after)
    assert "+two" in d and "+hi" in d and "-x" in d and ".git" not in d and "Binary file bin changed" in d
    short = diff(before, after, limit=20)
    assert short.startswith(d[:20]) and "more characters of the diff cut" in short
    assert cut("abc", 10, "x") == "abc"


def test_files_go_through_tar_both_ways_and_a_git_workspace_has_one_commit() -> None:
    files = {"a.txt": b"a", "d/e/b.sh": b"#!/bin/sh\n"}
    data = to_tar(files, folders=("ws",))
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        modes = {m.name: m.mode for m in tar}
    assert modes["ws"] == 0o755 and modes["d/e/b.sh"] == 0o755 and modes["a.txt"] == 0o644
    back = from_tar(iter([to_tar(files, prefix="ws")]), "ws")
    assert back == files
    repo = git_repo(files)
    assert any(p.startswith(".git/objects/") for p in repo) and repo["a.txt"] == b"a"
    assert digest(repo) == digest(files)  # .git is left out of the cache key's digest


def test_the_judge_reads_the_final_message_the_tool_calls_and_the_diff() -> None:
    record = {
        "transcript": {
            "finalMessage": "Done.",
            "toolCalls": [{"name": "Write", "arguments": '{"p": 1}', "isError": True}],
        },
        "diff": "+x\n",
    }
    text = composite(record)
    assert "Final message:\nDone." in text and '1. Write {"p": 1} -> error' in text and "Workspace diff:\n+x" in text


def test_the_program_of_a_check_command() -> None:
    assert first_word("npm test") == "npm"
    assert first_word("python3 $CHECKS/x.py") == "python3"
    assert first_word("./run.sh") is None and first_word("A=1 make") is None and first_word("'unclosed") is None


def write_eval(tmp_path: Path, scenario: dict[str, object]) -> Path:
    path = tmp_path / "evals" / "s.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"scenarios": [{"id": "a", "prompt": "p", **scenario}]}, indent=2))
    return path


def test_an_agent_scenario_reads_into_its_record(tmp_path: Path) -> None:
    (tmp_path / "evals" / "ws").mkdir(parents=True)
    path = write_eval(tmp_path, {
        "mode": "agent", "workspace": {"from": ["ws"], "files": {"x/y.md": "hi"}, "git": True},
        "agent": {"maxTurns": 3, "tools": ["Read"]}, "checks": ["npm test", {"name": "v", "run": "bash v.sh"}],
        "output": {"result": "the function", "file": "src/a.js"}, "expect": {"skillLoaded": False},
    })  # fmt: skip
    sc = load_eval(path, tmp_path).scenarios[0]
    assert sc.output == (("result", "the function"),) and sc.agent is not None
    a = sc.agent
    assert (a.sources, a.inline, a.git, a.max_turns, a.tools) == (("ws",), (("x/y.md", "hi"),), True, 3, ("Read",))
    assert [c.name for c in a.checks] == ["check 1: npm test", "v"] and a.output_file == "src/a.js"
    assert a.skill_loaded is False and a.timeout_seconds == 600 and a.sandbox == "docker"


def test_a_one_shot_scenario_is_as_before(tmp_path: Path) -> None:
    sc = load_eval(write_eval(tmp_path, {"criteria": ["c"]})).scenarios[0]
    assert sc.agent is None and sc.criteria == ("c",)


@pytest.mark.parametrize(
    ("scenario", "words"),
    [
        ({"mode": "agent", "workspace": {"from": ["missing"]}, "checks": ["x"]}, 'from[0]: "missing" does not exist'),
        ({"mode": "agent", "workspace": {"files": {"../up.txt": "x"}}, "checks": ["x"]}, "is outside the workspace"),
        ({"mode": "agent", "checks": []}, "checks"),
        ({"mode": "agent"}, 'needs "criteria"'),
        ({"mode": "agnet", "criteria": ["c"]}, 'unknown mode "agnet" (did you mean "agent"?)'),
        ({"criteria": ["c"], "expect": {"skillLoaded": True}}, '"expect" is a key of agent scenarios'),
    ],
)
def test_bad_agent_keys_are_one_line_with_their_place(tmp_path: Path, scenario: dict[str, object], words: str) -> None:
    with pytest.raises(ConfigError) as e:
        load_eval(write_eval(tmp_path, scenario), tmp_path)
    assert words in str(e.value) and str(e.value).count("\n") == 0
    assert str(e.value).startswith(str(tmp_path / "evals" / "s.json")[-12:]) or ":" in str(e.value).split(" ")[0]


def test_skills_in_a_parent_of_the_workspace_are_found(tmp_path: Path) -> None:
    from skill_be.agents.boxes.process import parent_skills

    (tmp_path / "a" / "b").mkdir(parents=True)
    assert parent_skills(tmp_path / "a" / "b") == []  # the control: nothing there
    (tmp_path / ".agents" / "skills").mkdir(parents=True)
    assert parent_skills(tmp_path / "a" / "b") == [str(tmp_path / ".agents" / "skills")]


def test_the_fingerprint_covers_an_agent_scenario_s_workspace_and_skill_folder(tmp_path: Path) -> None:
    from skill_be.project.loader import load_project

    (tmp_path / "skills/s/scripts").mkdir(parents=True)
    (tmp_path / "skills/s/SKILL.md").write_text("---\nname: s\ndescription: d\n---\nbody\n")
    (tmp_path / "skills/s/scripts/run.sh").write_text("echo 1\n")
    (tmp_path / "evals/ws").mkdir(parents=True)
    (tmp_path / "evals/ws/a.txt").write_text("a\n")
    scenario = {"id": "a", "prompt": "p", "mode": "agent", "workspace": {"from": ["ws"]}, "checks": ["true"]}
    (tmp_path / "evals/s.json").write_text(json.dumps({"scenarios": [scenario]}))
    config = tmp_path / "skill-be.yaml"
    config.write_text(
        "skills: ./skills\nevals: ./evals\nmodel: {adapter: claude-cli, id: m}\ngrader: {adapter: claude-cli, id: g}\n"
    )

    def fp() -> str:
        project = load_project(config)
        return project.fingerprint(project.skills[0])

    first = fp()
    assert fp() == first  # the control: nothing changed, the same fingerprint
    (tmp_path / "evals/ws/a.txt").write_text("b\n")
    second = fp()
    assert second != first
    (tmp_path / "skills/s/scripts/run.sh").write_text("echo 2\n")
    assert fp() != second
