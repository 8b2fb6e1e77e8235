from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from skill_be.results.run_dir import RunDir, run_id, safe_name


def test_run_id_is_the_start_time_in_utc_with_milliseconds() -> None:
    assert run_id(datetime(2026, 10, 31, 16, 20, 5, 112_999, tzinfo=UTC)) == "2026-10-31T16-20-05-112Z"


def test_a_second_run_in_the_same_millisecond_gets_its_own_folder(tmp_path: Path) -> None:
    t = datetime(2026, 10, 31, 16, 20, 5, tzinfo=UTC)
    a, b = RunDir(tmp_path, t, str), RunDir(tmp_path, t, str)
    a.create()
    b.create()
    assert a.path.name == "2026-10-31T16-20-05-000Z" and b.path.name == "2026-10-31T16-20-05-000Z-2"


def test_model_labels_become_safe_folder_names() -> None:
    assert safe_name("claude-cli:claude-sonnet-4-5") == "claude-cli_claude-sonnet-4-5"
    assert safe_name("./adapter.py:x") == "adapter.py_x"
