"""Trigger evals on an agent CLI, through a driver and the process box: a FAKE driver and a fake CLI (a
Python script that prints JSON events). The chooser installs the offered skills, runs the launch in
an empty workspace that is a git repository, and counts a load only within `turns`; a final message
that names the skill without loading it is not a trigger."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath

import pytest

from skill_be.adapters.base import CallContext
from skill_be.adapters.choice import Offered
from skill_be.agents.boxes.process import ProcessBox
from skill_be.agents.drivers.base import AgentSetup, Launch, ModelEndpoint, Transcript
from skill_be.agents.triggers import AgentChooser

FAKE_CLI = textwrap.dedent(
    """
    import json, os, sys
    prompt, home = sys.argv[1], sys.argv[2]
    seen = sorted(os.listdir(os.path.join(home, "skills")))
    cwd = sorted(x for x in os.listdir(".") if x != ".git")
    events = [{"turn": 1, "tool": "ls", "skills": seen, "cwd": cwd, "git": os.path.isdir(".git")}]
    if "soon" in prompt:
        events.append({"turn": 2, "load": "duration"})  # after looking around on turn 1
    if "late" in prompt:
        events.append({"turn": 5, "load": "duration"})
    if "money" in prompt:
        events.append({"turn": 1, "load": "money"})
    events.append({"final": "I would use the duration skill for this."})
    print("\\n".join(json.dumps(e) for e in events))
    """
)


class FakeDriver:
    name = "fake"

    def __init__(self, script: Path) -> None:
        self.script = script
        self.seen: list[dict[str, object]] = []

    def prepare(self, setup: AgentSetup, workspace: PurePosixPath, home: PurePosixPath) -> Launch:
        files = {home / "skills" / s.name / path: data for s in setup.skills for path, data in s.files.items()}
        argv = [sys.executable, str(self.script), setup.prompt, str(home)]
        return Launch(argv=argv, env={"PATH": os.environ["PATH"]}, files=files, cwd=workspace)

    def parse(self, stdout: str, setup: AgentSetup) -> Transcript:
        events = [json.loads(line) for line in stdout.splitlines() if line.strip()]
        self.seen.append(events[0])
        loaded: dict[str, int] = {}
        for e in events:
            if "load" in e:
                loaded.setdefault(e["load"], e["turn"])
        final = next(e["final"] for e in events if "final" in e)
        turns = max(e.get("turn", 0) for e in events)
        return Transcript(final_message=final, turns=turns, skills_loaded=loaded)


@pytest.fixture
def chooser(tmp_path: Path) -> tuple[AgentChooser, FakeDriver]:
    script = tmp_path / "fake_cli.py"
    script.write_text(FAKE_CLI)
    driver = FakeDriver(script)
    files: Mapping[str, Mapping[str, bytes]] = {
        "duration": {"SKILL.md": b"---\nname: duration\n---\n"},
        "money": {"SKILL.md": b"---\nname: money\n---\n"},
    }
    return AgentChooser(driver, ModelEndpoint("m", "anthropic"), 3, files, ProcessBox()), driver


OFFERED = [Offered("duration", "time"), Offered("money", "cash")]
CTX = CallContext(timeout_seconds=30, cwd=Path("."))


@pytest.mark.parametrize(
    ("query", "chosen"),
    [("load it soon", "duration"), ("load it late", None), ("say it only", None), ("money please", "money")],
)
def test_a_load_counts_within_the_turn_limit_and_a_mention_does_not(
    chooser: tuple[AgentChooser, FakeDriver], query: str, chosen: str | None
) -> None:
    c, driver = chooser
    choice = asyncio.run(c.choose(query, OFFERED, CTX))
    assert choice.name == chosen
    first = driver.seen[-1]
    assert first["skills"] == ["duration", "money"]  # both offered skills installed where the CLI looks
    assert first["cwd"] == [] and first["git"]  # an empty workspace, a git repository (no parent's skills)


def test_turn_limit_is_the_setting(chooser: tuple[AgentChooser, FakeDriver]) -> None:
    c, _ = chooser
    c.turns = 5
    assert asyncio.run(c.choose("load it late", OFFERED, CTX)).name == "duration"


class Writer:
    """A driver whose launch writes one file where it is told, then prints ok."""

    name = "writer"

    def __init__(self, target: Callable[[PurePosixPath], PurePosixPath]) -> None:
        self.target = target

    def prepare(self, setup: AgentSetup, workspace: PurePosixPath, home: PurePosixPath) -> Launch:
        argv = [sys.executable, "-c", "print('ok')"]
        return Launch(argv, {"PATH": os.environ["PATH"]}, {self.target(home): b"x"}, workspace)

    def parse(self, stdout: str, setup: AgentSetup) -> Transcript:
        return Transcript(final_message=stdout.strip(), turns=1)


def test_a_launch_may_write_only_inside_its_own_folder(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    setup = AgentSetup("p", ModelEndpoint("m", "anthropic"))
    attack = Writer(lambda home: home / os.path.relpath(outside, home))  # home/../../<to outside.txt>
    run = ProcessBox().run_agent(attack, setup, {})
    assert run.error is not None and "outside the run's folder" in run.error
    assert not outside.exists()
    # the control: the same write inside the folder is made, and the launch runs
    inside = ProcessBox().run_agent(Writer(lambda home: home / "x.txt"), setup, {})
    assert inside.error is None and inside.stdout.strip() == "ok"
    # and the attack's own write lands when the boundary is not kept: the check is what stopped it
    from skill_be.agents.boxes.process import write_launch

    launch = attack.prepare(setup, PurePosixPath(str(tmp_path / "a" / "ws")), PurePosixPath(str(tmp_path / "a" / "h")))
    write_launch(launch, Path("/"), tmp_path / "a" / "ws")
    assert outside.read_bytes() == b"x"
