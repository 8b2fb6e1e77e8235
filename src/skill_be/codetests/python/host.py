"""The answer's own process: it writes the answer's code to its run folder, imports it as the module
`answer`, and from then on serves the runner's requests on it. It decides nothing; the tests and their
verdicts are in the runner's process (runner.py), out of this one's reach.

    python -I -S -B <harness>/boot.py host [--memory-mb N]

fd 3 reads the runner's frames, fd 4 writes to it (fd 5, the Node harness's second reader, is not
used). Its output is thrown away by whoever starts it. `--memory-mb` caps its data segment
(RLIMIT_DATA), so a memory bomb is a MemoryError in the answer's own code."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import resource
import sys
import types
from typing import Any

from .endpoint import Endpoint

ANSWER_FILE = "answer.py"


class Host:
    def __init__(self) -> None:
        self.started = False
        self.file = ""
        self.ep = Endpoint("answer", 3, 4, on_event=self.on_event, on_gone=lambda _: os._exit(0), where=self.where)

    def on_event(self, msg: dict[str, Any]) -> None:
        if msg.get("e") == "init" and not self.started:
            self.started = True
            self.load(str(msg.get("dir")), str(msg.get("answer")), msg.get("path"))
        elif msg.get("e") == "bye":
            os._exit(0)

    def where(self, exc: BaseException) -> str:
        """The innermost line of the answer's code the exception passed through, for its message."""
        line = None
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.file:
                line = (tb.tb_lineno, tb.tb_frame.f_code.co_name)
            tb = tb.tb_next
        if line is None:
            return ""
        return f"(raised in the answer's code, line {line[0]}, in {line[1]})"

    def load(self, folder: str, code: str, path: object) -> None:
        self.file = os.path.join(folder, ANSWER_FILE)
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            with open(self.file, "w", encoding="utf-8") as f:
                f.write(code)
        except OSError as e:
            self.ep.event("fatal", message=f"the answer could not be written to {folder}: {e.strerror}")
            return
        os.chdir(folder)
        os.environ["HOME"] = os.environ["TMPDIR"] = folder  # it may have started before its folder was known
        extra = [str(p) for p in path] if isinstance(path, list) else []
        sys.path[:] = [folder, *extra, *sys.path]
        self.ep.codec.shared = extra  # the listed packages' exception classes are the tests' own too
        module = self._import()
        if module is None:
            return
        self.ep.event("loaded", module=self.ep.codec.enc(module), result=hasattr(module, "result"))

    def _import(self) -> types.ModuleType | None:
        spec = importlib.util.spec_from_file_location("answer", self.file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["answer"] = module
        try:
            spec.loader.exec_module(module)
        except BaseException as e:
            syntax = isinstance(e, SyntaxError) and e.filename == self.file
            self.ep.event("load-error", syntax=syntax, error=self.ep.codec.enc_exception(e, self.where(e)))
            return None
        return module


def limit_memory(mb: int) -> None:
    if mb > 0:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_DATA, (mb << 20, mb << 20))


def main(argv: list[str]) -> None:
    if "--memory-mb" in argv:
        limit_memory(int(argv[argv.index("--memory-mb") + 1]))
    with contextlib.suppress(OSError):
        os.close(5)
    Host().ep.serve_forever()
