"""A run's fixed cost against another commit, paired: the same whole run from two installed wheels.

    python bench/fixed_cost.py --against REF [--runs 15]

Builds a wheel of REF (from `git archive REF`) and one of the working tree (`pip wheel`, the
project's own build backend), installs each into its own temporary venv (the wheel alone; the
dependencies are this venv's, put on the path by a .pth file, so both sides import the same
pydantic and PyYAML), then times the same `skill-be run` (3 skills x 2 scenarios, 1 rep, 1 grading,
a model and a grader that are instant scripts, the response cache off) from each, alternately, so
that the machine's load hits both alike. Prints the medians of the wall time, the CPU time (user +
system) and the peak memory (`ru_maxrss` of the child, from os.wait4) of both, and the ratios of the
working tree's to REF's; the target is at most 1.00x. REF is required: the repository has no
release tag to default to yet (the newest `v*` tag is taken when there is one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _shared import COMMAND_CONFIG, ROOT  # bench/_shared.py (this folder is on sys.path when a benchmark runs)

MODEL = "#!/bin/sh\ncat >/dev/null\necho 'Use allocate() here.'\n"
GRADER = "#!/bin/sh\ncat >/dev/null\nprintf 'VERDICTS:\\n1: YES\\n2: YES\\n'\n"


def default_ref() -> str | None:
    """The newest release tag (v*), None when the repository has none."""
    done = subprocess.run(
        ["git", "tag", "--list", "v*", "--sort=-creatordate"], cwd=ROOT, capture_output=True, text=True
    )
    tags = done.stdout.split()
    return tags[0] if tags else None


def build_project(root: Path) -> None:
    (root / "skill-be.yaml").write_text(COMMAND_CONFIG + "reps: 1\ngradings: 1\ncache: false\n")
    (root / "model.sh").write_text(MODEL)
    (root / "grader.sh").write_text(GRADER)
    for script in ("model.sh", "grader.sh"):
        (root / script).chmod(0o755)
    (root / "evals").mkdir()
    for name in ("money", "dates", "signup"):
        skill = root / "skills" / name
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill.\n---\nUse allocate().\n")
        scenarios = [
            {"id": f"task-{i}", "prompt": f"Do task {i}.", "criteria": ["Uses allocate", "Short"]} for i in (1, 2)
        ]
        (root / "evals" / f"{name}.json").write_text(json.dumps({"scenarios": scenarios}))


def wheel(source: Path, out: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(source)], check=True
    )
    found = sorted(out.glob("skill_be-*.whl"))
    if not found:
        raise SystemExit(f"no wheel was built from {source}")
    return found[0]


def venv_with(whl: Path, where: Path) -> Path:
    """A venv holding `whl` alone, this Python's site-packages on its path for the dependencies."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", str(whl)], check=True
    )
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # A path in a .pth file is appended after the venv's own site-packages, and the .pth files inside it
    # are not run: this venv's editable skill-be stays out, its dependencies come in.
    deps = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    (Path(site) / "bench-deps.pth").write_text("".join(f"{p}\n" for p in deps))
    return python


def once(python: Path, project: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak resident MiB of one `skill-be run`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILL_BE") and k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryFile() as err:  # a file, not a pipe: the child never blocks on a full pipe
        start = time.perf_counter()
        child = subprocess.Popen(
            [str(python), "-m", "skill_be", "run"], cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=err
        )
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:  # every skill is READY with these scripts: anything else is a failure
            err.seek(0)
            raise SystemExit(
                f"{python} -m skill_be run exited {child.returncode}: {err.read()[-2000:].decode(errors='replace')}"
            )
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024  # ru_maxrss: KiB on Linux


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", default=default_ref(), help="the commit or tag to compare with")
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each side (default 15)")
    a = parser.parse_args()
    if a.against is None:
        parser.error("--against REF is required: the repository has no v* release tag")
    with tempfile.TemporaryDirectory(prefix="skill-be-fixed-") as tmp:
        t = Path(tmp)
        (t / "ref").mkdir()
        archive = subprocess.run(["git", "archive", a.against], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(t / "ref")], input=archive, check=True)
        sides = {
            a.against: venv_with(wheel(t / "ref", t / "ref-wheel"), t / "ref-venv"),
            "working tree": venv_with(wheel(ROOT, t / "new-wheel"), t / "new-venv"),
        }
        projects: dict[str, Path] = {}
        for name in sides:
            projects[name] = t / f"project-{len(projects)}"
            projects[name].mkdir()
            build_project(projects[name])
            once(sides[name], projects[name])  # bytecode and OS caches warm
        got: dict[str, list[tuple[float, float, float]]] = {name: [] for name in sides}
        for i in range(a.runs):
            order = list(sides) if i % 2 == 0 else list(reversed(sides))
            for name in order:
                got[name].append(once(sides[name], projects[name]))
    med = {name: [statistics.median(x[k] for x in runs) for k in range(3)] for name, runs in got.items()}
    print(
        f"skill-be run, 3 skills x 2 scenarios, instant scripted models; median of {a.runs}, paired ({os.cpu_count()} CPUs):"
    )
    for name, (w, c, m) in med.items():
        print(f"  {name:<14} wall {w * 1000:7.1f} ms   cpu {c * 1000:7.1f} ms   peak {m:6.1f} MiB")
    ref, new = med[a.against], med["working tree"]
    print(f"  ratio          wall {new[0] / ref[0]:.3f}x    cpu {new[1] / ref[1]:.3f}x    peak {new[2] / ref[2]:.3f}x")
    print("target: at most 1.00x of the reference's wall time")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
