"""The python3 wrapper opencode runs under (skill_be/agents/turn_limit.py), against a fake CLI: it ends
a run that goes on at the turn limit, ends one at the first matching stderr line, passes a run that
finishes through untouched, and feeds stdin from a file."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from skill_be.agents.drivers.opencode import API_ERROR, TURN_MARKER
from skill_be.agents.drivers.turn_limit import WRAPPER

FAKE = r"""
import sys, time
mode = sys.argv[1]
if mode == "stdin":
    print('{"type":"text","text":' + __import__("json").dumps(sys.stdin.read()) + '}', flush=True)
elif mode == "forever":
    for i in range(100000):
        print('{"type":"step_start","n":%d}' % i, flush=True)
        time.sleep(0.01)
elif mode == "api-error":
    print('{"type":"step_start"}', flush=True)
    print('level=ERROR message="stream error" small=true error.error="title failed"', file=sys.stderr, flush=True)
    print('level=ERROR message="stream error" small=false agent=x error.error="AI_APICallError: boom \\"500\\""',
          file=sys.stderr, flush=True)
    time.sleep(60)
else:
    print('{"type":"step_start"}', flush=True)
    print('{"type":"text","text":"done"}', flush=True)
    sys.exit(3)
"""


def run(
    tmp_path: Path, mode: str, max_turns: int = 3, stdin_file: str = ""
) -> tuple[int, list[dict[str, object]], float]:
    (tmp_path / "wrapper.py").write_text(WRAPPER)
    (tmp_path / "fake.py").write_text(FAKE)
    argv = [sys.executable, str(tmp_path / "wrapper.py"), str(max_turns), TURN_MARKER, stdin_file, API_ERROR,
            sys.executable, str(tmp_path / "fake.py"), mode]  # fmt: skip
    start = time.monotonic()
    done = subprocess.run(argv, capture_output=True, timeout=30)
    events = [json.loads(line) for line in done.stdout.decode().splitlines()]
    return done.returncode, events, time.monotonic() - start


def test_a_run_that_goes_on_ends_when_turn_max_plus_one_starts(tmp_path: Path) -> None:
    code, events, _ = run(tmp_path, "forever", max_turns=3)
    assert code == 1
    assert [e["type"] for e in events] == ["step_start"] * 3 + ["error"]
    assert events[-1]["error"] == {
        "name": "SkillBeTurnLimit",
        "data": {"message": "turn limit reached (maxTurns 3: the agent asked for model call 4)"},
    }


def test_the_first_api_error_of_the_agents_model_ends_the_run_and_the_title_calls_does_not(tmp_path: Path) -> None:
    code, events, seconds = run(tmp_path, "api-error")
    assert code == 1 and seconds < 20  # the fake would sleep a minute
    assert events[-1]["error"] == {"name": "SkillBeApiError", "data": {"message": 'AI_APICallError: boom "500"'}}


def test_a_run_that_finishes_passes_through_with_its_exit_code(tmp_path: Path) -> None:
    code, events, _ = run(tmp_path, "done")
    assert code == 3 and [e["type"] for e in events] == ["step_start", "text"]


def test_stdin_comes_from_the_file_as_it_is(tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text('  two  spaces, "quotes"\nand a line\n')
    _, events, _ = run(tmp_path, "stdin", stdin_file=str(prompt))
    assert events == [{"type": "text", "text": '  two  spaces, "quotes"\nand a line\n'}]
