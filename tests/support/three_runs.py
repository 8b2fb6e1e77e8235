"""A results folder with three real runs of a small project (scripted model and grader), each with a
different effect, the last with --html: what `skill-be open`'s tests serve."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.run.helpers import COUNTED_MODEL, project, run

# each run's answers per arm: the grader passes "Uses allocate" when the answer says "allocate"
PLANS = (
    {"base": ["nothing", "nothing"], "skill": ["allocate", "allocate"]},
    {"base": ["allocate", "nothing"], "skill": ["allocate", "allocate"]},
    {"base": ["allocate", "allocate"], "skill": ["allocate", "nothing"]},
)


def three_runs(root: Path) -> Path:
    """The project under `root`; returns its results folder (three run folders, oldest first)."""
    project(root, model=COUNTED_MODEL, config={"reps": 2})
    for i, plan in enumerate(PLANS):
        (root / "plan.json").write_text(json.dumps(plan))
        for arm in ("base", "skill"):
            (root / f"calls-{arm}.txt").unlink(missing_ok=True)
        r = run(root, "run", *(["--html"] if i == len(PLANS) - 1 else []))
        assert r.code in (0, 1), r.stderr
    results = root / ".skill-be" / "results"
    assert len([p for p in results.iterdir() if (p / "summary.json").is_file()]) == 3
    return results
