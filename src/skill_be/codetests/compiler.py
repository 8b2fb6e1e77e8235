"""A long-lived Node process that transpiles TypeScript with the classic compiler API (no type check).

One process per session: loading TypeScript costs far more than transpiling a file, so the test files,
their helpers and every answer go through the same one."""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from pathlib import Path

from skill_be.codetests.nodefiles import COMPILE, CompileError

__all__ = ["CompileError", "Compiler", "CompilerDied"]


class CompilerDied(Exception):
    """The compiler process is gone; nothing more can be compiled this session."""


@dataclass
class Compiler:
    proc: asyncio.subprocess.Process
    version: str
    lock: asyncio.Lock
    next_id: int = 0

    @classmethod
    async def start(cls, node: str, typescript_dir: Path) -> Compiler:
        proc = await asyncio.create_subprocess_exec(
            node,
            str(COMPILE),
            str(typescript_dir),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=64 * 1024 * 1024,
        )
        compiler = cls(proc=proc, version="", lock=asyncio.Lock())
        first = await compiler._read_line()
        ready = json.loads(first)
        compiler.version = str(ready.get("ready", ""))
        return compiler

    async def _read_line(self) -> str:
        assert self.proc.stdout is not None
        line = await self.proc.stdout.readline()
        if not line:
            err = b""
            if self.proc.stderr is not None:
                err = await self.proc.stderr.read(4000)
            detail = " ".join(err.decode("utf-8", "replace").split())[-400:] or "no message"
            raise CompilerDied(f"the TypeScript compiler process stopped ({detail})")
        return line.decode("utf-8")

    async def transpile(self, file_name: str, source: str) -> str:
        """The module's JavaScript; CompileError when the source does not parse."""
        async with self.lock:
            self.next_id += 1
            request = json.dumps({"id": self.next_id, "fileName": file_name, "source": source}) + "\n"
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.write(request.encode("utf-8"))
                await self.proc.stdin.drain()
            except (BrokenPipeError, ConnectionResetError) as e:
                raise CompilerDied(f"the TypeScript compiler process stopped ({e})") from None
            reply = json.loads(await self._read_line())
        if "error" in reply:
            raise CompileError(str(reply["error"]))
        return str(reply["code"])

    async def close(self) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            await self.proc.wait()
