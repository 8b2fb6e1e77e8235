"""An adapter entry built in code (not read from a config) checked by its adapter's settings model:
what each built-in adapter does first, so a mistake is the line the config's model would give."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from skill_be.project.adapter_kinds import ADAPTERS, entry_title
from skill_be.project.places import Places

if TYPE_CHECKING:
    from skill_be.project.config import AdapterEntry
    from skill_be.project.where import Where


def check_settings(entry: AdapterEntry) -> None:
    """An entry's settings through its built-in adapter's model; a mistake is a ConfigError at it.

    The config's model has checked every entry it read already (project/adapter_settings.py); this is
    for an entry built in code. Settings that conform to the model's published schema are valid as
    they are, so the models are built only for a mistake (project/fastcheck.py)."""
    if entry.adapter not in ADAPTERS:
        return
    from skill_be.project.fastcheck import conforms

    data = dict(entry.settings)
    if conforms("config", data, definition=entry_title(entry.adapter)):
        return
    from skill_be.project.adapter_settings import settings_model
    from skill_be.project.validation import validate

    validate(settings_model(entry.adapter), data, entry.where.file, _Below(entry.where), _path_below(entry.where))


def _path_below(where: Where) -> Callable[[Sequence[str | int], str | None], str]:
    def label(loc: Sequence[str | int], key: str | None) -> str:
        w = where
        for part in loc:
            w = w.index(part) if isinstance(part, int) else w.key(part)
        return w.path

    return label


class _Below(Places):
    """The places of an entry's keys, found below the entry's own place in its file (when known)."""

    def __init__(self, where: Where) -> None:
        super().__init__("", "yaml")
        self.where = where

    def find(self, path: Sequence[str | int], *, key: bool = False) -> tuple[int, int] | None:
        places = self.where.places
        return places.find((*self.where.loc, *path), key=key) if places is not None else None
