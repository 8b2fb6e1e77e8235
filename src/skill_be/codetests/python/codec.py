"""Values on the channel: data is copied, everything else crosses by reference and becomes a proxy.

Copied (the receiving side builds its own value from JSON, so nothing of the sender runs there):
None, bool, int, float, complex, str, bytes, bytearray, list, tuple (a named tuple keeps its field
names), dict, set, frozenset, Decimal, Fraction, date, time, datetime, timedelta, UUID, paths, and
exceptions (their class by name, their arguments, their text). A subclass of one of these crosses as
the base type (an IntEnum member as its int). Anything else (functions, classes, instances of the
sender's own classes, iterators) crosses by reference: ["P", id, kind, name]; the receiver gets a
proxy whose every operation is a request to the owner. An object coming back to its owner is
["R", id] and is the owner's own object again. Cycles and nesting past MAX_DEPTH cross by reference.

Tags (a JSON array is always tagged; strings, numbers, booleans and null are themselves):
  L list, T tuple, N named tuple [name, fields, values], D dict [[k, v]...], S set, F frozenset,
  B bytes (base64), BA bytearray, i big int (hex), C complex, dec Decimal, frac Fraction, dt datetime,
  date, time, td timedelta [days, seconds, microseconds], uuid, path, P the sender's object by
  reference, R the receiver's own object, Co a coroutine by reference, X an exception {cls, args, str,
  where, ref}, XB a built-in exception class by name, XC the sender's exception class [id, name,
  qualname, built-in base]."""

from __future__ import annotations

import base64
import builtins
import datetime
import decimal
import fractions
import inspect
import os
import pathlib
import sys
import uuid
from collections.abc import Callable
from typing import Any

from .wire import MAX_DEPTH, ChannelError

TEXT_MAX = 2000  # characters of an exception's text or a name that cross
NAME_MAX = 200
MAX_ATTRS = 50  # public attributes of an exception that cross with it
SAFE_INT = 1 << 53
# Built-in exception classes an exception of the other side may be rebuilt as (by name only). The
# ones that stop a program (KeyboardInterrupt, GeneratorExit) and groups become plain Exceptions.
_STOPPING = frozenset({"KeyboardInterrupt", "GeneratorExit", "BaseException", "BaseExceptionGroup", "ExceptionGroup"})
BUILTIN_EXCEPTIONS: dict[str, type[BaseException]] = {
    name: cls
    for name, cls in vars(builtins).items()
    if isinstance(cls, type) and issubclass(cls, BaseException) and name not in _STOPPING
}
KINDS = frozenset({"f", "c", "o", "g"})  # function, class, other object, iterator


class Record(tuple):  # type: ignore[type-arg]
    """A named tuple of the other side: a tuple (compares as one) whose fields read by name."""

    def __getattr__(self, name: str) -> Any:
        fields: tuple[str, ...] = self.__dict__.get("_fields", ())
        if name in fields:
            return self[fields.index(name)]
        raise AttributeError(name)

    def __repr__(self) -> str:
        fields: tuple[str, ...] = self.__dict__.get("_fields", ())
        inner = ", ".join(f"{f}={v!r}" for f, v in zip(fields, self, strict=False))
        return f"{self.__dict__.get('_name', 'Record')}({inner})"


def _remote_str(self: BaseException) -> str:
    return str(self.__dict__.get("_skb_str", ""))


def _remote_getattr(self: BaseException, name: str) -> Any:
    ref = self.__dict__.get("_skb_ref")
    if ref is None or name.startswith("_"):
        raise AttributeError(name)
    return getattr(ref, name)


def kind_of(value: object) -> str:
    """What a proxy of `value` shows itself as: a class, a function, an iterator or another object."""
    if isinstance(value, type):
        return "c"
    if inspect.isroutine(value):
        return "f"
    if hasattr(type(value), "__next__"):
        return "g"
    return "o"


def _name_of(value: object) -> str:
    name = getattr(value, "__qualname__", None) if isinstance(value, type) or inspect.isroutine(value) else None
    if not isinstance(name, str):
        name = type(value).__qualname__
    return name[:NAME_MAX]


