"""The manual's promises about exit codes hold for the code (issue 20)."""

from __future__ import annotations

import re
from pathlib import Path

from skill_be.cli import EPILOG
from skill_be.errors import ConfigError, Interrupted, UsageError
from skill_be.reports.errors import EXIT_ERROR

ROOT = Path(__file__).resolve().parents[2]


def table_codes(text: str) -> list[int]:
    return [int(m) for m in re.findall(r"^\| (\d+) \|", text, re.MULTILINE)]


def test_the_manuals_exit_code_table_is_the_codes_the_cli_uses() -> None:
    page = (ROOT / "docs" / "reference" / "commands.md").read_text(encoding="utf-8")
    section = page[page.index("## Exit codes") :]
    section = section.split("\n#", 1)[0]
    codes = table_codes(section)
    assert codes == sorted(codes)
    expected = [0, 1, ConfigError.exit_code, EXIT_ERROR, Interrupted(2).exit_code, Interrupted(15).exit_code]
    assert codes == sorted(set(expected)) == [0, 1, 2, 3, 130, 143]
    assert UsageError("x").exit_code == 2
    row3 = next(line for line in section.splitlines() if line.startswith("| 3 |"))
    assert "gate.maxErrorShare" in row3 and "gate.errorVerdict: false" in row3


def test_the_help_and_the_errors_page_name_the_same_codes() -> None:
    for code in (0, 1, 2, 3, 130, 143):
        assert re.search(rf"\b{code}\b", EPILOG), code
    page = (ROOT / "docs" / "errors-and-exit-codes.md").read_text(encoding="utf-8")
    assert table_codes(page) == [0, 1, 2, 3, 130, 143]
    assert "Result: error, could not measure" in page
