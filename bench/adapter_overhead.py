"""How much time each adapter adds to a call, over invoking the same CLI (or HTTP request) directly with
the same flags and environment, against the mock model server, in the same run.

    python bench/adapter_overhead.py [--calls 10] [--opencode-calls 5] [--http-calls 50] [--only claude-cli,...]

Calls alternate adapter / direct so drift hits both sides alike. Prints the median of each, and the
difference (target: at most 10 ms). Needs the CLIs on PATH (.ci/steps/30-agent-clis.sh, then .ci/env)."""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from _shared import load_support  # bench/_shared.py (this folder is on sys.path when a benchmark runs)

from skill_be.adapters.base import CallContext
from skill_be.adapters.credentials import Redactor
from skill_be.adapters.registry import AdapterEnv, AdapterRegistry
from skill_be.proc import run_process
from skill_be.project.config import AdapterEntry
from skill_be.project.where import Where

KEY = "sk-bench-key"
PROMPT = "Say hello."


def load_mock() -> Any:
    return load_support("mock_model_server")


def adapter(name: str, work: Path, **settings: object) -> Any:
    entry = AdapterEntry(
        name, "bench-model", {"adapter": name, "id": "bench-model", **settings}, Where("bench", "model")
    )
    environ = {**os.environ, "HOME": str(work / "home"), "TMPDIR": str(work / "tmp"), "BENCH_KEY": KEY}
    return AdapterRegistry().create(entry, AdapterEnv(root=work, environ=environ, redactor=Redactor()))


async def timed(fn: Callable[[], Awaitable[object]]) -> float:
    start = time.perf_counter()
    await fn()
    return time.perf_counter() - start


async def compare(
    label: str, n: int, via_adapter: Callable[[], Awaitable[object]], direct: Callable[[], Awaitable[object]]
) -> None:
    await via_adapter()  # warm both paths once (page cache, first-start work of each CLI)
    await direct()
    a: list[float] = []
    d: list[float] = []
    for _ in range(n):
        a.append(await timed(via_adapter))
        d.append(await timed(direct))
    ma, md = statistics.median(a), statistics.median(d)
    print(
        f"{label:<14} n={n:<3} adapter {ma * 1000:9.1f} ms   direct {md * 1000:9.1f} ms   overhead {(ma - md) * 1000:+8.1f} ms"
    )


def direct_cli(argv: list[str], env: dict[str, str], cwd: Path) -> Callable[[], Awaitable[object]]:
    async def run() -> object:
        result = await run_process(argv, stdin=PROMPT.encode(), cwd=cwd, env=env)
        if result.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed: {result.stderr[-300:]!r}")
        return result

    return run


STUB_OUTPUT = {
    "claude": '{"type":"result","is_error":false,"result":"stub answer","usage":{"input_tokens":1,"output_tokens":1}}',
    "pi": '{"type":"agent_end","messages":[{"role":"assistant","content":[{"type":"text","text":"stub answer"}],'
    '"stopReason":"stop","usage":{"input":1,"output":1}}]}',
    "opencode": '{"type":"text","part":{"text":"stub answer"}}\n{"type":"step_finish","part":{"tokens":{"input":1,"output":1}}}',
}
PI_HELP = (
    "--provider --model --thinking --no-tools --no-session --system-prompt --append-system-prompt --mode --offline"
)


async def stub_rows(work: Path, n: int, ctx: CallContext) -> None:
    """The adapters' own cost, without the CLIs' noise: each CLI replaced by a script that prints a
    canned answer, run through the adapter and directly with the same argv and environment."""
    for name, out in STUB_OUTPUT.items():
        stub = work / f"stub-{name}"
        stub.write_text(f"#!/bin/sh\n[ \"$1\" = --help ] && echo '{PI_HELP}' && exit 0\ncat >/dev/null\necho '{out}'\n")
        stub.chmod(0o755)
        label = f"{name}-cli stub"
        if name == "claude":
            a = adapter("claude-cli", work, bin=str(stub))
            argv, env = a.argv(str(stub)), a.environment(None)
        elif name == "pi":
            a = adapter("pi-cli", work, bin=str(stub), provider="p")
            argv = a.argv(str(stub), await a.supported_flags(), None)
            env = {**a.env.environ, "PI_CODING_AGENT_DIR": str(a.agent_dir(None)), "PI_OFFLINE": "1"}
        else:
            a = adapter("opencode-cli", work, bin=str(stub), provider="p")
            base = work / "stub-oc"
            (base / "work").mkdir(parents=True)
            argv, env = a.argv(str(stub), base / "work"), a.environment(base, None)
        await compare(label, n, lambda a=a: a.complete(PROMPT, ctx), direct_cli(argv, env, work / "direct"))


