"""What the runner's modules share: the protocol lines' writer, the test file's `answer` module, and
the words of a message (cut short, an exception's class and text)."""

from __future__ import annotations

import json
import os
import types
from typing import Any

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
