"""Cost-and-scale benchmark: the response cache's overhead and a fully cached rerun of the scheduler's plan.

1. A cache hit against no call at all: the engine's call path with the cache answering, against the
   same path with a model that answers at once (target: at most 2 ms more per call).
2. The 300-call plan of bench/scheduler.py (0.2 s per call, concurrency 8) run once with --cache, then
   again: the rerun against the command's fixed start-up, a one-call run of an instant model (target:
   within 0.5 s of it).

Run by hand: python bench/cache_and_shards.py
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import scheduler  # bench/scheduler.py: the plan and the fixed-cost measure


def hit_overhead(n: int) -> tuple[float, float]:
    """Median seconds per call: (a cache hit, an instant model without the cache)."""
    from skill_be.adapters.base import Answer, CallContext
    from skill_be.engine.cache import CachedCalls, ResponseCache, generation_key
    from skill_be.engine.limiter import PriorityLimiter
    from skill_be.engine.runner import CallTag, Engine, Model, Settings
    from skill_be.project.config import GateConfig

    class Instant:
        label = "m"

        async def preflight(self) -> None: ...

        async def complete(self, prompt: str, ctx: CallContext) -> Answer:
            return Answer("allocate " * 200)

        def describe(self) -> dict[str, object]:
            return {}

    with tempfile.TemporaryDirectory() as tmp:
        model = Model("m", Instant())
        settings = Settings(1, 1, 60, Path(tmp), "{{skill}}{{task}}", None, GateConfig())
        prompt = "You have access to the following library.\n" + "Use allocate(amount, ratios).\n" * 200
        bare = Engine([model], None, PriorityLimiter(8), settings)
        cached = Engine([model], None, PriorityLimiter(8), settings)
        cache = ResponseCache.open(Path(tmp) / "cache", print)
        cached.cache = CachedCalls(cache, {id(model.adapter): "bench-model"}, ["bench"])
        for rep in range(1, n + 1):
            cache.put(generation_key("bench-model", prompt, "baseline", rep), Answer("allocate " * 200))

        async def timed(engine: Engine) -> list[float]:
            out = []
            for rep in range(1, n + 1):
                t = time.perf_counter()
                call = await engine.call(model, prompt, (0, 1, rep), CallTag("generate", "s", rep, "baseline"))
                out.append(time.perf_counter() - t)
                assert call.answer is not None
            return out

        hits = asyncio.run(timed(cached))
        assert cache.counts()["cached"] == n, "every call must have been a hit"
        plain = asyncio.run(timed(bare))
    return statistics.median(hits), statistics.median(plain)


def cached_rerun(samples: int) -> tuple[float, float, float]:
    """(first run, fully cached rerun (median), the command's fixed cost (median)) in seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        scheduler.build(root, scenarios=5, reps=10, gradings=2, concurrency=8)
        cmd = [sys.executable, "-m", "skill_be", "run", "--cache"]
        t = time.perf_counter()
        subprocess.run(cmd, cwd=root, capture_output=True, check=True)
        first = time.perf_counter() - t
        reruns = []
        for _ in range(samples):
            t = time.perf_counter()
            p = subprocess.run(cmd, cwd=root, capture_output=True, text=True, check=True)
            reruns.append(time.perf_counter() - t)
            assert "Response cache: 300 of 300 model calls came from the cache." in p.stdout, p.stdout[-500:]
    return first, statistics.median(reruns), scheduler.fixed_cost(samples)


def main() -> None:
    hit, plain = hit_overhead(300)
    print(
        f"cache hit: {hit * 1000:.3f} ms per call; an instant model without the cache: {plain * 1000:.3f} ms; "
        f"overhead {(hit - plain) * 1000:+.3f} ms (target <= 2 ms)"
    )
    first, rerun, fixed = cached_rerun(5)
    print(
        f"300-call plan (0.2 s calls, concurrency 8): first run {first:.2f} s; fully cached rerun {rerun:.2f} s "
        f"(median of 5); fixed start-up (a one-call run of an instant model) {fixed:.2f} s; "
        f"rerun - fixed = {rerun - fixed:+.2f} s (target <= 0.5 s); rerun / first = {rerun / first:.3f}"
    )


if __name__ == "__main__":
    main()
