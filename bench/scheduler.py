"""Scheduler benchmark: `skill-be run` on a plan of 300+ calls with a scripted model of fixed latency.

For each concurrency asked (`--concurrency 1,4,8`), prints the wall time (the median of `--runs`),
the plan's ideal time (the critical-path bound at that concurrency, computed from the same plan), their
ratio, the ratio once the command's fixed cost (a one-call run) is taken out (target <= 1.05), and the
overhead per call ((wall - ideal) / calls, with and without the fixed cost; target <= 2.5 ms at
concurrency 8), and the same plan's spawns made by bare threads at that concurrency (what the
machine itself gives under its present load, since a loaded machine slows the scripts as well as
skill-be); then the command adapter's own overhead over spawning the same script directly, one
call at a time. Run by hand: python bench/scheduler.py --concurrency 1,4,8 --runs 3
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
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


def floor_seconds(root: Path, generations: int, gradings: int, concurrency: int) -> float:
    """The same plan's spawns with no skill-be at all: `concurrency` threads, each taking the next call
    from one queue (gradings before generations, as skill-be orders them) and spawning its script.
    What this machine can do at that concurrency (its cores, its load), for comparison."""
    import heapq
    import threading

    todo: list[tuple[int, int, str]] = [(1, i, "model.sh") for i in range(generations)]
    lock = threading.Lock()
    seq = itertools.count(generations)

    def worker() -> None:
        while True:
            with lock:
                if not todo:
                    return
                kind, _, script = heapq.heappop(todo)
            subprocess.run(["sh", script], cwd=root, input=b"prompt", capture_output=True, check=True)
            if kind == 1:
                with lock:
                    for _ in range(gradings):
                        heapq.heappush(todo, (0, next(seq), "grader.sh"))

    heapq.heapify(todo)
    t = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return time.perf_counter() - t


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


def run_wall(root: Path) -> float:
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "skill_be", "run"], cwd=root, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"the run failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return wall


def concurrencies(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give numbers separated by commas, e.g. 1,4,8") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: each concurrency must be at least 1")
    return values


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenarios", type=int, default=5)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--gradings", type=int, default=2)
    ap.add_argument(
        "--concurrency", type=concurrencies, default=[8], help="one concurrency or a list, e.g. 1,4,8 (default 8)"
    )
    ap.add_argument("--runs", type=int, default=1, help="timed runs per concurrency; the median is used (default 1)")
    ap.add_argument("--samples", type=int, default=30)
    a = ap.parse_args()
    generations = a.scenarios * a.reps * 2
    calls = generations * (1 + a.gradings)
    fixed = fixed_cost(a.samples // 3 or 1)
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp), a.scenarios, a.reps, a.gradings, 1)
        direct = direct_spawn(Path(tmp), a.samples)
        via = adapter_calls(Path(tmp), a.samples)
    print(
        f"plan: {generations} generations + {generations * a.gradings} gradings = {calls} calls, "
        f"scripted latency {LATENCY:.1f} s ({direct:.3f} s measured per direct spawn)"
    )
    print(
        f"the command's fixed cost (a one-call run of an instant model, median of {a.samples // 3 or 1}): {fixed:.2f} s"
    )
    for c in a.concurrency:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            build(root, a.scenarios, a.reps, a.gradings, c)
            walls, floors = [], []
            for _ in range(a.runs):
                walls.append(run_wall(root))
                floors.append(floor_seconds(root, generations, a.gradings, c))
        wall, floor = statistics.median(walls), statistics.median(floors)
        nominal = ideal_seconds(generations, a.gradings, c, LATENCY)
        ideal = ideal_seconds(generations, a.gradings, c, direct)
        print(f"concurrency {c}: skill-be run wall time {wall:.2f} s (median of {a.runs}: the whole command)")
        print(
            f"  ideal critical-path time at the measured latency: {ideal:.2f} s (at exactly {LATENCY} s: {nominal:.2f} s)"
        )
        print(f"  ratio: {wall / ideal:.3f}; against {LATENCY} s calls: {wall / nominal:.3f}")
        print(f"  without the fixed cost: ratio {(wall - fixed) / ideal:.3f} (target <= 1.05)")
        print(
            f"  the same spawns without skill-be (threads, this machine as loaded now): {floor:.2f} s; "
            f"skill-be without the fixed cost against it: {(wall - fixed) / floor:.3f}"
        )
        print(
            f"  overhead per call, (wall - ideal) / {calls} calls: {(wall - ideal) / calls * 1000:.1f} ms; "
            f"without the fixed cost {(wall - fixed - ideal) / calls * 1000:.1f} ms (target <= 2.5 ms at concurrency 8)"
        )
    print(
        f"one call at a time, median of {a.samples}: direct spawn {direct * 1000:.1f} ms, "
        f"command adapter {via * 1000:.1f} ms, overhead {(via - direct) * 1000:+.1f} ms"
    )


if __name__ == "__main__":
    main()
