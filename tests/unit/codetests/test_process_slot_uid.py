"""The process runner as root: a slot whose answer left a process that outlived every kill moves to
a fresh uid, so the next answer never shares a uid (and so signals and /proc access) with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skill_be.codetests.sandbox import identity, process


class FakeSandbox:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.handed: list[int] = []
        self.staged = None  # skill-be not as root here: the slot's old, one-uid path

    def folder_of(self, work: Any) -> Path:
        return self.folder

    def fresh_uid(self) -> int:
        self.handed.append(40000 + len(self.handed))
        return self.handed[-1]


@pytest.mark.parametrize(("killed_all", "moves"), [(True, False), (False, True)])
def test_a_slot_moves_to_a_fresh_uid_only_when_something_survived(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, killed_all: bool, moves: bool
) -> None:
    monkeypatch.setattr(identity, "kill_all", lambda uid, give_up_s=5.0: killed_all)
    monkeypatch.setattr(identity, "sweep", lambda uid, places: None)
    sandbox = FakeSandbox(tmp_path)
    slot = process.ProcessSlot(sandbox, None, 31337)  # type: ignore[arg-type]
    slot.finished(None, "run-1")  # type: ignore[arg-type]
    assert (slot.uid != 31337) is moves
    assert sandbox.handed == ([40000] if moves else [])


def test_every_uid_field_counts_as_the_uid_s_process() -> None:
    # This test's own process holds uid os.getuid() in all four fields of /proc/self/status.
    import os

    assert os.getpid() in identity.processes_of(os.getuid())
