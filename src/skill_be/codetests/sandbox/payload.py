"""The work folders as one tar: what a sandbox copies in, owned by root so the answer cannot change it.

The Docker sandbox streams it into each container; the process runner, when skill-be runs as root,
unpacks it into a folder of its own under the temp folder, since the project's folder (often under
/root) is out of the answer's user's reach. Docker-free: the process runner imports it."""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

from skill_be.codetests import nodefiles
from skill_be.codetests.sandbox import SandboxError, Work

RUNS_MODE = 0o1733  # anyone may make a folder in runs/, nobody but root may list it or remove another's
TESTS_MODE = 0o700  # tests/ is root's: the answer's user reads no test file (the runner reads them as root)


def _root_owned(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mode = 0o755 if info.isdir() or info.mode & 0o111 else 0o644
    return info


def _walk(top: Path) -> Iterator[Path]:
    """Every file and folder under `top`, following links (npm links local packages) but no cycle."""
    seen: set[str] = set()
    for folder, dirs, files in os.walk(top, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        yield Path(folder)
        for f in files:
            yield Path(folder) / f


def build_payload(
    works: tuple[Work, ...], tests_mode: int = 0o755, runs: tuple[int, int] = (65534, 0o700)
) -> tuple[bytes, int]:
    """The tar unpacked at the sandbox's root folder, and its size in bytes once unpacked.

    h/ holds the harness; b/<key>/node_modules the installed packages; b/<key>/w the work folder, whose
    runs/ (owned by `runs`' uid, with its mode) is the only folder the answers may write in."""
    buf = io.BytesIO()
    size = 0
    with tarfile.open(fileobj=buf, mode="w", dereference=True) as tf:

        def add(path: Path, arcname: str, mode: int | None = None) -> None:
            nonlocal size
            if not path.exists():  # a dangling link in node_modules: nothing to copy
                return
            info = _root_owned(tf.gettarinfo(str(path), arcname))
            if mode is not None:
                info.mode = mode
            if info.isreg():
                size += info.size
                with path.open("rb") as f:
                    tf.addfile(info, f)
            elif info.isdir():
                tf.addfile(info)

        add(nodefiles.NODE_DIR, "h")
        for p in _walk(nodefiles.NODE_DIR):
            add(p, f"h/{p.relative_to(nodefiles.NODE_DIR).as_posix()}".rstrip("/."))
        for work in works:
            add(work.folder, f"b/{work.key}")
            if work.packages is not None and work.packages.is_dir():
                for p in _walk(work.packages):
                    rel = p.relative_to(work.packages)
                    if rel.parts[:1] and rel.parts[0].startswith("."):
                        continue  # npm's own files (.package-lock.json, .bin): not the packages
                    add(p, f"b/{work.key}/node_modules/{rel.as_posix()}".rstrip("/."))
            for p in _walk(work.folder):
                rel = p.relative_to(work.folder)
                if rel.parts[:1] == ("runs",):
                    continue
                add(p, f"b/{work.key}/w/{rel.as_posix()}".rstrip("/."), tests_mode if rel == Path("tests") else None)
            info = tarfile.TarInfo(f"b/{work.key}/w/runs")
            info.type, info.uid, info.mode = tarfile.DIRTYPE, runs[0], runs[1]
            info.gid = info.uid
            tf.addfile(info)
    return buf.getvalue(), size


def stage(works: tuple[Work, ...], tests_mode: int = TESTS_MODE) -> Path:
    """The payload unpacked into a new folder under the temp folder, for answers under another uid.

    SandboxError when the temp folder is out of other users' reach (set TMPDIR to one that is not)."""
    data, _ = build_payload(works, tests_mode=tests_mode, runs=(0, RUNS_MODE))
    root = Path(tempfile.mkdtemp(prefix="skill-be-sandbox-"))
    try:
        root.chmod(0o755)
        blocked = [p for p in (root, *root.parents) if not p.stat().st_mode & 0o001]
        if blocked:
            raise SandboxError(
                f"{blocked[0]} is closed to other users, so the answer's user could not reach the tests' folder "
                "under it; set TMPDIR to a folder every user can enter, such as /tmp"
            )
        with tarfile.open(fileobj=io.BytesIO(data)) as tf:
            for member in tf.getmembers():
                tf.extract(member, root, set_attrs=False)
                target = root / member.name
                os.chmod(target, member.mode)  # as written: tarfile's own attrs drop the sticky bit
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return root
