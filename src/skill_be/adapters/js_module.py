"""A JavaScript adapter module, as in the Node tool: its default export is
`async (prompt, { settings, timeoutMs, cwd }) => string`. Each call runs it in its own Node process."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from skill_be.adapters.base import AdapterEnv, AdapterStartError, Answer, CallContext, CallError
from skill_be.paths import shown
from skill_be.proc import StartFailed, resolve_executable, run_process, tail
from skill_be.project.config import AdapterEntry

SHIM = Path(__file__).parent / "node" / "js_adapter.mjs"
CANNOT_LOAD = 3


class JsModuleAdapter:
    def __init__(self, entry: AdapterEntry, env: AdapterEnv) -> None:
        self.entry = entry
        self.env = env
        self.label = env.label or entry.id
        self.path = (env.root / entry.adapter).resolve()
        self.where = f"{entry.where.file}: {entry.where.path}.adapter"

    def _node(self) -> str:
        node = resolve_executable("node", self.env.root, self.env.environ.get("PATH"))
        if node is None:
            raise AdapterStartError(
                f"{self.where}: {shown(self.path)} is a JavaScript adapter module and needs Node.js 20 or newer; "
                "install it (https://nodejs.org) or write the adapter in Python"
            )
        return node

    async def preflight(self) -> None:
        if not self.path.is_file():
            raise AdapterStartError(f"{self.where}: adapter module {shown(self.path)} does not exist; fix the path")
        try:
            result = await run_process(
                [self._node(), str(SHIM), str(self.path), "--check"], cwd=self.env.root, env=self.env.environ
            )
        except StartFailed as e:
            raise AdapterStartError(f"{self.where}: cannot start node ({e})") from None
        if result.returncode != 0:
            why = tail(result.stderr) or f"exit code {result.returncode}"
            raise AdapterStartError(f"{self.where}: {shown(self.path)} {why}")

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        request = {
            "prompt": prompt,
            "settings": dict(self.entry.settings),
            "timeoutMs": int(ctx.timeout_seconds * 1000),
            "cwd": str(ctx.cwd),
        }
        try:
            result = await run_process(
                [self._node(), str(SHIM), str(self.path)],
                stdin=json.dumps(request).encode("utf-8"),
                cwd=ctx.cwd,
                env=self.env.environ,
            )
        except StartFailed as e:
            raise AdapterStartError(f"{self.where}: cannot start node ({e})") from None
        if result.returncode == CANNOT_LOAD:
            raise AdapterStartError(f"{self.where}: {shown(self.path)} {tail(result.stderr)}")
        if result.returncode != 0:
            raise CallError(f"the adapter's Node process exited with code {result.returncode}: {tail(result.stderr)}")
        try:
            reply = json.loads(result.stdout.decode("utf-8", errors="replace"))
        except json.JSONDecodeError:
            raise CallError(f"the adapter printed something other than its answer: {tail(result.stdout)}") from None
        if "error" in reply:
            raise CallError(str(reply["error"]))
        return Answer(text=str(reply.get("text", "")).strip())

    def describe(self) -> Mapping[str, object]:
        return {"adapter": self.entry.adapter, "id": self.entry.id}


def create(entry: AdapterEntry, env: AdapterEnv) -> JsModuleAdapter:
    return JsModuleAdapter(entry, env)
