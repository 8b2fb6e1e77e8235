"""The Python channel's values: data is copied both ways, the rest crosses by reference, and whatever
the other side sends is decoded as data or refused (never run)."""

from __future__ import annotations

import datetime
import decimal
from collections import namedtuple
from enum import IntEnum
from typing import Any

import pytest

from skill_be.codetests.python.codec import Codec, Record
from skill_be.codetests.python.wire import MAX_FRAME, ChannelError, Reader, encode_frame


class Ref:
    def __init__(self, ref: int, kind: str, name: str) -> None:
        self.ref, self.kind, self.name = ref, kind, name


def pair() -> tuple[Codec, Codec]:
    def codec() -> Codec:
        return Codec(proxy=Ref, peer_id=lambda v: v.ref if isinstance(v, Ref) else None, coroutine=lambda p: p)

    return codec(), codec()


def across(value: Any) -> Any:
    sender, receiver = pair()
    return receiver.dec(sender.enc(value))


class Status(IntEnum):
    CREATED = 201


def test_data_is_copied_as_the_base_types() -> None:
    value = {"a": [1, 2.5, None, True, "x"], (1, 2): {3}, "b": b"\x00", "n": 2**90, "s": Status.CREATED}
    out = across(value)
    assert out == value and type(out["s"]) is int
    assert across(decimal.Decimal("1.10")) == decimal.Decimal("1.10")
    assert across(datetime.date(2026, 1, 2)) == datetime.date(2026, 1, 2)


def test_a_named_tuple_keeps_its_fields() -> None:
    point = namedtuple("Point", "x y")(1, 2)
    out = across(point)
    assert isinstance(out, Record) and out == (1, 2) and out.y == 2


def test_other_objects_cross_by_reference_and_come_back_as_themselves() -> None:
    sender, receiver = pair()

    class Thing:
        pass

    thing = Thing()
    proxy = receiver.dec(sender.enc(thing))
    assert isinstance(proxy, Ref) and proxy.kind == "o"
    assert sender.dec(receiver.enc(proxy)) is thing


def test_cycles_and_deep_nesting_cross_without_recursing_forever() -> None:
    loop: list[Any] = []
    loop.append(loop)
    out = across(loop)
    assert isinstance(out[0], Ref)
    deep: list[Any] = []
    for _ in range(10_000):
        deep = [deep]
    assert across(deep) is not None


def test_an_exception_crosses_as_its_class_arguments_and_attributes() -> None:
    sender, receiver = pair()
    error = KeyError("k")
    error.code = 3  # type: ignore[attr-defined]
    out = receiver.dec(sender.enc(error))
    assert type(out) is KeyError and out.args == ("k",) and out.code == 3
    assert out.__dict__["_skb_from_peer"] is True


@pytest.mark.parametrize(
    "data",
    [["nope", 1], ["R", 99], ["S", [["L", []]]], ["P", "x", "o", "n"], ["XB"], {"a": 1}, ["i", "zz"], ["L", "x"]],
)
def test_what_the_other_side_sends_that_is_no_value_is_refused(data: Any) -> None:
    _, receiver = pair()
    with pytest.raises(ChannelError):
        receiver.dec(data)


def test_a_frame_over_the_limit_is_refused_before_it_is_read(tmp_path: Any) -> None:
    import os

    r, w = os.pipe()
    os.write(w, (MAX_FRAME + 1).to_bytes(4, "big"))
    with pytest.raises(ChannelError, match="over 8 MiB"):
        Reader(r).read()
    os.write(w, encode_frame({"k": "ev"}))
    os.close(w)
    os.close(r)


def test_a_builtin_exception_class_of_the_other_side_is_never_one_that_stops_the_run() -> None:
    _, receiver = pair()
    assert receiver.dec(["XB", "KeyboardInterrupt"]) is Exception
    made = receiver.dec(["XC", 1, "Skipped", "Skipped", "BaseException", "_pytest.outcomes"])
    assert issubclass(made, Exception) and made.__module__ == "answer"
