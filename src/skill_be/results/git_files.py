"""Files as they were at another commit, read from git without touching the work tree.

One `git cat-file --batch` child reads every file a comparison needs (the base's result file, each
skill's eval file and tests), so a 20-skill project costs one process, not sixty. Every failure is a
value: a commit git does not have, a path it did not hold, git missing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from skill_be import proc

GIT_TIMEOUT = 60.0
# The workspace of a GitHub docker action belongs to another uid than the action's root: without
# this, git refuses to read it ("dubious ownership").
_SAFE = ("-c", "safe.directory=*")


class GitError(Exception):
    """git could not answer: not a repository, git missing, a commit it does not know."""


def git(root: Path, *args: str, stdin: bytes = b"", timeout: float = GIT_TIMEOUT) -> str:
    """Run git in `root` and return its stdout; GitError with git's own words when it fails."""
    try:
        done = proc.run_sync(["git", *_SAFE, *args], stdin=stdin, cwd=root, timeout=timeout)
    except proc.StartFailed as e:
        raise GitError(f"git could not start: {e}") from None
    if done.returncode != 0:
        why = proc.tail(done.stderr, 300).strip() or f"exit code {done.returncode}"
        raise GitError(f"git {args[0]}: {why}")
    return done.stdout.decode("utf-8", "replace")


def toplevel(folder: Path) -> Path:
    return Path(git(folder, "rev-parse", "--show-toplevel").strip())


def resolve(root: Path, rev: str) -> str | None:
    """The full commit id of `rev`, None when git does not have it."""
    try:
        return git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").strip() or None
    except GitError:
        return None


def close_refs(root: Path, ref: str) -> str:
    """` (did you mean "mian"?)` when a branch or tag of the repository is close to `ref`, else ""."""
    import difflib  # only a mistake needs it

    try:
        names = git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/tags", "refs/remotes")
    except GitError:
        return ""
    close = difflib.get_close_matches(ref, [n for n in names.split() if n != ref], n=2, cutoff=0.6)
    quoted = " or ".join(f'"{c}"' for c in close)
    return f" (did you mean {quoted}?)" if close else ""


def merge_base(root: Path, a: str, b: str) -> str | None:
    try:
        return git(root, "merge-base", a, b).strip() or None
    except GitError:
        return None


def fetch(root: Path, rev: str, depth: int = 1) -> bool:
    """Fetch one commit from origin (a shallow checkout lacks the base); False when it cannot."""
    try:
        git(root, "fetch", "--no-tags", "--quiet", f"--depth={depth}", "origin", rev, timeout=120.0)
    except GitError:
        return False
    return True


def read_at(root: Path, rev: str, paths: Sequence[str]) -> Mapping[str, bytes | None]:
    """Each path (relative to the repository's top) as it was at `rev`; None where it did not exist."""
    if not paths:
        return {}
    # cat-file reads one request a line: a path with a line break cannot be asked for (nor be a skill's).
    asked = [p for p in dict.fromkeys(paths) if "\n" not in p]
    request = "".join(f"{rev}:{p}\n" for p in asked).encode("utf-8")
    done = git_bytes(root, ["cat-file", "--batch"], request)
    found: dict[str, bytes | None] = dict.fromkeys(paths)
    at = 0
    for path in asked:
        end = done.index(b"\n", at)
        header = done[at:end].split(b" ")
        at = end + 1
        if len(header) != 3 or header[1] != b"blob":  # "<name> missing", or a folder
            continue
        size = int(header[2])
        found[path] = done[at : at + size]
        at += size + 1  # the content, then a line feed
    return found


def git_bytes(root: Path, args: Sequence[str], stdin: bytes) -> bytes:
    try:
        done = proc.run_sync(
            ["git", *_SAFE, *args], stdin=stdin, cwd=root, timeout=GIT_TIMEOUT, max_output=256 * 1024 * 1024
        )
    except proc.StartFailed as e:
        raise GitError(f"git could not start: {e}") from None
    if done.returncode != 0 or done.truncated:
        raise GitError(f"git {args[0]}: {proc.tail(done.stderr, 300).strip() or 'failed'}")
    return done.stdout


class Base(NamedTuple):
    """The commit a comparison reads: `commit` (full id) and how to name it to a reader."""

    commit: str
    label: str  # "main at 1a2b3c4 (merge base)"


def find_base(root: Path, ref: str, head: str = "HEAD", name: str = "") -> Base | GitError:
    """The merge base of `head` with `ref` (fetched from origin when the checkout lacks it), or `ref`
    itself when no merge base is known (a shallow history): a GitError says why neither works."""
    commit = resolve(root, ref)
    if commit is None and fetch(root, ref):
        commit = resolve(root, ref) or resolve(root, "FETCH_HEAD")
    if commit is None:
        return GitError(f"the base {ref} is not in this checkout and could not be fetched")
    shown = name or ref
    mb = merge_base(root, head, commit)
    if mb is not None:
        return Base(mb, f"{shown} at {mb[:7]} (merge base)")
    return Base(commit, f"{shown} at {commit[:7]}")
