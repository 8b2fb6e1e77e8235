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
    from pydantic import BaseModel

FIX = 'run "skill-be run" again to write a new one, or delete that run folder'


def read_summary(path: Path) -> dict[str, Any]:
    """summary.json's data, once it has passed the summary model: every key the model names is there
    with its type (keys it does not name may be there too)."""
    name = shown(path)
    text = read_text(path, what="summary.json")
    data = load_json(text, name, FIX)
    from skill_be.project.places import Places
    from skill_be.project.validation import checked

    try:
        checked("summary", _model, data, name, Places(text, "json"))
    except ConfigError as e:
        raise ConfigError(f"{e}; {FIX}") from None
    assert isinstance(data, dict)  # it passed, so it is a mapping
    return data  # as written: the model's dump would drop the keys it does not name


def _model() -> type[BaseModel]:
    from skill_be.results.summary_models import SummaryModel

    return SummaryModel
