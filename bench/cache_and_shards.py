"""Cost-and-scale benchmark: the response cache's overhead and a fully cached rerun of the scheduler's plan.

1. A cache hit against no call at all: the engine's call path with the cache answering, against the
   same path with a model that answers at once (target: at most 2 ms more per call).
2. The 300-call plan of bench/scheduler.py (0.2 s per call, concurrency 8) run once with --cache, then
   again: the rerun against the command's fixed start-up, a one-call run of an instant model (target:
   within 0.5 s of it).
3. The same plan unsharded, then as 4 shards one after another (as 4 CI jobs would run them side by
   side): each shard's wall time against the unsharded run's (target: each at most 0.3x), and `merge`
   of the 4 (target: under 0.5 s; also shown without the bare start-up of `skill-be --version`).

Run by hand: python bench/cache_and_shards.py
"""

from __future__ import annotations

import asyncio
import resource
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
    from skill_be.engine.cache import CachedCalls, generation_key
    from skill_be.engine.limiter import PriorityLimiter
    from skill_be.engine.runner import CallTag, Engine, Model, Settings
    from skill_be.project.config import GateConfig
    from skill_be.results.response_cache import ResponseCache

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
        cache = ResponseCache.open(Path(tmp) / "cache", print)
        hook = CachedCalls(cache, {id(model.adapter): "bench-model"})
        cached = Engine([model], None, PriorityLimiter(8), settings, hook=hook)
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


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed_run(root: Path, *args: str) -> tuple[float, str]:
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "skill_be", *args], cwd=root, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if p.returncode not in (0, 1):
        sys.exit(f"skill-be {' '.join(args)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return wall, p.stdout


def shards(n: int) -> tuple[float, list[float], float, float, float]:
    """(unsharded wall, each shard's wall, merge wall, merge CPU, bare start-up) in seconds. CPU time
    (user + system) is shown beside the wall time: on a shared machine the wall time waits for others."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        scheduler.build(root, scenarios=5, reps=10, gradings=2, concurrency=8)
        whole, _ = timed_run(root, "run")
        results = root / ".skill-be" / "results"
        walls, dirs = [], []
        for k in range(1, n + 1):
            before = set(results.iterdir())
            wall, out = timed_run(root, "run", "--shard", f"{k}/{n}")
            assert f"Shard {k}/{n} finished" in out, out[-500:]
            walls.append(wall)
            (new,) = set(results.iterdir()) - before
            dirs.append(str(new))
        cpu = child_cpu()
        merges = [timed_run(root, "merge", *dirs)[0] for _ in range(5)]
        merge_cpu = (child_cpu() - cpu) / 5
        bare = []
        for _ in range(5):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "skill_be", "--version"], capture_output=True, check=True)
            bare.append(time.perf_counter() - t)
    return whole, walls, statistics.median(merges), merge_cpu, statistics.median(bare)


def main() -> None:
    import argparse

    argparse.ArgumentParser(
        description="The response cache's hit cost, a fully cached rerun of the 300-call plan, and 4 shards "
        "plus merge against the unsharded run (about a minute)."
    ).parse_args()
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
    whole, walls, merge, merge_cpu, bare = shards(4)
    ratios = ", ".join(f"{w:.2f} s ({w / whole:.2f}x)" for w in walls)
    print(
        f"4 shards of the 300-call plan: unsharded {whole:.2f} s; each shard {ratios} (target each <= 0.3x); "
        f"merge of the 4: {merge:.2f} s wall (median of 5; target < 0.5 s), {merge_cpu:.2f} s CPU (mean), "
        f"{merge - bare:.2f} s over the bare start-up of skill-be --version ({bare:.2f} s)"
    )


if __name__ == "__main__":
    main()
