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
ratios too (target: at most 1.3). With `--against <git revision>` it measures that revision's code
and this tree's instead, alternating, each in a subprocess, and prints the per-answer times of
each sandbox before and after side by side (target: after/before at most 1.2). With
`--languages typescript,python` it measures Python's code tests too (examples/py-ledger: one scenario,
5 tests, a pip list) in the same sandboxes, and prints the ratio of a Python answer to a TypeScript
answer in each (target: at most 1.5). Needs a Docker engine with the sandbox image
(.ci/steps/40-docker.sh) and bwrap (.ci/steps/35-sandbox-tools.sh)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
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


PY_GOOD = """```python
def result(ledger, payer, payee, cents):
    ledger.transfer(payer, payee, cents)
    return ledger.balance(payer)
```"""
PY_PLAIN = """```python
def result(ledger, payer, payee, cents):
    ledger.post(payer, -cents)
    ledger.post(payee, cents)
    return ledger.balance(payer)
```"""
# language -> (example, skill, scenario, an answer that passes every test, one that fails some)
CASES = {
    "typescript": ("signup", "signup", "new-signup", GOOD, PLAIN),
    "python": ("py-ledger", "ledger", "pay", PY_GOOD, PY_PLAIN),
}
IMAGE = os.environ.get("SKILL_BE_BENCH_SANDBOX_IMAGE", "")  # another tag of the sandbox image, if set


def project_copy(tmp: Path, sandbox: str, language: str = "typescript") -> Path:
    example = CASES[language][0]
    folder = tmp / example
    shutil.copytree(ROOT / "examples" / example, folder, ignore=shutil.ignore_patterns(".skill-be"))
    config = folder / "skill-be.demo.yaml"
    image = f"  image: {IMAGE}\n" if IMAGE else ""
    config.write_text(config.read_text() + f"\ncodeTests:\n  sandbox: {sandbox}\n{image}", encoding="utf-8")
    return config


async def time_answers(session: CodeTestSession, n: int, language: str = "typescript") -> float:
    _, skill, scenario, good, plain = CASES[language]
    answers = [good if i % 2 == 0 else plain for i in range(n)]
    started = time.perf_counter()
    runs = await asyncio.gather(*(session.run(skill, scenario, a) for a in answers))
    seconds = time.perf_counter() - started
    for i, run in enumerate(runs):
        passed = [r.passed for r in run.results]
        if (
            run.error is not None
            or all(passed) != (i % 2 == 0)
            or (language == "typescript" and any(passed) != all(passed))
        ):
            sys.exit(f"answer {i}: unexpected outcome {run.to_json()}")
    return seconds


async def latency(session: CodeTestSession, n: int, language: str = "typescript") -> float:
    """Median seconds from an answer to its results when the answer finds the sandbox idle."""
    _, skill, scenario, good, plain = CASES[language]
    times = []
    for i in range(n):
        await asyncio.sleep(0.3)
        started = time.perf_counter()
        await session.run(skill, scenario, good if i % 2 == 0 else plain)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


