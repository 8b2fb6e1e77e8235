"""Drives one answer's tests through a sandbox channel: the request in, protocol lines out, timeouts.

The same logic serves every sandbox. It runs in a worker thread, since the Docker SDK's sockets
block; a channel is one started Node runner waiting for its request on stdin."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from skill_be.codetests.outcome import TestResult, TestRun, all_failed, errored

LOAD_GRACE_S = 2.0  # loading the test file and the answer: the test timeout plus this
TEST_GRACE_S = 1.0  # the runner times a test out itself; this backs it up when the code blocks the event loop
MAX_LINE = 1 << 20  # a longer line without a newline is the answer's output: dropped
TAIL = 2000
# Every message that can carry the answer's words is cut to this many characters, then " [truncated]";
# the runner cuts them first, this is the second cut should the runner fail to.
MESSAGE_MAX = 2000
TRUNCATED = " [truncated]"
REPORTED_TWICE = "the test process reported this test twice: the answer's code changed the tests it runs"


def cap(text: str) -> str:
    return text if len(text) <= MESSAGE_MAX + len(TRUNCATED) else text[:MESSAGE_MAX] + TRUNCATED


class Channel(Protocol):
    """A started runner (`launch.mjs run`, runner.mjs under it), waiting for its request."""

    def send(self, data: bytes) -> None:
        """Write to its stdin; OSError when it cannot be written."""

    def read(self, timeout: float) -> tuple[int, bytes] | None:
        """(1 for stdout or 2 for stderr, bytes), (0, b"") when nothing came within `timeout`, None at the end."""

    def stop(self) -> None:
        """Kill the runner and whatever it started; idempotent."""

    def status(self) -> str:
        """How the runner ended, in words (an exit code, killed), for messages."""


@dataclass(frozen=True)
class Request:
    base: str  # the work folder, as the runner sees it
    test: str  # the compiled test file, relative to base
    answer: str  # the answer's JavaScript
    names: tuple[str, ...]  # the tests the file registered when the session opened
    test_timeout_s: float
    answer_timeout_s: float
    run: str = ""  # the answer's folder under runs/; made up when empty
    uid: int | None = None  # the answer's own uid (and gid), when the runner may switch to it
    nproc: int = 0  # at most this many processes of that uid; 0: no limit of the runner's own
    in_realm: bool = False  # the answer in the runner's own realm: only the tests' controls do this
    wrap: tuple[str, ...] = ()  # the command the answer's process starts under (bwrap and its options)
    last_result_wins: bool = False  # a test's control only: a test reported twice keeps its last result


@dataclass
class _State:
    names_seen: bool = False
    loaded: bool = False
    load_error: str | None = None
    load_error_from: str | None = None
    fatal: str | None = None
    current: str | None = None
    deadline: float = 0.0
    ended: bool = False
    results: dict[str, TestResult] = field(default_factory=dict)
    twice: set[str] = field(default_factory=set)  # tests reported more than once: failed, for good
    stderr: bytearray = field(default_factory=bytearray)
    other: bytearray = field(default_factory=bytearray)

    def on_event(self, ev: dict[str, object], req: Request) -> None:
        """One protocol event from the runner (its kinds are runner.mjs's `emit` calls)."""
        kind = ev.get("e")
        if kind == "names":
            self.names_seen = True
        elif kind == "fatal":
            self.fatal = cap(str(ev.get("message")))
        elif kind == "load-error":
            self.load_error = cap(str(ev.get("message")))
            self.load_error_from = _source(ev.get("from"))
        elif kind == "loaded":
            self.loaded = True
        elif kind == "start":
            self.current = str(ev.get("name"))
            self.deadline = time.monotonic() + req.test_timeout_s + TEST_GRACE_S
        elif kind == "result":
            self.on_result(ev, req)
            self.current = None
        elif kind == "end":
            self.ended = True

    def on_result(self, ev: dict[str, object], req: Request) -> None:
        """A test's result. A test has one: a second result for a name can only come from a runner the
        answer took over (it runs each registered test once), so the test fails, for good."""
        name = str(ev.get("name"))
        if name in self.results and not req.last_result_wins:
            self.results[name] = TestResult(name, False, REPORTED_TWICE, message_from="skill-be")
            self.twice.add(name)
            return
        if name in self.twice:
            return
        message, ms = ev.get("message"), ev.get("ms")
        self.results[name] = TestResult(
            name=name,
            passed=ev.get("passed") is True,
            message=cap(str(message)) if message is not None else None,
            seconds=float(ms) / 1000 if isinstance(ms, int | float) else 0.0,
            message_from=_source(ev.get("from")) if message is not None else None,
        )


class _Lines:
    """Splits the stdout stream into protocol events; everything else is dropped (bounded memory)."""

    def __init__(self, nonce: str, on_event: Callable[[dict[str, object]], None]) -> None:
        self.prefix = f"\x1e{nonce}\x1f".encode()
        self.buf = bytearray()
        self.on_event = on_event

    def feed(self, chunk: bytes) -> None:
        self.buf += chunk
        while True:
            nl = self.buf.find(b"\n")
            if nl < 0:
                break
            line = bytes(self.buf[:nl])
            del self.buf[: nl + 1]
            at = line.find(self.prefix)  # the answer may have printed without a newline first
            if at >= 0:
                try:
                    event = json.loads(line[at + len(self.prefix) :])
                except ValueError:
                    continue
                if isinstance(event, dict):
                    self.on_event(event)
        if len(self.buf) > MAX_LINE:
            keep = self.buf.rfind(b"\x1e")
            del self.buf[: keep if keep >= 0 else len(self.buf)]


# Whose words a message holds (runner.mjs, `from`); anything else the runner sent is not trusted.
SOURCES = ("answer", "tests", "skill-be")
# The fields of the request written on the runner's stdin (node/wire.mjs REQUEST_FIELDS says the same;
# tests/node check that the two agree).
REQUEST_FIELDS = ("nonce", "base", "test", "answer", "testTimeoutMs", "run", "uid", "nproc", "inRealm", "wrap")
# The events the runner writes on stdout (node/wire.mjs RUNNER_EVENTS).
RUNNER_EVENTS = ("pong", "names", "loaded", "load-error", "fatal", "start", "result", "end")


def _source(value: object) -> str:
    return value if isinstance(value, str) and value in SOURCES else "answer"


def _tail(data: bytes | bytearray) -> str:
    return " ".join(bytes(data[-TAIL:]).decode("utf-8", "replace").split())[-400:]


def supervise(channel: Channel, req: Request) -> TestRun:
    """Run one answer's tests; finished tests keep their result whatever happens to the others."""
    nonce = secrets.token_hex(16)
    state = _State()
    started = time.monotonic()
    state.deadline = started + req.test_timeout_s + LOAD_GRACE_S
    try:
        channel.send(json.dumps(_request(nonce, req)).encode("utf-8") + b"\n")
    except OSError as e:
        channel.stop()
        return errored(req.names, f"the answer could not be handed to the test process ({e})")
    stopped = _follow(channel, state, _Lines(nonce, lambda ev: state.on_event(ev, req)), started + req.answer_timeout_s)
    channel.stop()

    if state.fatal is not None:
        return errored(req.names, state.fatal)
    if state.load_error is not None:
        return TestRun(results=all_failed(req.names, state.load_error, state.load_error_from))
    if not state.names_seen:
        if stopped is not None:
            why = f"the test process did not start within {req.test_timeout_s + LOAD_GRACE_S:g} s"
        else:
            why = f"the test process could not start ({channel.status()}: {_tail(state.stderr) or 'no message'})"
        return errored(req.names, why)
    return TestRun(results=_finish(req, state, stopped, channel.status))


def _request(nonce: str, req: Request) -> dict[str, object]:
    """The runner's request line (its fields are the runner's `request` in runner.mjs)."""
    return {
        "nonce": nonce,
        "base": req.base,
        "test": req.test,
        "answer": req.answer,
        "testTimeoutMs": int(req.test_timeout_s * 1000),
        "run": req.run or secrets.token_hex(8),
        "uid": req.uid,
        "nproc": req.nproc,
        "inRealm": req.in_realm,
        "wrap": list(req.wrap),
    }


def _follow(channel: Channel, state: _State, lines: _Lines, answer_deadline: float) -> str | None:
    """Read the runner's events until it ends, fails or a deadline passes: why skill-be stopped it
    ("answer", "test" or "load"), None when it stopped by itself."""
    while not (state.ended or state.load_error or state.fatal):
        now = time.monotonic()
        if now >= answer_deadline:
            return "answer"
        if now >= state.deadline:
            return "test" if state.current is not None else "load"
        got = channel.read(min(answer_deadline, state.deadline) - now)
        if got is None:
            return None
        stream, data = got
        if stream == 1:
            lines.feed(data)
        elif stream == 2:
            state.stderr += data
            del state.stderr[:-TAIL]
    return None


def _finish(req: Request, state: _State, stopped: str | None, status: Callable[[], str]) -> tuple[TestResult, ...]:
    limit = f"{req.test_timeout_s:g} s"
    if not state.loaded:
        if stopped is not None:
            why = f"the answer's code did not finish loading within {limit}"
        else:
            why = f"the answer's code ended the test process while loading ({status()})"
        return tuple(TestResult(n, False, why) for n in req.names)
    if stopped == "answer":
        current = f"stopped: an answer's tests must all finish within {req.answer_timeout_s:g} s"
        rest = f"not run: the answer's tests ran past {req.answer_timeout_s:g} s"
    elif stopped == "test":
        current = f"timed out after {limit}"
        rest = "not run: an earlier test timed out and the test process was stopped"
    elif state.ended:
        current = rest = "not registered by the test file in this run"
    else:
        current = f"the test process ended during this test ({status()})"
        rest = f"not run: the test process ended during an earlier test ({status()})"
    out: list[TestResult] = []
    for name in req.names:
        if name in state.results:
            out.append(state.results[name])
        elif name == state.current:
            out.append(TestResult(name, False, current))
        else:
            out.append(TestResult(name, False, rest))
    return tuple(out)


def ping(channel: Channel, timeout_s: float) -> str | None:
    """Check that a runner starts and answers; None when it does, else why not."""
    nonce = secrets.token_hex(16)
    got_pong: list[bool] = []
    stderr = bytearray()
    lines = _Lines(nonce, lambda ev: got_pong.append(ev.get("e") == "pong"))
    deadline = time.monotonic() + timeout_s
    try:
        channel.send(json.dumps({"nonce": nonce, "ping": True}).encode() + b"\n")
        while not got_pong and (left := deadline - time.monotonic()) > 0:
            got = channel.read(left)
            if got is None:
                break
            if got[0] == 1:
                lines.feed(got[1])
            elif got[0] == 2:
                stderr += got[1]
    except OSError as e:
        return f"the test process could not be reached ({e})"
    finally:
        channel.stop()
    if any(got_pong):
        return None
    if time.monotonic() >= deadline:
        return f"the test process did not answer within {timeout_s:g} s"
    return f"the test process could not start ({channel.status()}: {_tail(stderr) or 'no message'})"