async def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--opencode-calls", type=int, default=5)
    ap.add_argument("--http-calls", type=int, default=50)
    ap.add_argument("--stub-calls", type=int, default=50)
    ap.add_argument("--only", default="claude-cli,pi-cli,opencode-cli,anthropic,openai,stubs")
    args = ap.parse_args()
    only = set(args.only.split(","))
    mms = load_mock()
    work = Path(tempfile.mkdtemp(prefix="skill-be-bench-"))
    for d in ("home", "tmp", "direct"):
        (work / d).mkdir()
    mock = mms.MockServer(str(work), netns=False)
    ctx = CallContext(timeout_seconds=120, cwd=work)
    try:
        if "claude-cli" in only:
            a = adapter("claude-cli", work, baseUrl=mock.base_url, apiKeyEnv="BENCH_KEY")
            argv, env = a.argv(a.executable()), a.environment(KEY)
            await compare(
                "claude-cli", args.calls, lambda: a.complete(PROMPT, ctx), direct_cli(argv, env, work / "direct")
            )
        if "pi-cli" in only:
            a = adapter(
                "pi-cli", work, provider="mock", baseUrl=mock.base_url, api="anthropic-messages", apiKeyEnv="BENCH_KEY"
            )
            flags = await a.supported_flags()
            env = {**a.env.environ, "PI_CODING_AGENT_DIR": str(a.agent_dir(KEY)), "PI_OFFLINE": "1"}
            argv = a.argv(a.executable(), flags, KEY)
            await compare("pi-cli", args.calls, lambda: a.complete(PROMPT, ctx), direct_cli(argv, env, work / "direct"))
        if "opencode-cli" in only:
            a = adapter("opencode-cli", work, provider="mock", baseUrl=mock.base_url + "/v1", apiKeyEnv="BENCH_KEY")
            base = work / "oc-direct"
            (base / "work").mkdir(parents=True)
            env = a.environment(base, KEY)
            argv = a.argv(a.executable(), base / "work")
            await compare(
                "opencode-cli",
                args.opencode_calls,
                lambda: a.complete(PROMPT, ctx),
                direct_cli(argv, env, base / "work"),
            )
        if "stubs" in only:
            await stub_rows(work, args.stub_calls, ctx)
        import httpx

        async with httpx.AsyncClient() as client:
            if "anthropic" in only:
                a = adapter("anthropic", work, baseUrl=mock.base_url, apiKeyEnv="BENCH_KEY")
                body = {"model": "bench-model", "max_tokens": 8192, "messages": [{"role": "user", "content": PROMPT}]}
                headers = {"x-api-key": KEY, "anthropic-version": "2023-06-01"}

                async def raw_anthropic() -> object:
                    return (await client.post(mock.base_url + "/v1/messages", json=body, headers=headers)).json()

                await compare("anthropic", args.http_calls, lambda: a.complete(PROMPT, ctx), raw_anthropic)
            if "openai" in only:
                a = adapter("openai", work, baseUrl=mock.base_url + "/v1", apiKeyEnv="BENCH_KEY")
                obody = {"model": "bench-model", "messages": [{"role": "user", "content": PROMPT}]}

                async def raw_openai() -> object:
                    url = mock.base_url + "/v1/chat/completions"
                    return (await client.post(url, json=obody, headers={"authorization": f"Bearer {KEY}"})).json()

                await compare("openai", args.http_calls, lambda: a.complete(PROMPT, ctx), raw_openai)
        print("(direct HTTP reuses one client and its connection; the adapters open a client per call)")
    finally:
        mock.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
