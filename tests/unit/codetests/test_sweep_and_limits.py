"""The process runner's sweep (what an answer's uid left in world-writable folders, other users'
included) and its check that the answer's process limit took."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skill_be.codetests.sandbox import identity, separate

UID = 345_678  # nobody's


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    assert os.geteuid() == 0, "files of another uid need root to make (CI runs as root)"
    top = tmp_path / "tmp"
    top.mkdir(mode=0o1777)
    top.chmod(0o1777)
    return top


def own(path: Path, uid: int) -> Path:
    os.chown(path, uid, uid)
    return path


def test_the_sweep_removes_the_uid_s_entries_in_open_folders_below_and_nothing_else(shared: Path) -> None:
    other = shared / "someones"  # another user's world-writable folder
    other.mkdir()
    other.chmod(0o1777)
    own(other, 1234)
    closed = shared / "closed"  # not world-writable: the answer could not have written there
    closed.mkdir(mode=0o755)
    (shared / "a").write_text("x")
    own(shared / "a", UID)
    (other / "b").write_text("x")
    own(other / "b", UID)
    (other / "d").mkdir()
    deep_dir = own(other / "d", UID)
    kept = [shared / "root-file", other / "x-of-1234", closed / "c"]
    for p in kept:
        p.write_text("x")
    own(closed / "c", UID)  # below a folder it could not write to: out of the sweep's places
    places = tuple(identity._open_folders(shared, identity.DEPTH, None))
    assert set(places) == {shared, other}
    identity.sweep(UID, places)
    assert not (shared / "a").exists() and not (other / "b").exists() and not deep_dir.exists()
    assert all(p.exists() for p in kept)


def test_check_limits_reads_proc_and_names_a_limit_that_did_not_take() -> None:
    me = os.getpid()
    text = Path(f"/proc/{me}/limits").read_text().split("Max processes")[1].split()[:2]
    soft, hard = (int(x) if x != "unlimited" else -1 for x in text)
    assert separate.check_limits(me, 0) is None  # no limit asked
    if soft == hard and soft > 0:
        assert separate.check_limits(me, soft) is None
    assert "not 7" in (separate.check_limits(me, 7) or "")
