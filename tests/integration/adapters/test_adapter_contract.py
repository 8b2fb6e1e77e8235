"""The contract every adapter keeps, checked the same way for each: the HTTP adapters and the agent
CLIs against the mock model server, the command adapter and the Python and JavaScript modules against
scripts in the project. An adapter answers with the model's text; a failed call raises (the engine
turns it into data) with one line that names no key; it stops when the engine's time limit cancels
it. A new adapter gets a row in `BACKENDS`."""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest
from adapter_harness import IN_NETNS, KEY_VAR, UserSetup, adapter_for, make_adapter

from skill_be.adapters.base import AdapterStartError, CallContext

ANSWER = "MOCK-ANSWER: the mock model says hello"
GEMINI_MODEL = "gemini-contract-model"


@dataclass(frozen=True)
class Backend:
    """How to build one adapter and make its backend answer, fail or hang."""

    adapter: Callable[[Any, UserSetup], Any]  # (the mock server, the user) -> the adapter
    mock: str = ""  # "plain", "netns" or "gemini": which mock server it talks to; "" for none
    needs: str = ""  # an executable that must be on PATH (the agent CLIs, node)


def _mocked(kind: str) -> Callable[[Any, UserSetup], Any]:
    return lambda mock, user: adapter_for(kind, mock, user)


def _gemini(mock: Any, user: UserSetup) -> Any:
    environ = user.environ(**{KEY_VAR: user.key})
    return make_adapter("gemini", GEMINI_MODEL, user, environ, baseUrl=mock.base_url, apiKeyEnv=KEY_VAR)


# The scripted backends read what to do from a file beside them: "answer", "fail" or "hang".
PY_MODULE = """\
import asyncio, pathlib
async def complete(prompt, *, settings, timeout_seconds, cwd):
    mode = (pathlib.Path(__file__).parent / "mode").read_text().strip()
    if mode == "fail":
        raise RuntimeError("the backend refused")
    if mode == "hang":
        await asyncio.sleep(600)
    return "MOCK-ANSWER: the mock model says hello"
"""
JS_MODULE = """\
import { readFileSync } from "node:fs";
export default async function (prompt) {
  const mode = readFileSync(new URL("./mode", import.meta.url), "utf8").trim();
  if (mode === "fail") throw new Error("the backend refused");
  if (mode === "hang") await new Promise((r) => setTimeout(r, 600000));
  return "MOCK-ANSWER: the mock model says hello";
}
"""
COMMAND = """\
#!/bin/sh
cat >/dev/null
mode=$(cat "$(dirname "$0")/mode")
[ "$mode" = fail ] && { echo "the backend refused" >&2; exit 1; }
[ "$mode" = hang ] && sleep 600
echo "MOCK-ANSWER: the mock model says hello"
"""


def _scripted(adapter: str, file: str, text: str, **settings: object) -> Callable[[Any, UserSetup], Any]:
    def build(mock: Any, user: UserSetup) -> Any:
        path = user.project / file
        path.write_text(text)
        path.chmod(0o755)
        return make_adapter(adapter, "scripted-model", user, user.environ(), **settings)

    return build


BACKENDS: Mapping[str, Backend] = {
    "anthropic": Backend(_mocked("anthropic"), "plain"),
    "openai": Backend(_mocked("openai"), "plain"),
    "gemini": Backend(_gemini, "gemini"),  # the Gemini API server speaks the mock's script (text, status, hang)
    "command": Backend(_scripted("command", "model.sh", COMMAND, run="./model.sh")),
    "python-module": Backend(_scripted("./adapter.py", "adapter.py", PY_MODULE)),
    "js-module": Backend(_scripted("./adapter.mjs", "adapter.mjs", JS_MODULE), needs="node"),
    "claude-cli": Backend(_mocked("claude-cli"), "netns", "claude"),
    "pi-cli": Backend(_mocked("pi-cli"), "netns", "pi"),
    "opencode-cli": Backend(_mocked("opencode-cli"), "netns", "opencode"),
    "codex-cli": Backend(_mocked("codex-cli"), "netns", "codex"),
    "gemini-cli": Backend(_mocked("gemini-cli"), "netns", "gemini"),
}


class Harness:
    def __init__(self, backend: Backend, mock: Any, user: UserSetup) -> None:
        self.backend, self.mock, self.user = backend, mock, user
        if mock is not None:
            mock.reset()
        self.adapter = backend.adapter(mock, user)

    def mode(self, mode: str) -> None:
        if self.mock is None:
            (self.user.project / "mode").write_text(mode)
        elif mode == "answer":
            self.mock.script(default={"kind": "text", "text": ANSWER})
        elif mode == "fail":  # a client error: no adapter retries it, so the failure comes at once
            self.mock.script(default={"kind": "status", "status": 400})
        else:
            self.mock.script(default={"kind": "hang"})

    async def complete(self, limit: float) -> Any:
        ctx = CallContext(timeout_seconds=int(limit), cwd=self.user.project)
        return await asyncio.wait_for(self.adapter.complete("Say hello.", ctx), limit)  # as Engine.call does


@pytest.fixture(params=sorted(BACKENDS))
def harness(request: pytest.FixtureRequest, user: UserSetup) -> Harness:
    backend = BACKENDS[request.param]
    if backend.needs == "node":  # CI installs Node (.ci/steps/20-typescript.sh): missing, it fails
        assert shutil.which("node") is not None, "node is not on PATH"
    mock = request.getfixturevalue(f"{backend.mock}_mock") if backend.mock else None
    return Harness(backend, mock, user)


def test_it_preflights_answers_and_describes_itself(harness: Harness) -> None:
    harness.mode("answer")
    asyncio.run(harness.adapter.preflight())
    answer = asyncio.run(harness.complete(90))
    assert answer.text.strip() == ANSWER
    assert isinstance(harness.adapter.describe(), Mapping)


def test_a_failed_call_raises_one_line_that_names_no_key(harness: Harness) -> None:
    """The control is the test above: the same adapter answers when its backend does."""
    harness.mode("fail")
    with pytest.raises(Exception) as e:
        asyncio.run(harness.complete(90))
    assert not isinstance(e.value, AdapterStartError), "a failed call is not a failure to start"
    message = str(e.value)
    assert message and "\n" not in message
    assert harness.user.key not in message


def test_the_engines_time_limit_stops_a_hung_call(harness: Harness) -> None:
    if harness.backend.mock == "netns":  # a missing prerequisite is a failure, never a skip
        assert IN_NETNS, "run as root: a CLI's hang is checked only inside its network namespace (unshare -n)"
    harness.mode("hang")
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        asyncio.run(harness.complete(3))
    assert time.monotonic() - started < 20  # cancelled, cleanup included: not the backend's 600 s
