"""What the CLI adapters share: their settings read (checked by their models: project/adapter_settings.py),
the binary and how to install it, the credential, per-call temp directories, the child's environment and
running it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill_be.adapters.base import AdapterEnv, AdapterStartError, CallError
from skill_be.adapters.credentials import api_key
from skill_be.proc import LineWatcher, ProcessResult, StartFailed, resolve_executable, run_process, tail
from skill_be.project.adapter_check import check_settings
from skill_be.project.config import AdapterEntry

# The whole instruction a tool-less call gets about tools: without it models write fake tool calls.
NO_TOOLS_NOTE = (
    "No tools are available in this session. Answer directly in your reply; "
    "do not try to call tools, read files or explore a codebase."
)
VERSION_TIMEOUT = 30.0  # seconds `<bin> --version` may take in preflight (a cold start of the 400 MB claude binary took over 10 s in a loaded container)


@dataclass(frozen=True)
class CliSpec:
    name: str  # the adapter's name in the config
    default_bin: str
    package: str  # the npm package that installs the CLI


def url_setting(entry: AdapterEntry, key: str) -> str | None:
    """A URL setting (checked by the entry's model), without its trailing slashes; None when absent."""
    value = entry.settings.get(key)
    return None if value is None else str(value).rstrip("/")


def text_setting(entry: AdapterEntry, key: str, default: str) -> str:
    """A text setting (checked by the entry's model: a word of its choices, for one), or `default`."""
    value = entry.settings.get(key)
    return default if value is None else str(value)


def child_env(base: Mapping[str, str], set_: Mapping[str, str | None], drop: Iterable[str] = ()) -> dict[str, str]:
    """The inherited environment with `drop` removed and `set_` applied (a None value removes)."""
    env = {k: val for k, val in base.items() if k not in set(drop)}
    for k, val in set_.items():
        if val is None:
            env.pop(k, None)
        else:
            env[k] = val
    return env


@contextlib.contextmanager
def call_dir(root: str, prefix: str) -> Iterator[Path]:
    """A fresh, empty directory for one call, removed afterwards whatever happens (a timeout too)."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=root))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def json_events(out: bytes | str) -> Iterator[dict[str, Any]]:
    """The JSON objects of a CLI's JSON-lines output, one a line; any other line is skipped."""
    text = out.decode("utf-8", errors="replace") if isinstance(out, bytes) else out
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            yield event


class CliAdapter:
    """The shared half of a CLI adapter; each subclass builds the argv and reads the answer."""

    spec: CliSpec

    def __init__(self, entry: AdapterEntry, env: AdapterEnv) -> None:
        self.entry = entry
        self.env = env
        self.label = env.label or entry.id
        check_settings(entry)
        self.bin_word = text_setting(entry, "bin", self.spec.default_bin)
        self.base_url = url_setting(entry, "baseUrl")
        # Temp dirs go where the environment says, so a caller (or a test) controls where files land.
        self.temp_root = env.environ.get("TMPDIR") or tempfile.gettempdir()

    # -- credentials and the binary ---------------------------------------------------------------
    def key(self) -> str | None:
        """The key from apiKeyEnv, or None for the CLI's stored login; the CI rule raises ConfigError."""
        key = api_key(self.entry, self.env.environ)
        self.env.redactor.add(key)
        return key

    def credential(self) -> str:
        var = self.entry.settings.get("apiKeyEnv")
        if isinstance(var, str) and self.env.environ.get(var):
            return f"key from {var}"
        return "stored login"

    def _bin_place(self) -> str:
        w = self.entry.where
        where = f"{w.path}.bin" if "bin" in self.entry.settings else w.path
        return f"{w.file}: {where}" if where else w.file

    def start_error(self, why: str) -> AdapterStartError:
        return AdapterStartError(
            self.env.redactor(
                f'{self._bin_place()}: {self.spec.name} cannot start "{self.bin_word}" ({why}); install it with '
                f"`npm install --global {self.spec.package}`, or set bin to the executable's path"
            )
        )

    def executable(self) -> str:
        word = os.path.expanduser(self.bin_word)
        exe = resolve_executable(word, self.env.root, self.env.environ.get("PATH"))
        if exe is None:
            raise self.start_error("not found on PATH" if "/" not in word else "no such executable file")
        return exe

    async def check_starts(self, environ: Mapping[str, str] | None = None, timeout: float = VERSION_TIMEOUT) -> str:
        """`<bin> --version` within a few seconds (with `environ`, else the inherited environment); its
        first line, or AdapterStartError."""
        exe = self.executable()
        env = self.env.environ if environ is None else environ
        try:
            result = await asyncio.wait_for(run_process([exe, "--version"], env=env, cwd=self.env.root), timeout)
        except StartFailed as e:
            raise self.start_error(str(e)) from None
        except TimeoutError:
            raise self.start_error(f"--version gave no answer within {timeout:g} s") from None
        if result.returncode != 0:
            detail = tail(result.stderr) or tail(result.stdout)
            raise self.start_error(f"--version exited with code {result.returncode}: {detail}")
        lines = result.stdout.decode("utf-8", errors="replace").strip().splitlines()
        return lines[0] if lines else ""

    async def preflight(self) -> None:
        await self.preflight_start()
        self.check_settings()

    async def preflight_start(self) -> None:
        """The CLI starts on this machine (`--version`). Skipped where every use of the CLI is in
        skill-be's container (the image's CLI runs there: wiring/assembly.py)."""
        await self.check_starts()

    def check_settings(self) -> None:
        """What preflight checks besides the start: the credentials (the CI rule)."""
        self.key()

    # -- running a call ---------------------------------------------------------------------------
    async def run(
        self, argv: list[str], prompt: str, cwd: Path, env: Mapping[str, str], watch: LineWatcher | None = None
    ) -> ProcessResult:
        try:
            return await run_process(argv, stdin=prompt.encode("utf-8"), cwd=cwd, env=env, watch=watch)
        except StartFailed as e:
            raise self.start_error(str(e)) from None

    def failure(self, what: str, result: ProcessResult | None = None) -> CallError:
        """A CallError with the CLI's own words, keys replaced by ***."""
        detail = ""
        if result is not None:
            detail = tail(result.stderr) or tail(result.stdout)
        text = f"{self.spec.name}: {what}" + (f": {detail}" if detail else "")
        return CallError(self.env.redactor(text))

    def describe_base(self) -> dict[str, object]:
        out: dict[str, object] = {
            "adapter": self.spec.name,
            "id": self.entry.id,
            "bin": self.bin_word,
            "credential": self.credential(),
        }
        if self.base_url:
            out["baseUrl"] = self.base_url
        return out


def token_count(d: Mapping[str, object], key: str) -> int:
    """A token count a CLI's stream reported under `key`: 0 where it is missing or not a count."""
    value = d.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
