"""The line the check run's annotation points at for a scenario: its `id` in the eval file, read by the
project's place reader, not by a pattern over the text (which an `id` of another object can fool)."""

from __future__ import annotations

from pathlib import Path

from skill_be.github.gather import scenario_lines

EVAL = """{
  "skill": "dates",
  "triggers": {"should": [{"id": "leap-year", "query": "is 2100 a leap year?"}]},
  "scenarios": [
    {"prompt": "p", "criteria": ["c"],
     "id": "leap-year"},
    {
      "id": "say \\"hi\\"",
      "prompt": "q"
    }
  ]
}
"""


def test_each_scenario_gets_the_line_of_its_own_id(tmp_path: Path) -> None:
    path = tmp_path / "dates.json"
    path.write_text(EVAL, encoding="utf-8")
    assert scenario_lines(path) == {"leap-year": 6, 'say "hi"': 8}


def test_a_file_that_is_not_json_gives_no_lines(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"scenarios": [', encoding="utf-8")
    assert scenario_lines(path) == {}
    assert scenario_lines(tmp_path / "missing.json") == {}
