"""Batch mode's lines (adapters/batch.py `BatchProgress`): a batch's progress, and the hint that
says how to go on after an interruption."""

from __future__ import annotations

from skill_be.adapters.batch import BatchProgress
from skill_be.reports.strings import BATCH_PROGRESS, BATCH_RESUME


def progress_line(p: BatchProgress) -> str:
    """One line per change of a batch: submitted, done and failed items, and the provider's latest end
    (its expiry) where it gives one, or "ended"."""
    how = "fetched from an earlier run" if p.resumed else "submitted"
    end = ", ended" if p.ended else f", the provider ends it by {p.ends_by}" if p.ends_by else ""
    return BATCH_PROGRESS.format(
        model=p.model, batch_id=p.batch_id, how=how, submitted=p.submitted, done=p.done, failed=p.failed, end=end
    )


def resume_line(folder: str) -> str:
    return BATCH_RESUME.format(folder=folder)
