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

from . import launch
from .parts import Emitter


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
