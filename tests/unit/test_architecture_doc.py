"""ARCHITECTURE.md against the tree: every module, file or folder it names in backticks exists, so the
map cannot point at code that moved or was removed."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src" / "skill_be"
# A name the map gives for a part of the code: a path ending in a source suffix or a folder's slash.
_NAMED = re.compile(r"`([A-Za-z0-9_][A-Za-z0-9_./-]*(?:\.py|\.mjs|\.ts|/))`")


def named_paths(text: str) -> set[str]:
    return set(_NAMED.findall(text))


def exists(name: str, repo: Path = REPO) -> bool:
    """Where the map names a path: from the package, from the repository, or as the tail of a path in
    them (the map often names `boxes/egress.py` inside a section about agents/)."""
    src = repo / "src" / "skill_be"
    bare = name.rstrip("/")
    if any((place / bare).exists() for place in (src, repo, repo / "tests", repo / "bench")):
        return True
    tail = "/" + bare
    for root in (src, repo / "tests", repo / "bench"):
        for path in root.rglob(Path(bare).name):
            if path.as_posix().endswith(tail) and (path.is_dir() or not name.endswith("/")):
                return True
    return False


def missing(text: str, repo: Path = REPO) -> list[str]:
    return sorted(name for name in named_paths(text) if not exists(name, repo))


def test_every_module_the_architecture_names_exists() -> None:
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert len(named_paths(text)) > 50  # the rule reads the map's names, not nothing
    assert missing(text) == [], "ARCHITECTURE.md names code that does not exist: fix the map or the code"


def test_the_rule_sees_a_name_that_points_nowhere(tmp_path: Path) -> None:
    pkg = tmp_path / "src" / "skill_be" / "agents" / "boxes"
    pkg.mkdir(parents=True)
    (pkg / "egress.py").write_text("", encoding="utf-8")
    text = "The proxy is `boxes/egress.py`, the box `agents/boxes/`; the arms `engine/arms.py` and `gone/`."
    assert missing(text, tmp_path) == ["engine/arms.py", "gone/"]
