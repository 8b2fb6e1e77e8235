"""The response cache across CI runs (issue 19, item 6): the `actions/cache` step of
examples/workflows/skill-be.yml, emulated as the runner applies it (the key with `hashFiles` over the
repository, an exact hit or else the newest cache whose key starts with a restore key), between a run
on the default branch and a pull request that changes one of two skills: the pull request's run
finds every call of the unchanged skill in the cache, and of the changed one only its baseline arm's
(which does not read the skill)."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
WORKFLOW = ROOT / "examples" / "workflows" / "skill-be.yml"


def cache_step() -> dict[str, str]:
    doc = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    steps = doc["jobs"]["benchmark"]["steps"]
    [step] = [s for s in steps if str(s.get("uses", "")).startswith("actions/cache@")]
    run = next(s for s in steps if s.get("id") == "skill-be")
    assert "--cache" in run["with"]["args"].split(), "the run step must use the cache"
    return {k: str(v) for k, v in step["with"].items()}


def hash_files(repo: Path, patterns: list[str]) -> str:
    """GitHub's hashFiles: the SHA-256 of every matching file's SHA-256, in path order."""
    files = sorted({p for pat in patterns for p in repo.glob(pat) if p.is_file()})
    outer = hashlib.sha256()
    for f in files:
        outer.update(hashlib.sha256(f.read_bytes()).digest())
    return outer.hexdigest() if files else ""


def expand(template: str, repo: Path, branch: str) -> str:
    def one(m: re.Match[str]) -> str:
        expr = m.group(1).strip()
        if expr == "github.ref_name":
            return branch
        if expr == "github.event.repository.default_branch":
            return "main"
        call = re.fullmatch(r"hashFiles\((.*)\)", expr)
        assert call, f"the emulation does not know {expr}"
        return hash_files(repo, re.findall(r"'([^']+)'", call.group(1)))

    return re.sub(r"\$\{\{(.*?)\}\}", one, template)


class Cache:
    """actions/cache's storage: save under a key, restore by key, else by the newest prefix match."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.saved: list[str] = []

    def save(self, repo: Path, step: dict[str, str], branch: str) -> None:
        key = expand(step["key"], repo, branch)
        shutil.copytree(repo / step["path"], self.root / key)
        self.saved.append(key)

    def restore(self, repo: Path, step: dict[str, str], branch: str) -> str | None:
        key = expand(step["key"], repo, branch)
        restore_keys = [expand(k, repo, branch) for k in step.get("restore-keys", "").split("\n") if k.strip()]
        hit = key if key in self.saved else None
        for prefix in restore_keys:
            hit = hit or next((k for k in reversed(self.saved) if k.startswith(prefix)), None)
        if hit is not None:
            shutil.copytree(self.root / hit, repo / step["path"])
        return hit


def checkout(tmp: Path, name: str) -> Path:
    """The incident-summary demo with a second skill, as a fresh checkout (no .skill-be folder)."""
    repo = tmp / name
    src = ROOT / "examples" / "incident-summary"
    shutil.copytree(src, repo, ignore=shutil.ignore_patterns(".skill-be"))
    config = repo / "skill-be.demo.yaml"
    config.rename(repo / "skill-be.yaml")
    [skill] = [p for p in (repo / "skills").iterdir() if p.is_dir()]
    twin = f"{skill.name}-twin"
    shutil.copytree(skill, repo / "skills" / twin)
    md = repo / "skills" / twin / "SKILL.md"
    md.write_text(md.read_text(encoding="utf-8").replace(f"name: {skill.name}", f"name: {twin}"), encoding="utf-8")
    shutil.copy(repo / "evals" / f"{skill.name}.json", repo / "evals" / f"{twin}.json")
    return repo


def skill_be(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skill_be", *args], cwd=repo, capture_output=True, text=True, timeout=300
    )


def test_a_pull_request_that_changes_one_skill_pays_only_for_that_skill(tmp_path: Path) -> None:
    step = cache_step()
    assert step["path"].rstrip("/") == ".skill-be/cache"
    cache = Cache(tmp_path / "actions-cache")
    main = checkout(tmp_path, "main")
    assert cache.restore(main, step, "main") is None  # the first run ever
    done = skill_be(main, "run", "--cache")
    assert done.returncode in (0, 1), done.stderr
    cache.save(main, step, "main")

    pr = checkout(tmp_path, "pr")
    [changed] = [p for p in (pr / "skills").iterdir() if p.name.endswith("-twin")]
    (changed / "SKILL.md").write_text((changed / "SKILL.md").read_text(encoding="utf-8") + "\nOne more rule.\n")
    hit = cache.restore(pr, step, "feature")
    assert hit is not None and hit.startswith("skill-be-main-")  # restored from the default branch
    plan = skill_be(pr, "run", "--cache", "--dry-run")
    assert plan.returncode == 0, plan.stderr
    lines = {m.group(1): (int(m.group(2)), int(m.group(3)), int(m.group(4))) for m in re.finditer(
        r"^  (\S+): .*= (\d+) calls; the cache holds (\d+), (\d+) to make", plan.stdout, re.MULTILINE)}  # fmt: skip
    unchanged = changed.name.removesuffix("-twin")
    total, held, make = lines[unchanged]
    assert total > 0 and held == total and make == 0  # the unchanged skill costs nothing
    total, held, make = lines[changed.name]
    # the changed skill pays for its with-skill arm (generations and their gradings); its baseline
    # arm does not read the skill, so its answers and grades come from the cache too
    assert make > 0 and held == make == total // 2
    # the control: without the restored cache the unchanged skill would be paid for again
    bare = checkout(tmp_path, "bare")
    cold = skill_be(bare, "run", "--cache", "--dry-run")
    assert re.search(rf"^  {re.escape(unchanged)}: .*the cache holds 0,", cold.stdout, re.MULTILINE)
