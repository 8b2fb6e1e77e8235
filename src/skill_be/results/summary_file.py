"""Reading a run's summary.json through its model: a hand-edited, truncated or older file is one
line naming the file, the place and the fix."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.files import read_text
from skill_be.project.jsonfile import load_json

if TYPE_CHECKING:
    from skill_be.results.summary_models import SummaryModel

FIX = 'run "skill-be run" again to write a new one, or delete that run folder'


def load_summary(path: Path) -> tuple[SummaryModel, dict[str, Any]]:
    """The validated model and the file's data (which every key the model names is checked in)."""
    name = shown(path)
    text = read_text(path, what="summary.json")
    data = load_json(text, name, FIX)
    from skill_be.project.places import Places
    from skill_be.project.validation import validate
    from skill_be.results.summary_models import SummaryModel

    try:
        model = validate(SummaryModel, data, name, Places(text, "json"))
    except ConfigError as e:
        raise ConfigError(f"{e}; {FIX}") from None
    assert isinstance(data, dict)  # the model took it, so it is a mapping
    return model, data


def read_summary(path: Path) -> dict[str, Any]:
    """summary.json's data, once it has passed the summary model (for readers of plain data)."""
    return load_summary(path)[1]
