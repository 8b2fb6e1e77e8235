"""Building small projects with scripted models and graders, and running `skill-be` on them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import yaml

# A grader that says YES to criterion n when the answer contains the criterion's last word.
KEYWORD_GRADER = """
import re, sys
p = sys.stdin.read()
head, _, rest = p.rpartition("<answer>")
answer = rest.rpartition("</answer>")[0]
crit = re.findall(r"^(\\d+)\\. (.+)$", head.split("Criteria:")[-1], re.M)
print("I looked.\\n\\nVERDICTS:")
for n, c in crit:
    print(f"{n}: {'YES' if c.split()[-1] in answer else 'NO'}")
"""

# A model whose n-th call in each arm gets the n-th answer of that arm in plan.json ({"base": [...],
# "skill": [...]}), counted in calls-<arm>.txt under a lock: answers that pass at known rates.
COUNTED_MODEL = """
import fcntl, json, sys
p = sys.stdin.read()
arm = "skill" if "LIBRARY DOCS" in p else "base"
plan = json.load(open("plan.json"))
with open(f"calls-{arm}.txt", "a+") as f:
    fcntl.flock(f, fcntl.LOCK_EX)
    f.seek(0)
    n = len(f.read().splitlines())
    f.write("call\\n")
answers = plan[arm]
print(answers[n % len(answers)])
"""

# A model that answers "with-skill-answer <words>" when the skill is in the prompt, else "plain <words>".
ECHO_MODEL = """
import sys
p = sys.stdin.read()
print("SKILLED allocate money" if "LIBRARY DOCS" in p else "plain answer")
"""


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str
    root: Path

    def run_dir(self) -> Path:
        dirs = sorted((self.root / ".skill-be" / "results").iterdir())
        return dirs[-1]

    def summary(self) -> dict:  # type: ignore[type-arg]
        return json.loads((self.run_dir() / "summary.json").read_text())

    def result_file(self) -> dict:  # type: ignore[type-arg]
        return json.loads((self.root / "skill-be.result.json").read_text())


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def project(
    root: Path,
    *,
    skills: dict[str, list[dict]] | None = None,  # type: ignore[type-arg]
    model: str = ECHO_MODEL,
    grader: str = KEYWORD_GRADER,
    config: dict | None = None,  # type: ignore[type-arg]
    skill_text: str = "# Money\n\nUse `allocate`.\n",
) -> Path:
    """A project with scripted model.py and grader.py; `config` keys override the defaults."""
    skills = skills or {
        "money": [{"id": "split", "critical": True, "prompt": "Split a bill.", "criteria": ["Uses allocate"]}]
    }
    for name, scenarios in skills.items():
        write(
            root / "skills" / name / "SKILL.md",
            f"---\nname: {name}\ndescription: Test skill {name}.\n---\n{skill_text}",
        )
        write(root / "evals" / f"{name}.json", json.dumps({"scenarios": scenarios}, indent=2))
    write(root / "model.py", model)
    write(root / "grader.py", grader)
    doc: dict = {  # type: ignore[type-arg]
        "skills": "./skills",
        "evals": "./evals",
        "model": {"adapter": "command", "id": "m1", "run": f"{sys.executable} model.py"},
        "grader": {"adapter": "command", "id": "judge", "run": f"{sys.executable} grader.py"},
        "reps": 2,
        "gradings": 1,
        "concurrency": 4,
        "checks": {"typecheck": False},
    }
    doc.update(config or {})
    write(root / "skill-be.yaml", yaml.safe_dump(doc, sort_keys=False))
    return root


def run(root: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120) -> Result:
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    full_env.pop("CI", None) if env is None or "CI" not in env else None
    p = subprocess.run(
        [sys.executable, "-m", "skill_be", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    return Result(p.returncode, p.stdout, p.stderr, root)


def table_rows(report: str) -> list[list[str]]:
    rows = []
    for line in report.splitlines():
        if line.startswith("| ") and not line.startswith("| Criterion") and not line.startswith("|--"):
            rows.append([c.strip() for c in line.strip("|").split(" | ")])
    return rows
