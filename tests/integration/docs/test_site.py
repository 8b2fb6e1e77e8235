"""The documentation site: it builds strictly, its runnable commands run, its examples validate."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from skill_be import __version__
from skill_be.schema import generate

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
# A block a reader can paste: the line before its fence is this comment.
RUNNABLE = re.compile(r"<!-- runnable -->\n```(?:sh|bash)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def build(root: Path, out: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
    )


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    done = build(ROOT, tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    html = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "skill-be verify" in html and "--dry-run" in html  # the generated table is there


GITHUB_LINK = "[out](https://github.com/ngwes/skill-be/blob/main/docs/agent-mode.md)"


@pytest.mark.parametrize("breakage", ["link", "orphan", "github"])
def test_a_broken_link_or_an_orphan_page_fails_the_build(tmp_path: Path, breakage: str) -> None:
    copy = tmp_path / "repo"
    copy.mkdir()
    shutil.copytree(DOCS, copy / "docs")
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    shutil.copy(ROOT / "ARCHITECTURE.md", copy / "ARCHITECTURE.md")
    if breakage in ("link", "github"):  # github: a link out to one of the site's own pages on GitHub
        page = copy / "docs" / "index.md"
        link = "[gone](no-such-page.md)" if breakage == "link" else GITHUB_LINK
        page.write_text(page.read_text(encoding="utf-8") + f"\n{link}\n", encoding="utf-8")
    else:
        (copy / "docs" / "stray.md").write_text("# Stray\n", encoding="utf-8")
    done = build(copy, tmp_path / "site")
    assert done.returncode != 0
    said = {"link": "no-such-page.md", "orphan": "stray.md", "github": "a page of this site on GitHub"}[breakage]
    assert said in done.stdout + done.stderr


def runnable_blocks() -> list[tuple[str, str]]:
    found = []
    for page in pages():
        for m in RUNNABLE.finditer(page.read_text(encoding="utf-8")):
            found.append((str(page.relative_to(DOCS)), m.group(1)))
    return found


def test_the_docs_mark_runnable_blocks() -> None:
    assert len(runnable_blocks()) >= 3


@pytest.mark.parametrize(("page", "block"), runnable_blocks(), ids=lambda v: v if v.endswith(".md") else "")
def test_a_runnable_block_runs_offline_on_the_bundled_examples(tmp_path: Path, page: str, block: str) -> None:
    """Each line runs in a copy of the repository's examples. Installing is the reader's step, not the
    test's: `pip install` and `docker build` lines are left out, and `docker run` uses the image CI
    built (.ci/steps/40-docker.sh) where the page says `skill-be:local`."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns(".skill-be"))
    lines = [x for x in block.splitlines() if x.strip() and not x.startswith(("pip ", "docker build "))]
    assert lines, f"{page}: a runnable block with nothing to run"
    script = "\n".join(lines).replace("skill-be:local", f"skill-be:{__version__}")
    script = "set -euo pipefail\n" + re.sub(r"^skill-be ", f"{sys.executable} -m skill_be ", script, flags=re.M)
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{page}:\n{block}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def examples() -> list[tuple[str, str, object]]:
    """Every complete config, eval file or result file in a code block of the docs."""
    out: list[tuple[str, str, object]] = []
    for page in pages():
        for m in FENCE.finditer(page.read_text(encoding="utf-8")):
            lang, body = m.group(1), m.group(2)
            try:
                doc = json.loads(body) if lang == "json" else yaml.safe_load(body) if lang == "yaml" else None
            except (ValueError, yaml.YAMLError):
                continue  # a fragment with "..." or a comment: not a whole file
            if not isinstance(doc, dict):
                continue
            fmt = (
                "config"
                if {"skills", "evals", "model"} <= doc.keys()
                else "eval"
                if "scenarios" in doc
                else "result"
                if "skillBeVersion" in doc
                else None
            )
            if fmt:
                out.append((f"{page.relative_to(DOCS)}:{m.start()}", fmt, doc))
    return out


def test_the_docs_have_whole_examples_to_validate() -> None:
    kinds = {fmt for _, fmt, _ in examples()}
    assert {"config", "eval", "result"} <= kinds, kinds


@pytest.mark.parametrize(("where", "fmt", "doc"), examples(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_whole_example_validates_against_its_published_schema(where: str, fmt: str, doc: object) -> None:
    jsonschema.validate(doc, generate(fmt))


def test_the_readme_is_a_front_page_with_the_two_commands_and_live_links() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < 200
    first = readme.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert first[0].startswith("pip install -e . && skill-be run --config examples/durations/skill-be.demo.yaml")
    assert first[1].startswith("bash .ci/run") and "python -m pytest" in first[1]
    links = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert len(links) >= 20
    for link in links:
        assert (ROOT / link).is_file(), link
    assert "ngwes/skill-be@v1" in readme


def test_the_front_page_shows_what_the_demo_really_prints(tmp_path: Path) -> None:
    """Each line of the front page's output example is a line the incident-summary demo prints."""
    page = (DOCS / "index.md").read_text(encoding="utf-8")
    block = page.split("## What a run says", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    shutil.copytree(
        ROOT / "examples" / "incident-summary", tmp_path / "demo", ignore=shutil.ignore_patterns(".skill-be")
    )
    done = subprocess.run([sys.executable, "-m", "skill_be", "run", "--config", "skill-be.demo.yaml"],
                          cwd=tmp_path / "demo", capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    printed = set(done.stdout.splitlines())
    missing = [line for line in block.splitlines() if line.strip() and line not in printed]
    assert missing == [], missing
