"""One side of the channel: the requests it makes on the other side's objects, the ones it serves on
its own, and the events between the runner and the answer's process.

Each side is one process. A request is synchronous: the caller writes it and reads until its reply
comes, serving on the way whatever the other side asks of its own objects (an answer calling a test's
fake while a test waits on the answer). Only one thread uses the channel at a time.

The runner's side is guarded (`guarded=True`): on its own objects it serves calls, and reads and
writes of public attributes and items of plain objects only. No name that starts with `_` (so no
`__class__`, `__dict__`, `__globals__`, `__subclasses__`, `__traceback__`), no attribute of a module,
class, function, method, frame, code object, generator or descriptor (so no `gi_frame`, `f_back`,
`tb_frame`), and no module, frame, code object or traceback ever crosses, even as a value. So the
answer reaches the tests' fakes and what they return, and nothing of the runner's modules, its `sys`,
pytest or the verdicts. What the answer sends is decoded from JSON (codec.py): nothing of it runs in
the runner, and its objects stay proxies there.

Time: the runner sends, with each request a test makes, the seconds left of that test (`dl`); the
answer's process arms a timer for them and, when it fires while the answer's code runs, raises
`Timeout` in that code and replies `timeout`. The runner's own timer (a little later) raises
`Timeout` too; when it fires while the runner waits for a reply, the answer's process did not keep to
its time, and the channel is `stuck`."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import inspect
import os
import signal
import threading
import time
import types
import weakref
from collections.abc import Callable
from typing import Any

from .codec import Codec
from .proxy import Proxy, proxy_id
from .wire import REQUESTS, ChannelError, Gone, Reader, encode_frame

# What the runner never serves attributes or items of: they lead to code, frames and modules.
OPAQUE: tuple[type, ...] = (
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.FrameType,
    types.CodeType,
    types.TracebackType,
    types.GeneratorType,
    types.CoroutineType,
    types.AsyncGeneratorType,
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
    types.MethodWrapperType,
    types.ClassMethodDescriptorType,
    types.GetSetDescriptorType,
    types.MemberDescriptorType,
    types.MappingProxyType,
    types.CellType,
    functools.partial,
    property,
    staticmethod,
    classmethod,
    weakref.ref,
)
NEVER_CROSS: tuple[type, ...] = (types.ModuleType, types.FrameType, types.CodeType, types.TracebackType)
ATTRIBUTE_OPS = frozenset({"get", "set", "del"})
CONTENT_OPS = frozenset({"item", "setitem", "delitem", "len", "has", "bool"})
REPEAT_S = 0.2  # the answer's process raises its Timeout again this often until the code gives up


class Timeout(BaseException):
    """A test ran past its limit."""


def run_awaitable(aw: Any) -> Any:
    """Await `aw` to its end: on a loop of its own, in a thread of its own if a loop runs here."""

    async def main() -> Any:
        return await aw

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(main())
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main()).result()


class Endpoint:
    def __init__(
        self,
        side: str,
        rfd: int,
        wfd: int,
        on_event: Callable[[dict[str, Any]], None] = lambda _: None,
        on_gone: Callable[[str], None] | None = None,
        where: Callable[[BaseException], str] = lambda _: "",
    ) -> None:
        self.side = side  # "runner" (guarded) or "answer"
        self.is_runner = side == "runner"
        self.guarded = self.is_runner  # a test's control may switch the guard off (runner.connect)
        self.reader = Reader(rfd)
        self.wfd = wfd
        self.on_event = on_event
        self.on_gone = on_gone
        self.where = where  # where in the answer's code an exception was raised, for its message
        self.codec = Codec(
            proxy=lambda ref, kind, name: Proxy(self, ref, kind, name),
            peer_id=lambda v: proxy_id(v, self),
            coroutine=self._coroutine,
            exportable=(lambda v: not isinstance(v, NEVER_CROSS)) if self.guarded else (lambda _: True),
        )
        self.lock = threading.RLock()
        self.next_id = 0
        self.replies: dict[int, dict[str, Any]] = {}
        self.waiting: set[int] = set()
        self.depth = 0  # this side's requests in flight
        self.serving = 0  # the other side's requests being served
        self.io = 0  # inside the channel's own code (the answer's timer then waits)
        self.deadline: float | None = None  # the runner: when the current test must end
        self.stuck = False  # the runner: the answer's process did not reply within the test's time
        self.pending_timeout = False

    # --- this side's requests ---------------------------------------------------------------------

    def request(self, kind: str, target: Proxy, **fields: Any) -> Any:
        ref = proxy_id(target, self)
        with self.lock:
            self.next_id += 1
            rid = self.next_id
            msg: dict[str, Any] = {"k": kind, "i": rid, "t": ref}
            msg.update(self._fields(fields))
            if self.depth == 0 and self.deadline is not None:
                msg["dl"] = max(0.001, self.deadline - time.monotonic())
            self.depth += 1
            self.io += 1
            self.waiting.add(rid)
            try:
                self.send(msg)
                reply = self._wait(rid)
            finally:
                self.depth -= 1
                self.io -= 1
                self.waiting.discard(rid)
        self._timeout_due()
        return self._result(reply)

    def _fields(self, fields: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in fields.items():
            if key == "a":
                out["a"] = [self.codec.enc(v) for v in value]
            elif key == "kw":
                out["kw"] = [[str(k), self.codec.enc(v)] for k, v in value.items()]
            elif key == "n":
                out["n"] = str(value)
            else:
                out[key] = self.codec.enc(value)
        return out

    def _wait(self, rid: int) -> dict[str, Any]:
        try:
            while rid not in self.replies:
                self._dispatch(self._read())
        except Timeout as e:
            if not getattr(e, "_skb_served", False):
                self.stuck = True  # the runner's timer, while the answer's process kept the reply
            raise
        return self.replies.pop(rid)

    def _read(self) -> dict[str, Any]:
        try:
            return self.reader.read()
        except Gone:
            why = "ended"
        except ChannelError as e:
            why = f"broke the channel: {e}"
        except OSError as e:
            why = f"could not be read ({e.strerror})"
        if self.on_gone is not None:
            self.on_gone(why)
        raise Gone(why)

    def _dispatch(self, msg: dict[str, Any]) -> None:
        kind = msg.get("k")
        if kind == "ret":
            if msg.get("i") in self.waiting:
                self.replies[msg["i"]] = msg
        elif kind in REQUESTS:
            self.serve(msg)
        elif kind == "ev":
            self.on_event(msg)

    def _result(self, reply: dict[str, Any]) -> Any:
        if reply.get("ok") is True:
            return self.codec.dec(reply.get("v"))
        if reply.get("timeout") is True:
            raise Timeout()
        exc = self.codec.dec(reply.get("x"))
        if not isinstance(exc, BaseException):
            raise ChannelError("it sent an error that is not one")
        raise exc

    def send(self, msg: dict[str, Any]) -> None:
        """One frame, whole: no timer interrupts it halfway."""
        data = encode_frame(msg)
        self.io += 1
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self.wfd, view) :]
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
            self.io -= 1

    def event(self, name: str, **fields: Any) -> None:
        with self.lock:
            self.send({"k": "ev", "e": name, **fields})

    def wait_event(self, *names: str) -> dict[str, Any]:
        """Serve and read until the other side sends one of the events `names`; that event."""
        got: list[dict[str, Any]] = []
        previous = self.on_event

        def keep(msg: dict[str, Any]) -> None:
            if msg.get("e") in names and not got:
                got.append(msg)
            else:
                previous(msg)

        self.on_event = keep
        try:
            with self.lock:
                while not got:
                    self._dispatch(self._read())
        finally:
            self.on_event = previous
        return got[0]

    def serve_forever(self) -> None:
        """Serve the other side's requests and events until it is gone (the answer's process)."""
        while True:
            with self.lock:
                self.io += 1
                try:
                    msg = self._read()
                finally:
                    self.io -= 1
                self._dispatch(msg)

    # --- the other side's requests ----------------------------------------------------------------

    def serve(self, msg: dict[str, Any]) -> None:
        rid = msg.get("i")
        top = self.serving == 0 and threading.current_thread() is threading.main_thread()
        if top and not self.is_runner and isinstance(msg.get("dl"), int | float):
            self._arm(float(msg["dl"]))
        self.serving += 1
        try:
            reply = {"k": "ret", "i": rid, "ok": True, "v": self.codec.enc(self.perform(msg))}
        except Timeout as e:
            reply = {"k": "ret", "i": rid, "ok": False, "timeout": True}
            if self.is_runner:
                e._skb_served = True  # type: ignore[attr-defined]
                self._reply(reply)
                raise
        except BaseException as e:
            reply = {"k": "ret", "i": rid, "ok": False, "x": self.codec.enc_exception(e, self.where(e))}
        finally:
            self.serving -= 1
            if top and not self.is_runner:
                self._disarm()
        self._reply(reply)

    def _reply(self, reply: dict[str, Any]) -> None:
        try:
            self.send(reply)
        except ValueError as e:  # over the frame limit
            self.send({"k": "ret", "i": reply["i"], "ok": False, "x": self.codec.enc_exception(ValueError(str(e)))})

    def perform(self, msg: dict[str, Any]) -> Any:
        kind = str(msg.get("k"))
        target = self.codec.own(msg.get("t"))
        if self.guarded:
            _guard(kind, target, msg.get("n"))
        dec = self.codec.dec
        if kind == "call":
            args = [dec(a) for a in _as_list(msg.get("a"))]
            kwargs = {str(k): dec(v) for k, v in (_pair(p) for p in _as_list(msg.get("kw")))}
            return target(*args, **kwargs)  # type: ignore[operator]
        if kind in ATTRIBUTE_OPS:
            name = str(msg.get("n"))
            if kind == "get":
                return getattr(target, name)
            if kind == "set":
                return setattr(target, name, dec(msg.get("v")))
            return delattr(target, name)
        return self._content(kind, target, msg.get("v"))

    def _content(self, kind: str, target: Any, value: Any) -> Any:
        dec = self.codec.dec
        if kind == "item":
            return target[dec(value)]
        if kind == "setitem":
            key, item = _pair(value)
            target[dec(key)] = dec(item)
            return None
        if kind == "delitem":
            del target[dec(value)]
            return None
        simple: dict[str, Callable[[Any], Any]] = {
            "len": len,
            "iter": iter,
            "next": next,
            "bool": bool,
            "str": str,
            "repr": repr,
            "await": run_awaitable,
        }
        if kind in simple:
            return simple[kind](target)
        if kind == "has":
            return dec(value) in target
        if kind == "isinst":
            return isinstance(dec(value), target)
        raise ChannelError(f"it asked for {kind[:20]}")

    def _coroutine(self, proxy: Proxy) -> Any:
        async def awaiting() -> Any:
            return self.request("await", proxy)

        return awaiting()

    # --- the answer's process: the test's time --------------------------------------------------

    def _arm(self, seconds: float) -> None:
        self.pending_timeout = False
        signal.signal(signal.SIGALRM, self._alarm)
        signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001), REPEAT_S)

    def _disarm(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        self.pending_timeout = False

    def _alarm(self, signum: int, frame: object) -> None:
        if self.io == 0:
            raise Timeout()
        self.pending_timeout = True  # raised when the code this side waits on is the answer's again

    def _timeout_due(self) -> None:
        if self.pending_timeout and not self.is_runner and self.io == 0 and self.serving > 0:
            self.pending_timeout = False
            raise Timeout()


def _guard(kind: str, target: object, name: object) -> None:
    """What the runner refuses to do on its own object `target` for the answer."""
    if kind in ATTRIBUTE_OPS:
        if not isinstance(name, str) or name.startswith("_"):
            raise AttributeError(f"{str(name)[:60]!r}: the tests' objects show their public attributes only")
        if isinstance(target, OPAQUE):
            raise AttributeError(f"{name!r}: a {type(target).__name__} of the tests shows no attributes")
    elif kind in CONTENT_OPS and isinstance(target, OPAQUE):
        raise TypeError(f"a {type(target).__name__} of the tests shows no contents")
    elif kind == "isinst" or (kind == "await" and not inspect.iscoroutine(target)):
        raise TypeError(f"{kind}: not served on the tests' objects")


def _as_list(x: Any) -> list[Any]:
    if x is None:
        return []
    if not isinstance(x, list):
        raise ChannelError("it sent arguments that are not a list")
    return x


def _pair(x: Any) -> tuple[Any, Any]:
    if not isinstance(x, list) or len(x) != 2:
        raise ChannelError("it sent a pair that is not one")
    return x[0], x[1]
