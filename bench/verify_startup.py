"""How long `skill-be verify` takes on a three-skill project, against bare Python in the same run.

    python bench/verify_startup.py [--reps 40]

Builds a project in a temp folder (three skills, a result file written by the same code `skill-be
run` uses, so verify passes), then times, interleaved so that machine load hits all alike:
`python -c pass`, the installed `skill-be verify` console script, `python -m skill_be verify` and
`skill-lens --version` (PyPI `skill-lens`, installed in its own venv: `python -m venv
/tmp/skill-lens-venv && /tmp/skill-lens-venv/bin/pip install skill-lens`). Prints the median of
each, the difference to bare Python and the ratio to skill-lens. The target is verify at most half
the wall time of `skill-lens --version`, timed side by side. The typecheck is turned off in the project: with it on, verify starts Node and the
TypeScript compiler, which is the check's cost, not skill-be's start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from _shared import COMMAND_CONFIG  # bench/_shared.py (this folder is on sys.path when a benchmark runs)

from skill_be.project.loader import load_project
from skill_be.results.result_file import ResultEntry, write_result_file

TARGET_RATIO = 0.5  # verify's wall time over skill-lens --version's


def build(root: Path) -> None:
    (root / "skill-be.yaml").write_text(COMMAND_CONFIG, encoding="utf-8")
    for name in ("money", "dates", "signup"):
        skill = root / "skills" / name
        skill.mkdir(parents=True)
        blocks = "\n".join(f"## Part {i}\n\n```ts\nconst value{i} = {i};\n```\n" for i in range(20))
        (skill / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill.\n---\n{blocks}")
        scenarios = [
            {"id": f"task-{i}", "prompt": f"Do task {i}.", "critical": i == 0, "criteria": ["It works", "It is short"]}
            for i in range(6)
        ]
        (root / "evals").mkdir(exist_ok=True)
        (root / "evals" / f"{name}.json").write_text(json.dumps({"scenarios": scenarios}, indent=2))
    project = load_project(root / "skill-be.yaml")
    entries = {
        skill.name: ResultEntry(
            date="2026-11-29",
            fingerprint=project.fingerprint(skill),
            ready=True,
            reasons=[],
            models=["model-a"],
            grader="grader-a",
        )
        for skill in project.skills
    }
    write_result_file(project.config.result_file, entries)


def console_script() -> str:
    """The `skill-be` next to this Python (a pyenv shim on the PATH would add its own start-up)."""
    beside = Path(sysconfig.get_path("scripts")) / "skill-be"
    found = str(beside) if beside.is_file() else shutil.which("skill-be")
    if found is None:
        raise SystemExit("skill-be is not installed: pip install -e .")
    return found


def once(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system) of one run of `argv`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode(errors='replace')}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=40, help="timed runs of each command (default 40)")
    parser.add_argument(
        "--skill-lens", default="/tmp/skill-lens-venv/bin/skill-lens", help="the skill-lens executable to compare with"
    )
    args = parser.parse_args()
    if not Path(args.skill_lens).is_file():
        raise SystemExit(f"{args.skill_lens} does not exist: install skill-lens in its own venv (see --help)")
    # An installed package runs from its bytecode cache; PYTHONDONTWRITEBYTECODE (set on some CI
    # machines) would make every run compile skill-be's sources again, which no user pays twice.
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILL_BE") and k != "PYTHONDONTWRITEBYTECODE"}
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "skill-be verify": [console_script(), "verify"],
        "python -m skill_be verify": [sys.executable, "-m", "skill_be", "verify"],
        "skill-lens --version": [args.skill_lens, "--version"],
    }
    with tempfile.TemporaryDirectory(prefix="skill-be-bench-") as tmp:
        root = Path(tmp)
        build(root)
        for argv in commands.values():  # warm the OS caches and the bytecode caches; checks verify passes
            once(argv, root, env)
        wall: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.reps):
            for name, argv in commands.items():
                w, c = once(argv, root, env)
                wall[name].append(w)
                cpu[name].append(c)
    load = os.getloadavg()[0]
    print(
        f"{args.reps} runs each, interleaved; medians (Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {load:.1f}):"
    )
    print(f"  {'':<26} {'wall':>9} {'over bare':>10}   {'cpu':>9} {'over bare':>10}   {'/ skill-lens':>12}")
    base_w, base_c = statistics.median(wall["python -c pass"]), statistics.median(cpu["python -c pass"])
    lens_w = statistics.median(wall["skill-lens --version"])
    worst = 0.0
    for name in commands:
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        if "verify" in name:
            worst = max(worst, w / lens_w)
        print(
            f"  {name:<26} {w * 1000:7.1f}ms {(w - base_w) * 1000:+8.1f}ms   {c * 1000:7.1f}ms {(c - base_c) * 1000:+8.1f}ms"
            f"   {w / lens_w:12.2f}"
        )
    verdict = "within" if worst <= TARGET_RATIO else "over"
    print(f"target: verify at most {TARGET_RATIO:.2f} x skill-lens --version (wall); worst {worst:.2f} ({verdict})")
    if load > (os.cpu_count() or 1):
        print("note: the machine was busy; CPU time is the steadier figure under load")
    return 0 if worst <= TARGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
