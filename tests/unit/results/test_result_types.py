"""The result file's typed documents (results/result_file.py TypedDicts) name exactly the keys of its
model (results/models.py), so code that reads an entry by key reads what the file holds."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict, get_args, get_origin, get_type_hints

import pytest
from pydantic import BaseModel

from skill_be.engine.reasons import KINDS
from skill_be.results import models, result_file

PAIRS = [
    (result_file.ResultEntry, models.ResultEntryModel),
    (result_file.Score, models.ScoreModel),
    (result_file.ArmCount, models.ArmCount),
]


def keys_of(model: type[BaseModel]) -> set[str]:
    return {f.alias or name for name, f in model.model_fields.items()}


def required_of(model: type[BaseModel]) -> set[str]:
    return {f.alias or name for name, f in model.model_fields.items() if f.is_required()}


@pytest.mark.parametrize(("typed", "model"), PAIRS, ids=lambda x: getattr(x, "__name__", ""))
def test_the_typed_document_names_the_models_keys(typed: Any, model: type[BaseModel]) -> None:
    assert set(get_type_hints(typed)) == keys_of(model)
    hints = get_type_hints(typed, include_extras=True)  # NotRequired survives only here (postponed annotations)
    assert {k for k, h in hints.items() if get_origin(h) is not NotRequired} == required_of(model)


def test_a_misspelt_key_is_seen() -> None:  # control
    class Wrong(TypedDict):
        passed: int
        totl: int

    assert set(get_type_hints(Wrong)) != keys_of(models.ArmCount)


def test_every_kind_of_reason_is_one_the_file_takes() -> None:
    # a kind the model lacks makes the run's own entry fail its check (a fake run's "fake-run" did)
    assert set(get_args(models.ReasonRecord.model_fields["kind"].annotation)) == set(KINDS)