class Codec:
    """One side's encoder and decoder. `proxy(id, kind, name)` makes the proxy of a peer object;
    `is_peer(v)` says whether v is such a proxy (and gives its id); `exportable(v)` may refuse to let
    an object of this side cross (the runner's guard)."""

    def __init__(
        self,
        proxy: Callable[[int, str, str], Any],
        peer_id: Callable[[object], int | None],
        coroutine: Callable[[Any], Any],
        exportable: Callable[[object], bool] = lambda _: True,
    ) -> None:
        self.proxy = proxy
        self.peer_id = peer_id
        self.coroutine = coroutine  # a peer coroutine's proxy -> a coroutine of this side that awaits it
        self.exportable = exportable
        self.exports: dict[int, object] = {}
        self.ids: dict[int, int] = {}  # id(object) -> its export id (the object is kept alive above)
        self.proxies: dict[int, Any] = {}
        self.exc_classes: dict[int, type[BaseException]] = {}  # the peer's exception classes, made here
        self.made: dict[type[BaseException], int] = {}  # and back: a made class goes home as ["R", id]
        self.from_peer_marker = "_skb_from_peer"
        # Folders of packages both sides import (the package list's): an exception class defined in a
        # module loaded from one of them is the receiver's own class of the same name.
        self.shared: list[str] = []

    # --- encoding ---------------------------------------------------------------------------------

    def export(self, value: object) -> int:
        key = id(value)
        if key not in self.ids:
            if not self.exportable(value):
                raise TypeError(f"a {type(value).__name__} cannot be handed over")
            n = len(self.exports) + 1
            self.exports[n] = value
            self.ids[key] = n
        return self.ids[key]

    def own(self, ref: object) -> object:
        """This side's object that ["R", id] or a request's target names; ChannelError when none."""
        if not isinstance(ref, int) or ref not in self.exports:
            raise ChannelError("it named an object it was never given")
        return self.exports[ref]

    def enc(self, value: Any, depth: int = 0, active: frozenset[int] = frozenset()) -> Any:
        if value is None or value is True or value is False or type(value) is str:
            return value
        peer = self.peer_id(value)
        if peer is not None:
            return ["R", peer]
        scalar = _scalar(value)
        if scalar is not _NOT_SCALAR:
            return scalar
        if isinstance(value, BaseException):
            return self.enc_exception(value)
        if isinstance(value, type) and issubclass(value, BaseException):
            return self._enc_exc_class(value)
        if inspect.iscoroutine(value):
            return ["Co", self.export(value)]
        if depth >= MAX_DEPTH or id(value) in active:
            return self._ref(value)
        inner = active | {id(value)}
        return self._container(value, depth + 1, inner)

    def _ref(self, value: object) -> list[Any]:
        return ["P", self.export(value), kind_of(value), _name_of(value)]

    def _container(self, value: Any, depth: int, active: frozenset[int]) -> Any:
        def items(xs: Any) -> list[Any]:
            return [self.enc(x, depth, active) for x in xs]

        if isinstance(value, tuple):
            fields = getattr(type(value), "_fields", None)
            if isinstance(fields, tuple) and all(isinstance(f, str) for f in fields):
                return ["N", type(value).__name__[:NAME_MAX], list(fields), items(value)]
            return ["T", items(value)]
        if isinstance(value, list):
            return ["L", items(value)]
        if isinstance(value, dict):
            return ["D", [[self.enc(k, depth, active), self.enc(v, depth, active)] for k, v in list(value.items())]]
        if isinstance(value, frozenset):
            return ["F", items(value)]
        if isinstance(value, set):
            return ["S", items(value)]
        return self._ref(value)

    def _enc_exc_class(self, cls: type[BaseException]) -> list[Any]:
        if cls.__module__ == "builtins" and cls.__name__ in BUILTIN_EXCEPTIONS:
            return ["XB", cls.__name__]
        if cls in self.made:
            return ["R", self.made[cls]]
        base = next((c.__name__ for c in cls.__mro__ if c.__module__ == "builtins"), "Exception")
        names = [cls.__name__[:NAME_MAX], cls.__qualname__[:NAME_MAX], base, str(cls.__module__)[:NAME_MAX]]
        return ["XC", self.export(cls), *names]

    def enc_exception(self, exc: BaseException, where: str = "") -> dict[str, Any] | list[Any]:
        """An exception as data: its class, arguments and text (arguments that cannot cross are left out)."""
        try:
            text = str(exc)[:TEXT_MAX]
        except Exception:
            text = f"<{type(exc).__name__}: its text could not be read>"
        try:
            args = [self.enc(a) for a in exc.args]
        except Exception:
            args = []
        attrs: list[list[Any]] = []
        for key, value in list(getattr(exc, "__dict__", {}).items())[:MAX_ATTRS]:
            if isinstance(key, str) and not key.startswith("_"):
                try:
                    attrs.append([key[:NAME_MAX], self.enc(value)])
                except Exception:
                    continue
        out: dict[str, Any] = {"cls": self._enc_exc_class(type(exc)), "args": args, "str": text, "where": where}
        out["attrs"] = attrs
        if out["cls"][0] == "XC":
            exc.__traceback__ = None  # keep no frame of it alive: only its attributes are read later
            out["ref"] = self.export(exc)
        return ["X", out]

    # --- decoding ---------------------------------------------------------------------------------

    def dec(self, data: Any) -> Any:
        """A value from the peer's JSON; ChannelError when it is not a value."""
        try:
            return self._dec(data, 0)
        except ChannelError:
            raise
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError, OverflowError) as e:
            raise ChannelError(f"it sent a value that could not be read ({type(e).__name__})") from None

    def _dec(self, data: Any, depth: int) -> Any:
        if data is None or isinstance(data, bool | int | float | str):
            return data
        if not isinstance(data, list) or not data or not isinstance(data[0], str) or depth > MAX_DEPTH + 2:
            raise ChannelError("it sent a value that is not one")
        tag, rest = data[0], data[1:]
        if tag in _CONTAINERS:
            return _CONTAINERS[tag]([self._dec(x, depth + 1) for x in _list(rest[0])])
        if tag == "D":
            return {self._dec(k, depth + 1): self._dec(v, depth + 1) for k, v in _list(rest[0])}
        if tag == "N":
            record = Record(self._dec(x, depth + 1) for x in _list(rest[2]))
            record.__dict__["_name"] = _text(rest[0])
            record.__dict__["_fields"] = tuple(_text(f) for f in _list(rest[1]))
            return record
        if tag == "R":
            return self.own(rest[0])
        if tag == "P":
            return self._proxy(rest)
        if tag == "Co":
            return self.coroutine(self._proxy([rest[0], "o", "coroutine"]))
        if tag == "X":
            return self._exception(rest[0])
        if tag == "XB":
            return BUILTIN_EXCEPTIONS.get(_text(rest[0]), Exception)
        if tag == "XC":
            return self._exc_class(rest)
        return _scalar_from(tag, rest)

    def _proxy(self, rest: list[Any]) -> Any:
        ref, kind, name = rest[0], rest[1], rest[2]
        if not isinstance(ref, int) or kind not in KINDS:
            raise ChannelError("it sent a reference that is not one")
        if ref not in self.proxies:
            self.proxies[ref] = self.proxy(ref, kind, _text(name))
        return self.proxies[ref]

    def _exc_class(self, rest: list[Any]) -> type[BaseException]:
        ref = rest[0]
        if not isinstance(ref, int):
            raise ChannelError("it sent a class that is not one")
        if ref not in self.exc_classes:
            shared = self._shared_class(_text(rest[4]) if len(rest) > 4 else "", _text(rest[2]))
            if shared is not None:
                self.exc_classes[ref] = shared
                return shared
            base = BUILTIN_EXCEPTIONS.get(_text(rest[3]), Exception)
            namespace = {
                "__module__": "answer",
                "__qualname__": _text(rest[2]) or "Error",
                "__str__": _remote_str,
                "__getattr__": _remote_getattr,
            }
            made = type(_text(rest[1]) or "Error", (base,), namespace)
            self.exc_classes[ref] = made
            self.made[made] = ref
        return self.exc_classes[ref]

    def _shared_class(self, module: str, qualname: str) -> type[BaseException] | None:
        """This side's own exception class `module.qualname`, when that module is already loaded here
        from a package both sides have (never one of skill-be's, pytest's or the standard library's):
        only an Exception subclass, so no class that stops or skips a test can be named this way."""
        mod = sys.modules.get(module)
        where = getattr(mod, "__file__", None)
        if mod is None or not isinstance(where, str) or not any(_inside(where, root) for root in self.shared):
            return None
        found: Any = mod
        for part in qualname.split("."):
            found = inspect.getattr_static(found, part, None)
        ok = isinstance(found, type) and issubclass(found, Exception)
        return found if ok else None

    def _exception(self, d: Any) -> BaseException:
        if not isinstance(d, dict):
            raise ChannelError("it sent an exception that is not one")
        cls = self._dec(d.get("cls"), 1)
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise ChannelError("it sent an exception that is not one")
        args = tuple(self._dec(a, 1) for a in _list(d.get("args", [])))
        exc: BaseException
        if cls.__module__ == "builtins":
            try:
                exc = cls(*args)
            except Exception:
                exc = Exception(*args)
        else:  # the sender's class, or this side's own class of a shared package: no __init__ of it runs
            exc = cls.__new__(cls)
            exc.args = args
        for pair in _list(d.get("attrs", []))[:MAX_ATTRS]:
            key, value = _list(pair)[:2]
            if isinstance(key, str) and not key.startswith("_"):
                exc.__dict__[key] = self._dec(value, 1)
        exc.__dict__["_skb_str"] = _text(d.get("str"), TEXT_MAX)
        exc.__dict__[self.from_peer_marker] = True
        where = _text(d.get("where"), TEXT_MAX)
        if where:
            exc.add_note(where)
        ref = d.get("ref")
        if isinstance(ref, int):
            exc.__dict__["_skb_ref"] = self._proxy([ref, "o", type(exc).__name__])
        return exc


