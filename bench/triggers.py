"""Trigger calls through the engine against a scripted server that takes a fixed time per call: the
wall time against the ideal (calls / concurrency x delay), printed as a ratio (target: within 1.1x).

    python bench/triggers.py [--calls 200] [--delay 0.2] [--concurrency 8] [--adapter anthropic|openai]

The server (tests/support/mock_model_server.py) reads the offered tools and calls the skill's tool on
queries that contain "time"; the run goes through Engine.call (limiter, timeout), the adapter's
`choose` and the scoring, as `run` drives it."""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from _shared import load_support  # bench/_shared.py (this folder is on sys.path when a benchmark runs)

from skill_be.adapters.choice import Offered
from skill_be.adapters.credentials import Redactor
from skill_be.adapters.registry import AdapterEnv, AdapterRegistry
from skill_be.engine.limiter import PriorityLimiter
from skill_be.engine.runner import Engine, Model, Settings
from skill_be.engine.triggers import TriggerPlan, trigger_result
from skill_be.project.config import AdapterEntry, GateConfig
from skill_be.project.triggers import SHOULD, SHOULD_NOT, TriggerQuery
from skill_be.project.where import Where

QUERIES = 20  # reps = calls / QUERIES


def load_mock() -> Any:
    return load_support("mock_model_server")


def plan(calls: int) -> TriggerPlan:
    queries = tuple(
        TriggerQuery(f"query {i}: " + ("how much time is left" if i % 2 else "the capital of Egypt"),
                     SHOULD if i % 2 else SHOULD_NOT, ("triggers", "should" if i % 2 else "shouldNot", i))
        for i in range(QUERIES)
    )  # fmt: skip
    offered = (Offered("duration", "Use for lengths of time."), Offered("money", "Use for amounts of money."))
    return TriggerPlan("duration", offered, queries, max(1, calls // QUERIES))


async def measure(base_url: str, adapter: str, calls: int, concurrency: int, work: Path) -> tuple[float, int]:
    url = base_url + ("/v1" if adapter == "openai" else "")
    settings = {"adapter": adapter, "id": "bench", "baseUrl": url, "apiKeyEnv": "BENCH_KEY"}
    entry = AdapterEntry(adapter, "bench", settings, Where("bench", "model"))
    env = AdapterEnv(root=work, environ={**os.environ, "BENCH_KEY": "sk-bench"}, redactor=Redactor())
    model = Model("bench", AdapterRegistry().create(entry, env))
    engine_settings = Settings(3, 1, 60, work, "{{skill}} {{task}}", None, GateConfig())
    engine = Engine([model], None, PriorityLimiter(concurrency), engine_settings)
    p = plan(calls)
    start, cpu = time.perf_counter(), time.process_time()
    result = await trigger_result(engine, p, 0)
    seconds = time.perf_counter() - start
    print(f"  this process's CPU: {(time.process_time() - cpu) * 1000 / len(result.observations):.1f} ms per call")
    assert result.errors == 0, [o.error for o in result.observations if o.error][:3]
    assert result.models[0].recall.estimate == 1.0 and result.models[0].false_trigger.estimate == 0.0
    return seconds, len(result.observations)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--delay", type=float, default=0.2, help="the server's seconds per call")
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--adapter", choices=("anthropic", "openai"), default="anthropic")
    args = ap.parse_args()
    mock = load_mock()
    with tempfile.TemporaryDirectory() as tmp:
        server = mock.MockServer(tmp, netns=False)
        try:
            rule = {"when": "time", "call": "duration"}
            server.script(default={"kind": "tools", "rules": [rule], "delay": args.delay})
            seconds, n = asyncio.run(measure(server.base_url, args.adapter, args.calls, args.concurrency, Path(tmp)))
        finally:
            server.stop()
    ideal = n / args.concurrency * args.delay
    print(f"{n} trigger calls ({args.adapter}) at concurrency {args.concurrency}, {args.delay:g} s per call")
    print(f"  load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (a loaded machine adds its wait)")
    print(f"  wall {seconds:.2f} s, ideal {ideal:.2f} s: {seconds / ideal:.3f}x the ideal (target: at most 1.1x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
