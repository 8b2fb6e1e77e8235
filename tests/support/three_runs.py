"""A results folder with three real runs of a small project (scripted model and grader) in a git
repository, each run at a commit of its own and with a different effect, the last with --html: what
`skill-be open`'s tests serve."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.e2e.run.helpers import COUNTED_MODEL, project, run

# each run's answers per arm: the grader passes "Uses allocate" when the answer says "allocate"
PLANS = (
    {"base": ["nothing", "nothing"], "skill": ["allocate", "allocate"]},
    {"base": ["allocate", "nothing"], "skill": ["allocate", "allocate"]},
    {"base": ["allocate", "allocate"], "skill": ["allocate", "nothing"]},
)


def git(root: Path, *args: str) -> str:
    cmd = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args]
    return subprocess.run(cmd, cwd=root, check=True, capture_output=True, text=True).stdout.strip()


def three_runs(root: Path) -> Path:
    """The project under `root`; returns its results folder (three run folders, oldest first). Each
    run's summary.json should record the commit in `commits.txt` (one line per run)."""
    project(root, model=COUNTED_MODEL, config={"reps": 2})
    (root / ".gitignore").write_text(".skill-be/\ncalls-*.txt\ncommits.txt\n")
    git(root, "init", "-q", "-b", "main")
    commits = []
    for i, plan in enumerate(PLANS):
        (root / "plan.json").write_text(json.dumps(plan))
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"plan {i}")
        commits.append(git(root, "rev-parse", "HEAD"))
        for arm in ("base", "skill"):
            (root / f"calls-{arm}.txt").unlink(missing_ok=True)
        r = run(root, "run", *(["--html"] if i == len(PLANS) - 1 else []))
        assert r.code in (0, 1), r.stderr
    (root / "commits.txt").write_text("\n".join(commits) + "\n")
    results = root / ".skill-be" / "results"
    assert len([p for p in results.iterdir() if (p / "summary.json").is_file()]) == 3
    return results
