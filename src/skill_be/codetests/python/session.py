"""One answer's tests: the answer loaded in its process, the test file run under pytest with the
verdict plugin (plugin.py), the protocol lines written. Imported by the runner before its request
comes, so that importing pytest costs nothing on the answer's path."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
from typing import Any

import pytest

from . import launch
from .endpoint import Endpoint
from .parts import AnswerModule, Emitter, cap, describe
from .plugin import NOT_RUN_AFTER_TIMEOUT, Plugin, pytest_args

# pytest's configuration: an empty one shipped with the harness, so no file of the project's configures it.
INI = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pytest.ini")


def host_for(req: dict[str, Any], opts: launch.Options, side: launch.AnswerSide | None, home: str) -> launch.AnswerSide:
    """The answer's side the request asks for: the early one when it fits, else a new one."""
    uid = req.get("uid") if isinstance(req.get("uid"), int) else None
    nproc = int(req.get("nproc") or 0)
    wrap = [str(x) for x in req.get("wrap") or []]
    if side is not None and side.spec == (uid, nproc, wrap):
        return side
    if side is not None:
        side.kill()
    folder = os.path.join(str(req["base"]), "runs", str(req["run"]))
    if wrap:  # bwrap binds the run folder: it must be there first, and the answer's
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if uid is not None and os.geteuid() == 0:
            os.chown(folder, uid, uid)
    return launch.AnswerSide(uid, nproc, wrap, opts.memory_mb, home)


def run(req: dict[str, Any], opts: launch.Options, side: launch.AnswerSide | None, emit: Emitter, home: str) -> None:
    base = str(req["base"])
    folder = os.path.join(base, "runs", str(req["run"]))
    emit({"e": "names", "names": []})
    if req.get("inRealm"):  # a control of skill-be's tests only: the answer in this very process
        if side is not None:
            side.kill()
        _load_in_realm(folder, str(req["answer"]), emit)
        plugin = Plugin(emit, None, float(req["testTimeoutMs"]) / 1000)
    else:
        side = host_for(req, opts, side, home)
        ep = connect(side, emit, opts.weaken)
        packages = opts.works.get(base, "")
        ep.codec.shared = [packages] if packages else []
        ep.event("init", dir=folder, answer=str(req["answer"]), path=[packages] if packages else [])
        ev = ep.wait_event("loaded", "load-error", "fatal")
        message = _load_error(ep.codec.dec, ev)
        if message is not None:
            emit({"e": "load-error", "message": message[0], "from": message[1]})
            _bye(ep)
            os._exit(0)
        sys.modules["answer"] = AnswerModule(ep.codec.dec(ev.get("module")))
        plugin = Plugin(emit, ep, float(req["testTimeoutMs"]) / 1000)
    test = os.path.join(base, str(req["test"]))
    tests_root = os.path.dirname(os.path.dirname(test))
    sys.path[:0] = [os.path.join(tests_root, "_shared")]
    packages = opts.works.get(base, "")
    if packages:
        sys.path.append(packages)  # the tests import the listed packages too
    pytest.main(pytest_args(test, tests_root, INI), plugins=[plugin])
    if plugin.ep is not None:
        _bye(plugin.ep)
    os._exit(0)


def connect(side: launch.AnswerSide, emit: Emitter, weaken: set[str]) -> Endpoint:
    ep = Endpoint("runner", side.rfd, side.wfd, on_gone=lambda _: side.end_as_it_did())
    if "guard" in weaken:  # a control of skill-be's tests only: the runner serves all of its objects
        ep.guarded = False
        ep.codec.exportable = lambda _: True
    return ep


def _bye(ep: Any) -> None:
    with contextlib.suppress(Exception):
        ep.event("bye")


def _load_error(dec: Any, ev: dict[str, Any]) -> tuple[str, str] | None:
    """Why the answer did not load (its words: from "answer"), or None when it did."""
    if ev.get("e") == "fatal":
        return cap(f"the answer's process failed: {ev.get('message')!s}"), "answer"
    if ev.get("e") == "load-error":
        try:
            exc = dec(ev.get("error"))
        except Exception:
            exc = None
        text = describe(exc) if isinstance(exc, BaseException) else "an error that cannot be shown"
        if ev.get("syntax") is True:
            return cap(f"the answer's code does not parse: {text}"), "answer"
        return cap(f"the answer's code raises when imported: {text}"), "answer"
    if ev.get("result") is not True:
        return "the answer's code does not define `result`", "skill-be"
    return None


def _load_in_realm(folder: str, code: str, emit: Emitter) -> None:
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "answer.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(code)
    spec = importlib.util.spec_from_file_location("answer", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["answer"] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as e:
        emit({"e": "load-error", "message": f"the answer's code raises when imported: {describe(e)}", "from": "answer"})
        os._exit(0)
    if not hasattr(module, "result"):
        emit({"e": "load-error", "message": "the answer's code does not define `result`", "from": "skill-be"})
        os._exit(0)


__all__ = ["NOT_RUN_AFTER_TIMEOUT", "run"]
