"""A batch-mode run's journal, `batches.json` in its run folder: every provider batch as it is
submitted (model, provider, batch id, the items' ids), rewritten atomically each time, and what
`run --resume` needs to run the same work again (the config, the skills, the reps). A resumed run
reads it so the items of a journaled batch are fetched, never submitted twice (adapters/batch.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from skill_be.adapters.batch import Submitted
from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.results.atomic import write_atomic

NAME = "batches.json"
VERSION = 1


class BatchRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    model: str
    provider: str
    id: str
    items: list[str]


class JournalModel(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    version: int = VERSION
    config: str
    skills: list[str] = Field(default_factory=list)
    reps: int | None = None
    batches: list[BatchRecord] = Field(default_factory=list)


class BatchJournal:
    """The journal of one run folder: `add` writes the whole file again, atomically."""

    def __init__(self, folder: Path, doc: JournalModel) -> None:
        self.path = folder / NAME
        self.doc = doc

    @classmethod
    def start(cls, folder: Path, config: Path, skills: Sequence[str], reps: int | None) -> BatchJournal:
        journal = cls(folder, JournalModel(config=str(config), skills=list(skills), reps=reps))
        journal.write()
        return journal

    def write(self) -> None:
        write_atomic(self.path, json.dumps(self.doc.model_dump(by_alias=True), indent=2) + "\n")

    def submitted(self) -> Sequence[Submitted]:
        return [Submitted(b.model, b.provider, b.id, tuple(b.items)) for b in self.doc.batches]

    def add(self, entry: Submitted) -> None:
        self.doc.batches.append(BatchRecord(model=entry.model, provider=entry.provider, id=entry.batch_id,
                                            items=list(entry.items)))  # fmt: skip
        self.write()


def read_journal(folder: Path) -> BatchJournal:
    """The journal of a run folder to resume; a folder without one (or one unreadable) is a ConfigError
    naming the folder and what to do."""
    path = folder / NAME
    if not folder.is_dir():
        raise ConfigError(f"{shown(folder)}: no such run folder; --resume takes the run folder of an interrupted "
                          "run --batch (under the results folder)")  # fmt: skip
    if not path.is_file():
        raise ConfigError(f"{shown(folder)}: not the run folder of a run --batch (it has no {NAME}); pass the folder "
                          "an interrupted run --batch printed, or run without --resume")  # fmt: skip
    try:
        doc = JournalModel.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError, ValueError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ConfigError(
            f"{shown(path)}: cannot be read ({first}); it is written by run --batch, not by hand"
        ) from None
    return BatchJournal(folder, doc)
