"""The workspace of an agent run: the files it starts with (from beside the eval file and inline),
optionally a git repository with one commit, as a map path -> bytes; its digest for the cache; the
tar streams that carry it into and out of a container; and the diff of the agent's work."""

from __future__ import annotations

import difflib
import hashlib
import io
import os
import tarfile
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath

from skill_be.proc import StartFailed, run_sync
from skill_be.project.agent_models import AgentScenario

Files = dict[str, bytes]  # posix path relative to the workspace -> content

MAX_WORKSPACE = 64 << 20  # bytes the agent's workspace may hold when it is copied out
MAX_DIFF = 60_000  # characters of diff kept (the judge gets a shorter cut)
GIT_ENV = {
    "GIT_AUTHOR_NAME": "skill-be",
    "GIT_AUTHOR_EMAIL": "skill-be@localhost",
    "GIT_COMMITTER_NAME": "skill-be",
    "GIT_COMMITTER_EMAIL": "skill-be@localhost",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


class WorkspaceError(Exception):
    """The workspace cannot be built or copied (too big, unreadable): an error of that output."""


def _walk(root: Path) -> Iterator[tuple[str, Path]]:
    """Regular files under `root`, sorted; symlinks are left out (they could point outside)."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d != ".git" and not (Path(dirpath) / d).is_symlink())
        for name in sorted(filenames):
            p = Path(dirpath) / name
            if p.is_file() and not p.is_symlink():
                yield p.relative_to(root).as_posix(), p


def start_files(scenario: AgentScenario) -> Files:
    """What the agent starts with: each `from` folder's contents (a file: at its name), then the
    inline files, which win over copied ones."""
    files: Files = {}
    for source in scenario.sources:
        p = (scenario.base / source).resolve()
        if p.is_dir():
            for rel, full in _walk(p):
                files[rel] = full.read_bytes()
        elif p.is_file():
            files[p.name] = p.read_bytes()
    for rel, text in scenario.inline:
        files[rel] = text.encode("utf-8")
    if sum(len(v) for v in files.values()) > MAX_WORKSPACE:
        raise WorkspaceError(f"the workspace is over {MAX_WORKSPACE >> 20} MB")
    return files


def check_files(scenario: AgentScenario) -> Files:
    """The `checkFiles` the checks use, laid out as `from` is (never shown to the agent)."""
    files: Files = {}
    for source in scenario.check_files:
        p = (scenario.base / source).resolve()
        if p.is_dir():
            for rel, full in _walk(p):
                files[f"{p.name}/{rel}"] = full.read_bytes()
        elif p.is_file():
            files[p.name] = p.read_bytes()
    return files


def digest(files: Mapping[str, bytes]) -> str:
    """The content's digest; `.git/` is left out (its index holds file times: the same start files
    make the same commit, and `git` is part of the agent settings)."""
    h = hashlib.sha256()
    for path in sorted(p for p in files if not p.startswith(".git/")):
        h.update(path.encode() + b"\0" + hashlib.sha256(files[path]).digest())
    return h.hexdigest()


def git_repo(files: Mapping[str, bytes]) -> Files:
    """`files` plus a `.git` folder with one commit of them (fixed author and date: the same files
    give the same commit)."""
    with tempfile.TemporaryDirectory(prefix="skill-be-ws-") as tmp:
        root = Path(tmp)
        write_files(root, files)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, **GIT_ENV}
        for argv in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "start"]):
            try:
                done = run_sync(argv, cwd=root, env=env, timeout=60)
            except StartFailed as e:
                raise WorkspaceError(f"git is needed for workspace git: true ({e})") from None
            if done.returncode != 0 and argv[1] != "commit":  # commit fails on an empty workspace: fine
                raise WorkspaceError(f"git {argv[1]} failed: {done.stderr.decode(errors='replace')[-300:]}")
        out = dict(files)
        for rel, full in _walk_all(root / ".git"):
            out[f".git/{rel}"] = full.read_bytes()
        return out


def _walk_all(root: Path) -> Iterator[tuple[str, Path]]:
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink():
            yield p.relative_to(root).as_posix(), p


def write_files(root: Path, files: Mapping[str, bytes]) -> None:
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)


def read_files(root: Path, limit: int = MAX_WORKSPACE) -> Files:
    files: Files = {}
    total = 0
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in sorted(filenames):
            p = Path(dirpath) / name
            if p.is_symlink() or not p.is_file():
                continue
            total += p.stat().st_size
            if total > limit:
                raise WorkspaceError(f"the workspace grew over {limit >> 20} MB")
            files[p.relative_to(root).as_posix()] = p.read_bytes()
    return files


def to_tar(files: Mapping[str, bytes], prefix: str = "", folders: tuple[str, ...] = ()) -> bytes:
    """A tar stream of `files` under `prefix`; folders and files writable by the container's user
    (put_archive creates them as root)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        dirs: set[str] = set()
        for name in folders:  # folders that must exist even when empty
            dirs.add(name)
            info = tarfile.TarInfo(name)
            info.type, info.mode, info.uid, info.gid = tarfile.DIRTYPE, 0o755, 65534, 65534
            tar.addfile(info)
        for rel in sorted(files):
            path = PurePosixPath(prefix) / rel if prefix else PurePosixPath(rel)
            for parent in reversed(path.parents):
                name = str(parent)
                if name not in (".", "/") and name not in dirs:
                    dirs.add(name)
                    info = tarfile.TarInfo(name)
                    info.type, info.mode, info.uid, info.gid = tarfile.DIRTYPE, 0o755, 65534, 65534
                    tar.addfile(info)
            info = tarfile.TarInfo(str(path))
            data = files[rel]
            info.size, info.uid, info.gid = len(data), 65534, 65534
            info.mode = 0o755 if data.startswith(b"#!") or rel.endswith(".sh") else 0o644
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def from_tar(chunks: Iterator[bytes], strip: str, limit: int = MAX_WORKSPACE) -> Files:
    """The regular files of a get_archive stream, the top folder `strip` removed; over `limit`
    bytes is a WorkspaceError (a huge file ends as that output's error)."""
    buf = io.BytesIO()
    for chunk in chunks:
        buf.write(chunk)
        if buf.tell() > limit + (1 << 20):
            raise WorkspaceError(f"the workspace grew over {limit >> 20} MB; it was not copied out")
    buf.seek(0)
    files: Files = {}
    with tarfile.open(fileobj=buf, mode="r:") as tar:
        for m in tar:
            if not m.isfile():
                continue
            rel = m.name[len(strip) + 1 :] if m.name.startswith(strip + "/") else m.name
            f = tar.extractfile(m)
            if f is not None:
                files[rel] = f.read()
    return files


def diff(before: Mapping[str, bytes], after: Mapping[str, bytes], limit: int = MAX_DIFF) -> str:
    """A unified diff of the agent's work (`.git/` left out), cut at `limit` characters with a line
    saying what was cut."""
    parts: list[str] = []
    for path in sorted(set(before) | set(after)):
        if path.startswith(".git/"):
            continue
        a, b = before.get(path), after.get(path)
        if a == b:
            continue
        if (a is not None and b"\0" in a) or (b is not None and b"\0" in b):
            parts.append(f"Binary file {path} {'added' if a is None else 'deleted' if b is None else 'changed'}\n")
            continue
        old = [] if a is None else a.decode("utf-8", errors="replace").splitlines(keepends=True)
        new = [] if b is None else b.decode("utf-8", errors="replace").splitlines(keepends=True)
        lines = difflib.unified_diff(
            old, new, "/dev/null" if a is None else f"a/{path}", "/dev/null" if b is None else f"b/{path}"
        )
        parts.append("".join(x if x.endswith("\n") else x + "\n" for x in lines))
    return cut("".join(parts), limit, "diff")


def cut(text: str, limit: int, what: str) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters of the {what} cut]\n"
