"""The viewer's screenshots on docs/guide/reading-a-run.md, from real runs of the bundled agent demo.

Usage: python docs/scripts/viewer_screenshots.py [OUT_DIR] (default docs/assets/). Runs
examples/agent-demo's offline demo three times in a temporary copy (a git repository, so each run
records a commit), then screenshots with headless Chromium (apt-get install -y chromium):
viewer-index.png, the index `skill-be open` serves (every run, the charts), and
results-agent.png, the first rep of the last run's results.html, its with-skill answer's
transcript and diff opened.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SHOT = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def runs(work: Path) -> Path:
    """Three runs of the demo (2, 3 and 4 reps), a commit before each; the results folder."""
    demo = work / "agent-demo"
    shutil.copytree(ROOT / "examples" / "agent-demo", demo, ignore=shutil.ignore_patterns(".skill-be"))
    git(demo, "init", "-q")
    for reps in (2, 3, 4):
        git(demo, "add", "-A")
        git(demo, "-c", "user.name=docs", "-c", "user.email=docs@example.com", "commit", "-qm", f"reps {reps}")
        cmd = [sys.executable, "-m", "skill_be", "run", "--config", "skill-be.demo.yaml", "--html", "--reps", str(reps)]
        subprocess.run(cmd, cwd=demo, check=True, capture_output=True, timeout=300)
        (demo / "evals" / "note.txt").write_text(f"after the run with {reps} reps\n")  # the next commit differs
    return demo / ".skill-be" / "demo-results"


def opened_rep(page: str) -> str:
    """The run page's first rep (its two arms side by side) alone, with the with-skill arm, its
    transcript and its diff opened."""
    found = re.search(r'<div class="rep-pair">.*?\n</div>$', page, re.S | re.M)
    assert found, "no rep on the page"
    rep = found.group(0)
    for part in ("arm-with-skill", "transcript", "diff"):
        at = rep.index('<details class="arm-with-skill"') if part != "arm-with-skill" else 0
        rep = rep[:at] + rep[at:].replace(f'<details class="{part}">', f'<details class="{part}" open>', 1)
    head = page[: page.index("<body>") + len("<body>")]
    return f"{head}\n{rep}\n</body>\n</html>\n"


def shoot(html: str, out: Path, size: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "page.html"
        page.write_text(html, encoding="utf-8")
        cmd = [*SHOT, f"--window-size={size}", f"--screenshot={out.resolve()}", page.as_uri()]
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    print(out)


def main(argv: list[str]) -> int:
    from skill_be.commands.open_server import answer

    out = Path(argv[0]) if argv else DOCS / "assets"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        results = runs(Path(tmp))
        status, _, index = answer(results, "/")
        assert status == 200
        # the folder's shown path is a temporary one: name it as a reader's would be
        html = re.sub(
            r"<p class=\"muted\">[^<]*demo-results:", '<p class="muted">.skill-be/demo-results:', index.decode()
        )
        shoot(html, out / "viewer-index.png", "1100,900")
        last = sorted(p for p in results.iterdir() if p.is_dir())[-1]
        page = opened_rep((last / "results.html").read_text(encoding="utf-8"))
        shoot(page, out / "results-agent.png", "1100,1250")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
