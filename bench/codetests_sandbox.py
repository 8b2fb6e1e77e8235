"""Code tests through the Docker and bwrap sandboxes versus the process runner, in the same run.

    python bench/codetests_sandbox.py [--answers 100] [--rounds 2] [--sandboxes docker,bwrap]

Copies examples/signup (one scenario, 3 tests) to a temporary folder, opens a code-test session
per sandbox (process, the baseline; docker; bwrap; and "in-realm", the process runner the old way,
with the answer in the runner's own realm, to show what the membrane costs), and times `answers`
answers through each (half follow the skill, half do not), all submitted at once: a burst that
keeps every slot busy, so a runner cannot be started ahead of its answer. Setup (compile, first
container) is left out. Rounds alternate the sandboxes; the median of each is printed with its
ratio to process (target: burst at most 1.5). It then times single answers that arrive while the
sandbox is idle, as model answers usually do (a runner is then already started), and prints those
ratios too (target: at most 1.3). Needs a Docker engine with the sandbox image
(.ci/steps/40-docker.sh) and bwrap (.ci/steps/35-sandbox-tools.sh)."""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from skill_be.codetests.session import CodeTestSession
from skill_be.project.loader import load_project

ROOT = Path(__file__).resolve().parent.parent
GOOD = """```ts
export const result = (deps) => async (input) => {
  if (input.password.length < 12) return { status: 422, body: { errors: { password: 'too short' } } };
  if (await deps.isEmailTaken(input.email)) return { status: 409, body: { error: 'email-taken' } };
  return { status: 201, body: await deps.createUser(input) };
};
```"""
PLAIN = """```ts
export const result = (deps) => async ({ email, password }) => {
  if (await deps.isEmailTaken(email)) return { status: 400, body: {} };
  return { status: 200, body: await deps.createUser({ email, password }) };
};
```"""


def project_copy(tmp: Path, sandbox: str) -> Path:
    folder = tmp / "signup"
    shutil.copytree(ROOT / "examples" / "signup", folder, ignore=shutil.ignore_patterns(".skill-be"))
    config = folder / "skill-be.demo.yaml"
    config.write_text(config.read_text() + f"\ncodeTests:\n  sandbox: {sandbox}\n", encoding="utf-8")
    return config


async def time_answers(session: CodeTestSession, n: int) -> float:
    answers = [GOOD if i % 2 == 0 else PLAIN for i in range(n)]
    started = time.perf_counter()
    runs = await asyncio.gather(*(session.run("signup", "new-signup", a) for a in answers))
    seconds = time.perf_counter() - started
    for i, run in enumerate(runs):
        want = i % 2 == 0
        if run.error is not None or any(r.passed != want for r in run.results):
            sys.exit(f"answer {i}: unexpected outcome {run.to_json()}")
    return seconds


async def latency(session: CodeTestSession, n: int) -> float:
    """Median seconds from an answer to its results when the answer finds the sandbox idle."""
    times = []
    for i in range(n):
        await asyncio.sleep(0.3)
        started = time.perf_counter()
        await session.run("signup", "new-signup", GOOD if i % 2 == 0 else PLAIN)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--answers", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--sandboxes", default="docker,bwrap,in-realm")
    args = parser.parse_args()
    kinds = ["process", *args.sandboxes.split(",")]
    notes: list[str] = []
    times: dict[str, list[float]] = {k: [] for k in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        sessions = {}
        for kind in kinds:
            sandbox, weaken = ("process", frozenset({"realm"})) if kind == "in-realm" else (kind, frozenset())
            project = load_project(project_copy(Path(tmp) / kind, sandbox))
            sessions[kind] = await CodeTestSession.open(project, keep_deps=False, warn=notes.append, weaken=weaken)
        try:
            for _ in range(args.rounds):
                for kind in kinds:
                    times[kind].append(await time_answers(sessions[kind], args.answers))
            lat = {kind: await latency(sessions[kind], 20) for kind in kinds}
        finally:
            for s in sessions.values():
                await s.close()
    size = sessions["process"].pool.size  # type: ignore[union-attr]
    print(f"{args.answers} answers x 3 tests at once, {args.rounds} rounds, concurrency {size}")
    base = statistics.median(times["process"])
    for kind in kinds:
        t = statistics.median(times[kind])
        runs = ", ".join(f"{x:.2f}" for x in times[kind])
        target = "" if kind in ("process", "in-realm") else " (target <= 1.5)"
        print(f"  burst {kind:9} {t:6.2f} s  ({runs})  ratio {t / base:.2f}{target}")
    print("one answer at a time, sandbox idle (median of 20):")
    for kind in kinds:
        target = "" if kind in ("process", "in-realm") else " (target <= 1.3)"
        print(f"  single {kind:8} {lat[kind] * 1000:6.0f} ms  ratio {lat[kind] / lat['process']:.2f}{target}")


if __name__ == "__main__":
    asyncio.run(main())
