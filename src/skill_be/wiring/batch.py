"""Batch mode's wiring (`run --batch`, `batch: true`, `run --resume`): the models refused before any
call when their adapter has no batch API, the batch price in every cost figure, and the models under
test and the judges wrapped in a `Batcher` (adapters/batch.py) whose journal is the run folder's
batches.json (results/batch_journal.py)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from skill_be.adapters.batch import Batcher, BatchProgress, Timing
from skill_be.engine.calls import Model
from skill_be.errors import SkillBeError
from skill_be.paths import shown
from skill_be.project.config import Config
from skill_be.project.loader import Project
from skill_be.results.batch_journal import BatchJournal, JournalModel, read_journal
from skill_be.wiring.assembly import Parts

DRAIN_SECONDS = 30.0  # how long an interrupted run waits for a batch it is submitting to be journaled
BATCH_APIS = ("anthropic", "openai")  # the adapters with a provider batch API (adapters/batch_*.py)


def check_batch(config: Config, resumed: bool) -> None:
    """Every model under test and every judge must have a batch API: else one line, exit 2."""
    flag = "--resume" if resumed else f"--batch (or batch: true in {shown(config.path)})"
    for entry in (*config.models, *config.graders):
        if entry.adapter not in BATCH_APIS:
            raise SkillBeError(
                f"{flag}: model {entry.id} (adapter {entry.adapter}) has no provider batch API; batch mode takes "
                f"the {' and '.join(BATCH_APIS)} adapters only: run it without batch mode"
            )


def batch_priced(project: Project) -> Project:
    """The project with every price at its batch price (`batchDiscount`): the report, summary.json
    and --dry-run all read these."""
    config = project.config
    return project._replace(config=config._replace(pricing={m: p.batched() for m, p in config.pricing.items()}))


def resume_of(folder: str, shard: str | None) -> JournalModel:
    """The journal of the run folder to resume; with --shard, or a folder without a journal, exit 2."""
    if shard is not None:
        raise SkillBeError(f"--resume {folder}: a sharded run cannot be resumed; drop --shard (the resumed run "
                         "does the whole work of the interrupted one)")  # fmt: skip
    return read_journal(Path(folder)).doc


class Batching:
    """The run's batchers: one per model under test and per judge, sharing the run folder's journal."""

    def __init__(self, config: Config, journal: BatchJournal) -> None:
        self.journal = journal
        self.timing = Timing.polling(config.batch_poll_seconds)
        self.batchers: list[Batcher] = []
        self._hinted = False

    def wrap(self, parts: Parts) -> Parts:
        models = [self._batched(m) for m in parts.models]
        grader = self._batched(parts.grader) if parts.grader is not None else None
        return replace(parts, models=models, grader=grader, more_graders=tuple(self._many(parts.more_graders)))

    def _many(self, models: Sequence[Model]) -> list[Model]:
        return [self._batched(m) for m in models]

    def _batched(self, model: Model) -> Model:
        wire = getattr(model.adapter, "batch_wire", None)
        if wire is None:  # pragma: no cover - check_batch refused it before any call
            raise SkillBeError(f"--batch: model {model.label} has no provider batch API")
        batcher = Batcher(model.label, model.adapter, wire(), self.journal, self.tell, self.timing)  # type: ignore[arg-type]
        self.batchers.append(batcher)
        return Model(model.label, batcher)

    async def drain(self) -> None:
        """An interrupted run: each submission in flight answered and journaled first (DRAIN_SECONDS)."""
        for b in self.batchers:
            await b.drain(DRAIN_SECONDS)

    def tell(self, progress: BatchProgress) -> None:
        """The progress line on stderr; after the first submission, how to resume."""
        from skill_be.reports.batch import progress_line, resume_line

        print(progress_line(progress), file=sys.stderr, flush=True)
        if not self._hinted and not progress.resumed:
            self._hinted = True
            print(resume_line(shown(self.journal.path.parent)), file=sys.stderr, flush=True)