_NOT_SCALAR = object()


def _scalar(value: Any) -> Any:
    """The encoding of a copied scalar, or _NOT_SCALAR."""
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        n = int.__index__(value)
        return n if -SAFE_INT < n < SAFE_INT else ["i", format(n, "x")]
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bytes):
        return ["B", base64.b64encode(bytes(value)).decode("ascii")]
    if isinstance(value, bytearray):
        return ["BA", base64.b64encode(bytes(value)).decode("ascii")]
    if isinstance(value, complex):
        return ["C", value.real, value.imag]
    return _stdlib_scalar(value)


def _stdlib_scalar(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        return ["dec", str(value)]
    if isinstance(value, fractions.Fraction):
        return ["frac", str(value)]
    if isinstance(value, datetime.datetime):
        return ["dt", value.isoformat()]
    if isinstance(value, datetime.date):
        return ["date", value.isoformat()]
    if isinstance(value, datetime.time):
        return ["time", value.isoformat()]
    if isinstance(value, datetime.timedelta):
        return ["td", value.days, value.seconds, value.microseconds]
    if isinstance(value, uuid.UUID):
        return ["uuid", value.hex]
    if isinstance(value, pathlib.PurePath):
        return ["path", str(value)]
    return _NOT_SCALAR


def _scalar_from(tag: str, rest: list[Any]) -> Any:
    value = rest[0]
    if tag == "i":
        return int(_text(value, 1 << 16), 16)
    if tag == "B":
        return base64.b64decode(_text(value, 1 << 24), validate=True)
    if tag == "BA":
        return bytearray(base64.b64decode(_text(value, 1 << 24), validate=True))
    if tag == "C":
        return complex(float(value), float(rest[1]))
    makers: dict[str, Callable[[str], Any]] = {
        "dec": decimal.Decimal,
        "frac": fractions.Fraction,
        "dt": datetime.datetime.fromisoformat,
        "date": datetime.date.fromisoformat,
        "time": datetime.time.fromisoformat,
        "uuid": lambda h: uuid.UUID(hex=h),
        "path": pathlib.Path,
    }
    if tag in makers:
        return makers[tag](_text(value, 1 << 12))
    if tag == "td":
        return datetime.timedelta(days=int(value), seconds=int(rest[1]), microseconds=int(rest[2]))
    raise ChannelError(f"it sent a value of a kind skill-be does not know ({tag[:20]})")


_CONTAINERS: dict[str, Callable[[list[Any]], Any]] = {"L": list, "T": tuple, "S": set, "F": frozenset}


def _inside(path: str, root: str) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip("/") + "/")


def _list(x: Any) -> list[Any]:
    if not isinstance(x, list):
        raise ChannelError("it sent a value that is not one")
    return x


def _text(x: Any, limit: int = NAME_MAX) -> str:
    if not isinstance(x, str):
        raise ChannelError("it sent a name that is not text")
    return x[:limit]
