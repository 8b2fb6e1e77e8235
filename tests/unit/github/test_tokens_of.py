"""The PR comment's token sums read from summary.json keep the prompt cache's reads and writes apart."""

from __future__ import annotations

from skill_be.github.gather import tokens_of
from skill_be.reports.pr_comment import TokenSum
from skill_be.results.summary_models import SkillSummary, SummaryModel, TokenSummary


def summary(*token_docs: dict[str, object]) -> SummaryModel:
    skills = {
        f"s{i}": SkillSummary.model_construct(scenarios=[], tokens=TokenSummary.model_validate(doc))
        for i, doc in enumerate(token_docs)
    }
    return SummaryModel.model_construct(skills=skills)


def test_cache_reads_and_writes_are_summed_per_arm() -> None:
    doc = {
        "baseline": {"input": 1000, "output": 200},
        "withSkill": {"input": 12400, "output": 310, "cacheRead": 9000, "cacheWrite": 1100},
    }
    sums = tokens_of(summary(doc, doc))
    assert sums["baseline"] == TokenSum(2000, 400, 0, 0)
    assert sums["with skill"] == TokenSum(24800, 620, 18000, 2200)


def test_a_run_without_the_cache_has_none() -> None:  # control: no cache keys, no cached part
    sums = tokens_of(summary({"baseline": {"input": 5, "output": 1}, "withSkill": {"input": 9, "output": 2}}))
    assert sums == {"baseline": TokenSum(5, 1), "with skill": TokenSum(9, 2)}
