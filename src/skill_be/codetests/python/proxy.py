"""The proxy of an object of the other side: every operation is a request to its owner.

Equality and hashing are this side's own, by identity (the other side's `__eq__` and `__hash__` never
decide anything here: compare what its attributes, calls and items give, which cross as data); a
proxy cannot be pickled or copied. `repr()` shows the owner's text, cut short (the owner's
words: data, like every message)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

REPR_MAX = 200
SLOTS = frozenset({"_skb_ep", "_skb_id", "_skb_kind", "_skb_name"})


class Requester(Protocol):
    def request(self, kind: str, target: Proxy, **fields: Any) -> Any: ...


class Proxy:
    __slots__ = ("__weakref__", "_skb_ep", "_skb_id", "_skb_kind", "_skb_name")
    _skb_ep: Requester
    _skb_id: int
    _skb_kind: str
    _skb_name: str

    def __init__(self, ep: Requester, ref: int, kind: str, name: str) -> None:
        object.__setattr__(self, "_skb_ep", ep)
        object.__setattr__(self, "_skb_id", ref)
        object.__setattr__(self, "_skb_kind", kind)
        object.__setattr__(self, "_skb_name", name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._skb_ep.request("call", self, a=args, kw=kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self._skb_ep.request("get", self, n=name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in SLOTS:
            raise AttributeError(f"{name} is the proxy's own")
        self._skb_ep.request("set", self, n=name, v=value)

    def __delattr__(self, name: str) -> None:
        self._skb_ep.request("del", self, n=name)

    def __getitem__(self, key: Any) -> Any:
        return self._skb_ep.request("item", self, v=key)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._skb_ep.request("setitem", self, v=[key, value])

    def __delitem__(self, key: Any) -> None:
        self._skb_ep.request("delitem", self, v=key)

    def __len__(self) -> int:
        n = self._skb_ep.request("len", self)
        if type(n) is not int or n < 0:
            raise TypeError("len() of the other side's object is not a count")
        return n

    def __iter__(self) -> Iterator[Any]:
        it = self._skb_ep.request("iter", self)
        return it if isinstance(it, Proxy) else iter(it)

    def __next__(self) -> Any:
        return self._skb_ep.request("next", self)

    def __contains__(self, item: Any) -> bool:
        return self._skb_ep.request("has", self, v=item) is True

    def __bool__(self) -> bool:
        return self._skb_ep.request("bool", self) is True

    def __str__(self) -> str:
        text = self._skb_ep.request("str", self)
        return text if type(text) is str else ""

    def __repr__(self) -> str:
        try:
            text = self._skb_ep.request("repr", self)
        except BaseException:
            text = None
        if type(text) is not str:
            return f"<the answer's {self._skb_name}>"
        return text if len(text) <= REPR_MAX else text[:REPR_MAX] + "..."

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    def __hash__(self) -> int:
        return object.__hash__(self)

    def __instancecheck__(self, instance: Any) -> bool:
        return self._skb_ep.request("isinst", self, v=instance) is True

    def __reduce_ex__(self, protocol: object) -> Any:
        raise TypeError("a proxy of the other side's object cannot be pickled or copied")

    def __copy__(self) -> Any:
        raise TypeError("a proxy of the other side's object cannot be copied")

    def __deepcopy__(self, memo: object) -> Any:
        raise TypeError("a proxy of the other side's object cannot be copied")

    def __await__(self) -> Any:
        return self._skb_ep.request("await", self)
        yield  # a generator: `await proxy` gets the value without a step of the loop


def proxy_id(value: object, ep: object) -> int | None:
    """The owner's id of `value` when it is a proxy of `ep`'s peer."""
    if type(value) is Proxy and object.__getattribute__(value, "_skb_ep") is ep:
        ref: int = object.__getattribute__(value, "_skb_id")
        return ref
    return None