async def measure(
    kinds: list[str], answers: int, rounds: int, language: str = "typescript"
) -> dict[str, dict[str, float]]:
    """Per sandbox: the median burst seconds over `rounds`, and the median single-answer seconds."""
    notes: list[str] = []
    times: dict[str, list[float]] = {k: [] for k in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        sessions = {}
        for kind in kinds:
            sandbox, weaken = ("process", frozenset({"realm"})) if kind == "in-realm" else (kind, frozenset())
            project = load_project(project_copy(Path(tmp) / kind, sandbox, language))
            sessions[kind] = await CodeTestSession.open(project, keep_deps=False, warn=notes.append, weaken=weaken)
        try:
            for _ in range(rounds):
                for kind in kinds:
                    times[kind].append(await time_answers(sessions[kind], answers, language))
            lat = {kind: await latency(sessions[kind], 20, language) for kind in kinds}
        finally:
            for s in sessions.values():
                await s.close()
    size = sessions[kinds[0]].pools[language].size
    out = {k: {"burst": statistics.median(times[k]), "single": lat[k], "size": size} for k in kinds}
    for k in kinds:
        out[k]["runs"] = times[k]  # type: ignore[assignment]
    return out


def print_one_run(result: dict[str, dict[str, float]], answers: int, rounds: int) -> None:
    kinds = list(result)
    print(f"{answers} answers x 3 tests at once, {rounds} rounds, concurrency {int(result[kinds[0]]['size'])}")
    base = result["process"]["burst"]
    for kind in kinds:
        t = result[kind]["burst"]
        runs = ", ".join(f"{x:.2f}" for x in result[kind]["runs"])  # type: ignore[attr-defined]
        target = "" if kind in ("process", "in-realm") else " (target <= 1.5)"
        print(f"  burst {kind:9} {t:6.2f} s  ({runs})  ratio {t / base:.2f}{target}")
    print("one answer at a time, sandbox idle (median of 20):")
    for kind in kinds:
        target = "" if kind in ("process", "in-realm") else " (target <= 1.3)"
        lat = result[kind]["single"]
        print(f"  single {kind:8} {lat * 1000:6.0f} ms  ratio {lat / result['process']['single']:.2f}{target}")


def source_of(rev: str, into: Path) -> Path:
    """The `src` folder of git revision `rev` of this repository, unpacked under `into`."""
    archive = subprocess.run(["git", "archive", rev, "src"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def child(src: Path, args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """One measurement with the skill_be of `src` (a subprocess, so each code's modules stay its own)."""
    argv = [sys.executable, __file__, "--child", "--answers", str(args.answers), "--rounds", "1"]
    argv += ["--sandboxes", args.sandboxes]
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"the measurement with {src} failed: {done.stderr.strip()[-2000:]}")
    result: dict[str, dict[str, float]] = json.loads(done.stdout.splitlines()[-1])
    return result


def compare(args: argparse.Namespace) -> None:
    """Before (`--against`) and after (this tree), alternating round by round in one run."""
    with tempfile.TemporaryDirectory() as tmp:
        before_src = source_of(args.against, Path(tmp))
        runs: dict[str, list[dict[str, dict[str, float]]]] = {"before": [], "after": []}
        for _ in range(args.rounds):
            runs["before"].append(child(before_src, args))
            runs["after"].append(child(ROOT / "src", args))
    kinds = list(dict.fromkeys(["process", *args.sandboxes.split(",")]))  # process is the baseline, once
    print(f"per answer, {args.answers} answers at once (burst) and one at a time (single), median of {args.rounds}")
    print(f"before: {args.against}, after: this tree; target after/before <= 1.2")
    for kind in kinds:
        for what in ("burst", "single"):
            b = statistics.median(r[kind][what] for r in runs["before"])
            a = statistics.median(r[kind][what] for r in runs["after"])
            per = args.answers if what == "burst" else 1
            print(
                f"  {what:6} {kind:9} before {b / per * 1000:6.0f} ms  after {a / per * 1000:6.0f} ms"
                f"  after/before {a / b:.2f}"
            )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--answers", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--sandboxes", default="docker,bwrap,in-realm")
    parser.add_argument("--against", help="a git revision: compare its per-answer times with this tree's")
    parser.add_argument("--languages", default="typescript", help="typescript, python or both (comma-separated)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.against:
        compare(args)
        return
    kinds = list(dict.fromkeys(["process", *args.sandboxes.split(",")]))  # process is the baseline, once
    languages = args.languages.split(",")
    results = {lang: await measure(kinds, args.answers, args.rounds, lang) for lang in languages}
    if args.child:
        print(json.dumps(results[languages[0]]))
        return
    for lang in languages:
        print(f"--- {lang}")
        print_one_run(results[lang], args.answers, args.rounds)
    if len(languages) > 1:
        print_languages(results, kinds, args.answers)


def print_languages(results: dict[str, dict[str, dict[str, float]]], kinds: list[str], answers: int) -> None:
    """A Python answer against a TypeScript answer, per sandbox: per answer in a burst, and single."""
    ts, python = results["typescript"], results["python"]
    print("Python per answer / TypeScript per answer, same sandbox (target <= 1.5):")
    for kind in kinds:
        for what, per in (("burst", answers), ("single", 1)):
            t, p = ts[kind][what] / per, python[kind][what] / per
            print(f"  {what:6} {kind:9} typescript {t * 1000:6.0f} ms  python {p * 1000:6.0f} ms  ratio {p / t:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
