"""The fake agent (the `fake` adapter as an agent, `skill-be run --fake`): a canned agent that does
nothing, so an agent scenario's whole path (the box, the workspace, the checks, the transcript, the
diff, the reports) runs before any key. The launch is one shell line that prints one event; the
workspace is left as it was, no skill is loaded, and the final message says it is fake."""

from __future__ import annotations

import json
from pathlib import PurePosixPath

from skill_be.adapters.fake import MARK, NAME
from skill_be.agents.drivers.base import AgentSetup, Launch, Transcript
from skill_be.agents.drivers.events import DEFAULT_PATH, events

FINAL = f"{MARK} A canned agent: no model was called and nothing in the workspace was changed."


class FakeDriver:
    name = NAME
    providers: tuple[str, ...] = ("anthropic", "openai")
    trigger_tools: tuple[str, ...] = ()
    needs_key = False  # it calls no model: the container needs no key for it

    def __init__(self, bin: str = "sh", path: str = DEFAULT_PATH) -> None:
        self.bin = bin
        self.path = path

    def prepare(self, setup: AgentSetup, workspace: PurePosixPath, home: PurePosixPath) -> Launch:
        event = json.dumps({"type": NAME, "final": FINAL, "skills": [s.name for s in setup.skills]})
        quoted = "'" + event.replace("'", "'\\''") + "'"
        return Launch(
            argv=[self.bin, "-c", f"printf '%s\\n' {quoted}"],
            env={"PATH": self.path, "HOME": str(home), "LANG": "C.UTF-8"},
            files={},
            cwd=workspace,
        )

    def parse(self, stdout: str, setup: AgentSetup) -> Transcript:
        for event in events(stdout):
            if event.get("type") == NAME:
                return Transcript(
                    final_message=FINAL,
                    turns=1,
                    skills_offered=[s.name for s in setup.skills],
                    input_tokens=0,
                    output_tokens=0,
                    cost_usd=0.0,
                )
        return Transcript(final_message="", turns=0, error="the fake agent printed no event")


def create(**options: str) -> FakeDriver:
    return FakeDriver(**options)
