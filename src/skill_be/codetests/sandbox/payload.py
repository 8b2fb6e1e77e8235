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
from dataclasses import dataclass
from pathlib import Path

from skill_be.codetests import nodefiles
from skill_be.codetests.sandbox import SandboxError, Work

RUNS_MODE = 0o1733  # anyone may make a folder in runs/, nobody but root may list it or remove another's
TESTS_MODE = 0o750  # tests/ is root's and the runners' group's: the answer's user reads no test file
TEST_JS = ".test.js"


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


@dataclass(frozen=True)
class Owners:
    """Who owns what the answers and the runner must not share: (uid, gid, mode) of each folder."""

    tests: tuple[int, int, int] = (0, 0, 0o755)  # each work's tests/ (the helpers; test files come per answer)
    runs: tuple[int, int, int] = (65534, 65534, 0o700)  # each work's runs/, where the answers write
    dirs: tuple[tuple[str, int, int, int], ...] = ()  # more top-level folders: (name, uid, gid, mode)
    test_files: bool = True  # the scenarios' own test files (*.test.js) too, not only their helpers
    dotfiles: bool = False  # dotfiles inside packages too (only tests switch this on, as a control)


def is_test_file(rel: Path, language: str = "typescript") -> bool:
    """A scenario's compiled test file (its helpers are any other file of tests/); for Python, a
    scenario's test_<id>.py, directly in its skill's folder."""
    if language == "python":
        return len(rel.parts) == 3 and rel.parts[0] == "tests" and rel.name.startswith("test_") and rel.suffix == ".py"
    return rel.parts[:1] == ("tests",) and rel.name.endswith(TEST_JS)


def _hidden(rel: Path, dotfiles: bool = False) -> bool:
    """npm's own files (.package-lock.json, .bin) and every dotfile or dot-folder inside a package
    (.npmrc, .env, .git, .github): nothing the code imports, and sometimes what it must not read."""
    parts = rel.parts[:1] if dotfiles else rel.parts
    return any(part.startswith(".") for part in parts)


def _folder(tf: tarfile.TarFile, name: str, owner: tuple[int, int, int]) -> None:
    info = tarfile.TarInfo(name)
    info.type, (info.uid, info.gid, info.mode) = tarfile.DIRTYPE, owner
    tf.addfile(info)


def build_payload(
    works: tuple[Work, ...], owners: Owners | None = None, harness: Path = nodefiles.NODE_DIR
) -> tuple[bytes, int]:
    """The tar unpacked at the sandbox's root folder, and its size in bytes once unpacked.

    h/ holds the harness; b/<key>/node_modules the installed packages (npm's, or pip's for Python); b/<key>/w
    the work folder, whose
    runs/ is the only folder the answers may write in."""
    own = owners or Owners()
    buf = io.BytesIO()
    size = 0
    with tarfile.open(fileobj=buf, mode="w", dereference=True) as tf:

        def add(path: Path, arcname: str, owner: tuple[int, int, int] | None = None) -> None:
            nonlocal size
            if not path.exists():  # a dangling link in node_modules: nothing to copy
                return
            info = _root_owned(tf.gettarinfo(str(path), arcname))
            if owner is not None:
                info.uid, info.gid, info.mode = owner
            if info.isreg():
                size += info.size
                with path.open("rb") as f:
                    tf.addfile(info, f)
            elif info.isdir():
                tf.addfile(info)

        add(harness, "h")
        for p in _walk(harness):
            add(p, f"h/{p.relative_to(harness).as_posix()}".rstrip("/."))
        for name, uid, gid, mode in own.dirs:
            _folder(tf, name, (uid, gid, mode))
        for work in works:
            add(work.folder, f"b/{work.key}")
            if work.packages is not None and work.packages.is_dir():
                for p in _walk(work.packages):
                    rel = p.relative_to(work.packages)
                    if not _hidden(rel, own.dotfiles):
                        add(p, f"b/{work.key}/node_modules/{rel.as_posix()}".rstrip("/."))
            for p in _walk(work.folder):
                rel = p.relative_to(work.folder)
                if rel.parts[:1] == ("runs",) or (is_test_file(rel, work.language) and not own.test_files):
                    continue
                add(p, f"b/{work.key}/w/{rel.as_posix()}".rstrip("/."), own.tests if rel == Path("tests") else None)
            _folder(tf, f"b/{work.key}/w/runs", own.runs)
    return buf.getvalue(), size


def test_file_tar(
    work: Work, test: str, base: str, owner: tuple[int, int], blank: tuple[str, ...], mode: int = 0o640
) -> bytes:
    """One answer's test file (`test`, relative to the work folder), for the archive API to unpack at
    `base`: owned by `owner` (root and the runners' group), read-only to the runner; and each of
    `blank`, the test files earlier answers in the same place had, emptied."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        for rel in blank:
            info = tarfile.TarInfo(f"{base}/{rel}" if base else rel)
            info.uid, info.gid, info.mode = *owner, mode
            tf.addfile(info, io.BytesIO(b""))
        data = (work.folder / test).read_bytes()
        info = tarfile.TarInfo(f"{base}/{test}" if base else test)
        info.uid, info.gid, info.mode, info.size = *owner, mode, len(data)
        tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def stage(works: tuple[Work, ...], owners: Owners, harness: Path = nodefiles.NODE_DIR) -> Path:
    """The payload unpacked into a new folder under the temp folder, for answers under another uid.

    SandboxError when the temp folder is out of other users' reach (set TMPDIR to one that is not)."""
    data, _ = build_payload(works, owners, harness)
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
                os.chown(target, member.uid, member.gid)
                os.chmod(target, member.mode)  # as written: tarfile's own attrs drop the sticky bit
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return root
