"""The `command` adapter: any program that reads the prompt on stdin and prints the answer."""

from __future__ import annotations

from collections.abc import Mapping

from skill_be.adapters.base import AdapterEnv, AdapterStartError, Answer, CallContext, CallError
from skill_be.proc import StartFailed, resolve_executable, run_process, split_words, tail
from skill_be.project.adapter_check import check_settings
from skill_be.project.config import AdapterEntry


class CommandAdapter:
    def __init__(self, entry: AdapterEntry, env: AdapterEnv) -> None:
        check_settings(entry)  # run is there and splits (project/adapter_settings.py)
        self.entry = entry
        self.env = env
        self.label = env.label or entry.id
        self.argv = split_words(str(entry.settings["run"]))
        self._exe: str | None = None  # argv[0] as found on the first call

    def _start_error(self, why: str) -> AdapterStartError:
        return AdapterStartError(
            f'{self.entry.where.file}: {self.entry.where.path}.run: cannot start "{self.argv[0]}" ({why}); '
            "install it, or fix the command line (it runs without a shell, in the config's directory)"
        )

    async def preflight(self) -> None:
        if resolve_executable(self.argv[0], self.env.root, self.env.environ.get("PATH")) is None:
            raise self._start_error("not found" if "/" not in self.argv[0] else "no such executable file")

    def _resolve(self) -> str | None:
        return resolve_executable(self.argv[0], self.env.root, self.env.environ.get("PATH"))

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        # Looked up once (a PATH walk or a stat per call showed in profiles), again only when it fails.
        exe = self._exe or self._resolve()
        if exe is None:
            raise self._start_error("not found")
        self._exe = exe
        try:
            result = await run_process(
                [exe, *self.argv[1:]], stdin=prompt.encode("utf-8"), cwd=ctx.cwd, env=self.env.environ
            )
        except StartFailed as e:
            self._exe = None
            raise self._start_error("not found" if self._resolve() is None else str(e)) from None
        if result.returncode != 0:
            detail = tail(result.stderr) or tail(result.stdout)
            raise CallError(f"exit code {result.returncode}" + (f": {detail}" if detail else ""))
        text = result.stdout.decode("utf-8", errors="replace").strip()
        if not text:
            raise CallError("the command printed nothing on stdout")
        meta: dict[str, object] = {"truncated": True} if result.truncated else {}
        return Answer(text=text, meta=meta)

    def describe(self) -> Mapping[str, object]:
        return {"adapter": "command", "id": self.entry.id}


def create(entry: AdapterEntry, env: AdapterEnv) -> CommandAdapter:
    return CommandAdapter(entry, env)
