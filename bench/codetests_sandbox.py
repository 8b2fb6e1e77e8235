"""Code tests through the Docker sandbox versus the process runner, in the same run.

    python bench/codetests_sandbox.py [--answers 100] [--rounds 2]

Copies examples/signup (one scenario, 3 tests) to a temporary folder, opens a code-test session
with `codeTests.sandbox: docker` and one with `process`, and times `answers` answers through each
(half follow the skill, half do not), all submitted at once: a burst that keeps every slot busy,
so a runner cannot be started ahead of its answer. Setup (compile, first container) is left out.
Rounds alternate the two sandboxes; the median of each is printed with the ratio docker / process
(target: at most 1.3). It then times single answers that arrive while the sandbox is idle, as
model answers usually do (a runner is then already started), and prints that ratio too. Needs a
Docker engine and the sandbox image (.ci/steps/40-docker.sh)."""

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
    folder = tmp / sandbox
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
    args = parser.parse_args()
    notes: list[str] = []
    times: dict[str, list[float]] = {"docker": [], "process": []}
    with tempfile.TemporaryDirectory() as tmp:
        sessions = {}
        for sandbox in ("docker", "process"):
            project = load_project(project_copy(Path(tmp), sandbox))
            sessions[sandbox] = await CodeTestSession.open(project, keep_deps=False, warn=notes.append)
        try:
            for _ in range(args.rounds):
                for sandbox in ("process", "docker"):
                    times[sandbox].append(await time_answers(sessions[sandbox], args.answers))
            lat = {sandbox: await latency(sessions[sandbox], 20) for sandbox in ("process", "docker")}
        finally:
            for s in sessions.values():
                await s.close()
    d, p = statistics.median(times["docker"]), statistics.median(times["process"])
    print(f"{args.answers} answers x 3 tests, {args.rounds} rounds, concurrency {sessions['docker'].pool.size}")  # type: ignore[union-attr]
    print(f"process runner: {p:.2f} s  ({', '.join(f'{t:.2f}' for t in times['process'])})")
    print(f"docker sandbox: {d:.2f} s  ({', '.join(f'{t:.2f}' for t in times['docker'])})")
    print(f"ratio docker / process: {d / p:.2f} (target <= 1.3)")
    lp, ld = lat["process"], lat["docker"]
    print(
        f"one answer at a time, sandbox idle: process {lp * 1000:.0f} ms, docker {ld * 1000:.0f} ms, ratio {ld / lp:.2f}"
    )


if __name__ == "__main__":
    asyncio.run(main())
