"""Runs one answer's tests under pytest and decides their verdicts; or lists the tests of test files.

    python -I -S -B <harness>/boot.py run [--host <uid|-> <nproc>] [--wrap <json argv>]
        [--work <folder> <packages|->]... [--memory-mb N] [--weaken <names>]
    python -I -S -B <harness>/boot.py list [--packages <folder>] <test file>...

`run` reads one JSON line on stdin, the request (codetests/protocol.py: nonce, base, test, answer,
testTimeoutMs, run, uid, nproc, inRealm, wrap), or {nonce, ping: true}. It writes protocol lines on
stdout, each "\\x1e<nonce>\\x1f" and JSON: names, loaded | load-error, start, result, end, and fatal
when the tests cannot run. The answer's code runs in its own process (host.py), reached through the
channel (endpoint.py): the test file imports it as the module `answer`, whose names are proxies of
the answer's objects or copies of its data, and the verdicts are decided here, from what pytest
reports. `list` writes one JSON line: {"<file>": {"names": [...]} | {"error": "..."}}.

Why the answer cannot decide its verdict: it runs in another process (under another uid where the
sandbox gives one), it reaches only what the tests hand it and only through the runner's guard
(endpoint.py), and nothing it sends is run here: it is JSON, decoded into data and proxies."""

from __future__ import annotations

import os
import sys
import types
from typing import Any

from . import launch
from .endpoint import Endpoint
from .proxy import Proxy

MESSAGE_MAX = 2000
TRUNCATED = " [truncated]"


def cap(text: str) -> str:
    return text if len(text) <= MESSAGE_MAX else text[:MESSAGE_MAX] + TRUNCATED


class Emitter:
    """Protocol lines on a file descriptor of their own (stdout as it was when the runner started)."""

    def __init__(self) -> None:
        self.fd = os.dup(1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)  # the tests' own prints never mix with the protocol
        os.close(devnull)
        self.prefix = ""

    def __call__(self, event: dict[str, Any]) -> None:
        import json

        data = (self.prefix + json.dumps(event, ensure_ascii=False) + "\n").encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view) :]


class AnswerModule(types.ModuleType):
    """The test file's `answer`: each name read from the answer's module in its process, once."""

    def __init__(self, module: Proxy) -> None:
        super().__init__("answer", "the model's answer, in a process of its own")
        self.__dict__["_skb_module"] = module

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self.__dict__["_skb_module"], name)
        self.__dict__[name] = value
        return value


def describe(exc: BaseException) -> str:
    """`ValueError: text` of an exception, whoever raised it."""
    text = str(exc)
    return cap(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)


def reserve_low_fds() -> None:
    """fds 3 and 4 are what the answer's side is given: keep them taken here, so that nothing the
    runner opens lands there (subprocess's own pipe among them)."""
    for fd in (3, 4):
        try:
            os.fstat(fd)
        except OSError:
            os.open(os.devnull, os.O_RDONLY)


def main(argv: list[str]) -> None:
    if argv[:1] == ["list"]:
        from .listing import main as list_main

        list_main(argv[1:])
        return
    reserve_low_fds()
    opts = launch.parse(argv[1:])
    emit = Emitter()
    home = os.getcwd()
    side = None
    if opts.host is not None:
        side = launch.AnswerSide(opts.host[0], opts.host[1], opts.wrap, opts.memory_mb, home)
    from . import session  # pytest is imported there: before the request, off the answer's path

    req = launch.read_request()
    if req is None:
        if side is not None:
            side.kill()
        os._exit(2)
    emit.prefix = f"\x1e{req.get('nonce')}\x1f"
    if req.get("ping"):
        emit({"e": "pong", "python": sys.version.split()[0]})
        if side is not None:
            side.kill()
        os._exit(0)
    session.run(req, opts, side, emit, home)


def connect(side: launch.AnswerSide, emit: Emitter, weaken: set[str]) -> Endpoint:
    ep = Endpoint("runner", side.rfd, side.wfd, on_gone=lambda _: side.end_as_it_did())
    if "guard" in weaken:  # a control of skill-be's tests only: the runner serves all of its objects
        ep.guarded = False
        ep.codec.exportable = lambda _: True
    return ep
