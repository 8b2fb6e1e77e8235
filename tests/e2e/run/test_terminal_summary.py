"""`run` on a terminal says the verdict first (reports/terminal.py), in colour unless NO_COLOR or
--color never; through a pipe it prints the reference's output (each report, then the closing lines)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from tests.e2e.run.helpers import run, write

from skill_be.reports.terminal import Style, colour_on, effect_text, plural, skill_lines

RED, GREEN = "\x1b[31m", "\x1b[32m"
SKILL = "---\nname: greet\ndescription: Greets people politely.\n---\n# Greet\n\nSay Bonjour first.\n"


def project(root: Path) -> Path:
    write(root / "skills" / "greet" / "SKILL.md", SKILL)
    assert run(root, "init").code == 0
    return root


def in_a_terminal(root: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """The command with stdout on a pseudo-terminal; what it printed there."""
    leader, follower = pty.openpty()
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "CI")}
    child = subprocess.Popen(
        [sys.executable, "-m", "skill_be", *args],
        cwd=root,
        stdout=follower,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        env={**full_env, "TERM": "xterm", **(env or {})},
    )
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    return child.wait(timeout=120), out.decode().replace("\r\n", "\n")


def test_a_terminal_gets_the_verdict_first_in_colour(tmp_path: Path) -> None:
    root = project(tmp_path)
    code, out = in_a_terminal(root, "run", "--fake")
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0].startswith("\x1b[1mgreet\x1b[0m: ") and f"{RED}\x1b[1mNOT READY" in lines[0]
    assert "overall effect +0pp (95% interval" in lines[0]
    assert lines[1].startswith("  blocks: fake run:")
    assert any(line.startswith("Report: .skill-be/results/") for line in lines)
    assert len(lines) < 15 and "## Release Gate" not in out and "|---" not in out  # not the whole report


def test_no_color_and_color_never_turn_colour_off(tmp_path: Path) -> None:
    root = project(tmp_path)
    for env, args in (({"NO_COLOR": "1"}, ()), ({}, ("--color", "never"))):
        code, out = in_a_terminal(root, "run", "--fake", *args, env=env)
        assert code == 0 and "\x1b[" not in out, (env, args)
        assert out.startswith("greet: NOT READY (fake run)  overall effect")
    code, out = in_a_terminal(root, "run", "--fake", "--color", "always", env={"NO_COLOR": "1"})
    assert RED in out  # the control: colour when asked for


def test_a_pipe_gets_the_reference_output_without_colour(tmp_path: Path) -> None:
    root = project(tmp_path)
    done = run(root, "run", "--fake", env={"NO_COLOR": ""})
    assert done.code == 0
    assert done.stdout.startswith("> **FAKE RUN.**") and "## Release Gate" in done.stdout  # the report on stdout
    assert "Skills:\n  greet: NOT READY (fake run)\n" in done.stdout and "Written:\n" in done.stdout
    assert "\x1b[" not in done.stdout + done.stderr
    assert "1 scenarios × 1 model(s) × 3 reps" in done.stderr  # the reference's progress line, in logs


def test_the_words() -> None:
    assert [plural(1, "scenario"), plural(2, "scenario"), plural(1, "skill")] == [
        "1 scenario",
        "2 scenarios",
        "1 skill",
    ]
    effect = {"estimate": 12.4, "low": -3.2, "high": 25.0, "label": "no clear difference"}
    assert effect_text(effect) == "overall effect +12pp (95% interval -3 to +25pp, no clear difference)"
    ready = skill_lines("a", {"ready": True, "reasons": [], "effect": effect}, Style(True))
    assert ready == [f"\x1b[1ma\x1b[0m: {GREEN}\x1b[1mREADY\x1b[0m\x1b[0m  {effect_text(effect)}"]
    error = skill_lines("a", {"ready": False, "verdict": "ERROR", "cause": "the grader failed"}, Style())
    assert error == ["a: ERROR  no overall effect (nothing graded)", "  could not measure it: the grader failed"]
    many = skill_lines("a", {"ready": False, "reasons": ["r1", "r2", "r3", "r4", "r5"]}, Style())
    assert many[-1] == "  and 2 more reasons: see the report" and len(many) == 5
    assert (
        colour_on("auto", True, {})
        and not colour_on("auto", False, {})
        and not colour_on("auto", True, {"NO_COLOR": "1"})
    )
    assert colour_on("always", False, {"NO_COLOR": "1"}) and not colour_on("never", True, {})
