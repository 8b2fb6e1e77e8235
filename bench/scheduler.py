"""Scheduler benchmark: `skill-be run` on a plan of 300+ calls with a scripted model of fixed latency.

Prints the wall time, the plan's ideal time (the critical-path bound at the configured concurrency,
computed from the same plan) and their ratio (target <= 1.05), then the per-call overhead of the
command adapter over spawning the same script directly. Run by hand: python bench/scheduler.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LATENCY = 0.2
MODEL = f"cat >/dev/null\nsleep {LATENCY}\necho allocate\n"
GRADER = f"cat >/dev/null\nsleep {LATENCY}\nprintf 'VERDICTS:\\n1: YES\\n'\n"


def build(root: Path, scenarios: int, reps: int, gradings: int, concurrency: int) -> None:
    (root / "skills" / "bench").mkdir(parents=True)
    (root / "evals").mkdir()
    (root / "skills" / "bench" / "SKILL.md").write_text("---\nname: bench\n---\nUse allocate.\n")
    evals = {
        "scenarios": [{"id": f"s{i}", "prompt": f"Task {i}.", "criteria": ["Uses allocate"]} for i in range(scenarios)]
    }
    (root / "evals" / "bench.json").write_text(json.dumps(evals))
    (root / "model.sh").write_text(MODEL)
    (root / "grader.sh").write_text(GRADER)
    (root / "skill-be.yaml").write_text(
        "skills: ./skills\nevals: ./evals\n"
        "model: {adapter: command, id: m, run: sh model.sh}\n"
        "grader: {adapter: command, id: g, run: sh grader.sh}\n"
        f"reps: {reps}\ngradings: {gradings}\nconcurrency: {concurrency}\n"
        "checks: {typecheck: false}\n"
    )


def ideal_seconds(generations: int, gradings: int, concurrency: int, latency: float) -> float:
    """The shortest possible schedule of the plan: every call takes `latency`, at most `concurrency`
    run at once (so at least ceil(calls / concurrency) rounds), and an output's gradings start only
    after it exists (a chain of two calls). For this plan, highest-level-first reaches the bound."""
    calls = generations * (1 + gradings)
    return max(math.ceil(calls / concurrency), 2 if gradings else 1) * latency


def fixed_cost(n: int) -> float:
    """What a run costs besides its calls: start-up (Python, asyncio), loading, files, reports."""
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build(root, 1, 1, 1, 1)
        (root / "model.sh").write_text("cat >/dev/null\necho allocate\n")
        (root / "grader.sh").write_text("cat >/dev/null\nprintf 'VERDICTS:\\n1: YES\\n'\n")
        for _ in range(n):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "skill_be", "run"], cwd=root, capture_output=True, check=True)
            times.append(time.perf_counter() - t)
    return statistics.median(times)


def direct_spawn(root: Path, n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(["sh", "model.sh"], cwd=root, input=b"prompt", capture_output=True, check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def adapter_calls(root: Path, n: int) -> float:
    from skill_be.adapters.base import CallContext
    from skill_be.adapters.command import CommandAdapter
    from skill_be.adapters.registry import AdapterEnv
    from skill_be.project.config import AdapterEntry
    from skill_be.project.where import Where

    entry = AdapterEntry("command", "m", {"adapter": "command", "id": "m", "run": "sh model.sh"}, Where("bench"))
    import os

    adapter = CommandAdapter(entry, AdapterEnv(root=root, environ=dict(os.environ)))
    ctx = CallContext(timeout_seconds=60, cwd=root)

    async def main() -> list[float]:
        out = []
        for _ in range(n):
            t = time.perf_counter()
            await adapter.complete("prompt", ctx)
            out.append(time.perf_counter() - t)
        return out

    return statistics.median(asyncio.run(main()))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenarios", type=int, default=5)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--gradings", type=int, default=2)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--samples", type=int, default=30)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build(root, a.scenarios, a.reps, a.gradings, a.concurrency)
        generations = a.scenarios * a.reps * 2
        calls = generations * (1 + a.gradings)
        t = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "skill_be", "run"], cwd=root, capture_output=True, text=True)
        wall = time.perf_counter() - t
        if p.returncode != 0:
            sys.exit(f"the run failed ({p.returncode}):\n{p.stderr[-2000:]}")
        fixed = fixed_cost(a.samples // 3 or 1)
        direct = direct_spawn(root, a.samples)
        via = adapter_calls(root, a.samples)
        nominal = ideal_seconds(generations, a.gradings, a.concurrency, LATENCY)
        ideal = ideal_seconds(generations, a.gradings, a.concurrency, direct)
        print(
            f"plan: {generations} generations + {generations * a.gradings} gradings = {calls} calls, "
            f"concurrency {a.concurrency}, scripted latency {LATENCY:.1f} s ({direct:.3f} s measured per direct spawn)"
        )
        print(f"skill-be run wall time: {wall:.2f} s (the whole command: start-up, files, reports)")
        print(
            f"ideal critical-path time at the measured latency: {ideal:.2f} s (at exactly {LATENCY} s: {nominal:.2f} s)"
        )
        print(f"ratio: {wall / ideal:.3f} (target <= 1.05); against {LATENCY} s calls: {wall / nominal:.3f}")
        print(
            f"the command's fixed cost (a one-call run of an instant model, median): {fixed:.2f} s; "
            f"without it the ratio is {(wall - fixed) / ideal:.3f}"
        )
        print(
            f"per call, median of {a.samples}: direct spawn {direct * 1000:.1f} ms, "
            f"command adapter {via * 1000:.1f} ms, overhead {(via - direct) * 1000:+.1f} ms"
        )


if __name__ == "__main__":
    main()
