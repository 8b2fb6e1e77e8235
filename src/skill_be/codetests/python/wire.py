"""The channel's framing: one JSON object per frame, after its length (4 bytes, big-endian).

Both sides read with blocking reads on their file descriptor; a frame longer than MAX_FRAME, a
length that is not followed by its bytes, or bytes that are not a JSON object end the channel:
whatever the other side sent is data to check, never code to run (no pickle anywhere)."""

from __future__ import annotations

import json
import os
import struct
from typing import Any

MAX_FRAME = 8 << 20  # bytes: a value over this does not cross (the huge-value attack)
MAX_DEPTH = 64  # nesting of an encoded value; deeper values cross by reference
HEADER = struct.Struct(">I")
# Requests: k (kind), i (id), t (target), a (args), kw (keyword args), n (name), v (value), dl (seconds
# left of the test, the runner's outermost requests only). Replies: k "ret", i, ok, v | x (exception) |
# timeout. Events: k "ev", e (init, loaded, load-error, bye).
REQUESTS = frozenset(
    {"call", "get", "set", "del", "item", "setitem", "delitem", "len", "iter", "next", "has", "bool", "str", "repr"}
    | {"isinst", "await"}
)


class ChannelError(Exception):
    """The other side broke the channel (a bad frame) or is gone (end of stream)."""


class Gone(ChannelError):
    """The other side's end of the channel closed: its process ended."""


def encode_frame(message: dict[str, Any]) -> bytes:
    data = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=True).encode("utf-8")
    if len(data) > MAX_FRAME:
        raise ValueError(f"a value over {MAX_FRAME >> 20} MiB")
    return HEADER.pack(len(data)) + data


class Reader:
    """Reads frames from a file descriptor. What it read stays in its buffer when a signal handler
    raises during a read (the runner's test timeout), so the next read goes on where it stopped."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = bytearray()

    def _fill(self, n: int) -> None:
        while len(self.buf) < n:
            data = os.read(self.fd, 1 << 16)
            if not data:
                raise Gone("the other side closed the channel")
            self.buf += data

    def read(self) -> dict[str, Any]:
        """The next message; ChannelError when what came is not one."""
        self._fill(HEADER.size)
        (size,) = HEADER.unpack_from(self.buf)
        if size > MAX_FRAME:
            raise ChannelError(f"it sent a value over {MAX_FRAME >> 20} MiB")
        self._fill(HEADER.size + size)
        data = bytes(self.buf[HEADER.size : HEADER.size + size])
        del self.buf[: HEADER.size + size]
        try:
            message = json.loads(data.decode("utf-8"))
        except (ValueError, RecursionError, MemoryError) as e:
            raise ChannelError(f"it sent a frame that is not JSON ({type(e).__name__})") from None
        if not isinstance(message, dict):
            raise ChannelError("it sent a frame that is not an object")
        return message
