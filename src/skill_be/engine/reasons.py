"""Why a skill blocks, as typed values: one `Reason` per thing the gate decided, in the order reports
word them (reports/gate.py `reason_text`), each with its kind, the config key (or part) it came from,
where it points (scenario, model, line) and the decision itself (`detail`). Every reader that needs
to know why (the result file, summary.json, verify, the action, the health check) reads these; no code
path recognises a reason by its sentence. Data only.
"""

from __future__ import annotations

from dataclasses import dataclass

from skill_be.engine.gate import (
    BaselinePreferred,
    FakeRun,
    Gate,
    NotHeldOn,
    RuleReason,
    ShortOfMinDelta,
    WorseThanPrevious,
    rule_key,
)

# The kinds of reason, as summary.json and the result file record them (`why[].kind`).
ERRORS = "errors"  # outputs (or trigger calls) that failed: gate.blockOnErrors
ZERO = "zero"  # a line at 0% with the skill on every model: gate.blockOnZero
REGRESSION = "regression"  # a critical line (or scenario) worse with the skill: gate.regressionOnCritical
INCONCLUSIVE = "inconclusive"  # evidence: a delta the reps cannot decide, with gate.inconclusive: block
NOT_GRADED = "not-graded"  # no scenario has a line to grade
TRIGGERS = "triggers"  # a trigger check that blocks (recall, false triggers)
MIN_DELTA = "min-delta"  # gate.minDelta
PREVIOUS = "previous"  # gate.previous
MODEL = "model"  # gate.models: a model that must hold, where the gate on it alone blocks
PAIRWISE = "pairwise"  # compare.pairwiseGate: the blind A/B's judge prefers the baseline
FAKE = "fake-run"  # adapter fake (run --fake): canned answers, never READY
KINDS = (ERRORS, ZERO, REGRESSION, INCONCLUSIVE, NOT_GRADED, TRIGGERS, MIN_DELTA, PREVIOUS, MODEL, PAIRWISE, FAKE)


@dataclass(frozen=True)
class ErrorCount:
    """Errors that block: outputs not generated, graded or tested (`has_tests`), or trigger calls."""

    n: int
    has_tests: bool = False
    triggers: bool = False


@dataclass(frozen=True)
class Reason:
    kind: str  # one of KINDS
    source: str  # the config key (or part) that decided it
    # The decision, worded by reports/gate.py by its type: an ErrorCount, the (scenario, line) at 0%, a
    # LineScore, EvidenceBlock or Inconclusive, the ungraded scenarios, a TriggerCheck, a RuleReason.
    detail: object
    scenario: str | None = None
    model: str | None = None
    line: str | None = None

    def to_json(self) -> dict[str, str]:
        """As summary.json and the result file record it (`why`), beside its words in `reasons`."""
        doc = {"kind": self.kind, "source": self.source}
        doc.update({k: v for k, v in (("scenario", self.scenario), ("model", self.model), ("line", self.line)) if v})
        return doc


def rule_reason(r: RuleReason) -> Reason:
    """A gate.minDelta or gate.previous decision as a Reason."""
    if isinstance(r, ShortOfMinDelta):
        return Reason(MIN_DELTA, rule_key(r), r)
    if isinstance(r, NotHeldOn):
        return Reason(MODEL, rule_key(r), r, model=r.model)
    if isinstance(r, BaselinePreferred):
        return Reason(PAIRWISE, rule_key(r), r)
    if isinstance(r, FakeRun):
        return Reason(FAKE, rule_key(r), r)
    assert isinstance(r, WorseThanPrevious)
    return Reason(PREVIOUS, rule_key(r), r, r.scenario, r.model, r.line)


def reasons(gate: Gate) -> list[Reason]:
    """Every reason the gate blocks, in the order reports word them."""
    out: list[Reason] = []
    if gate.errors and gate.error_blocks:
        out.append(Reason(ERRORS, "gate.blockOnErrors", ErrorCount(gate.errors, gate.has_tests)))
    out += [Reason(ZERO, "gate.blockOnZero", (sc, line), sc, None, line) for sc, line in gate.zero]
    source = "gate.regressionOnCritical"
    out += [Reason(REGRESSION, source, r, r.scenario, r.model, r.line) for r in gate.regressions]
    out += [Reason(REGRESSION, source, b, b.scenario, b.model, b.line) for b in gate.blocks]
    if gate.inconclusive_blocks:
        out += [Reason(INCONCLUSIVE, "gate.inconclusive", i, i.scenario, i.model, i.line) for i in gate.inconclusive]
    if gate.nothing_graded:
        out.append(Reason(NOT_GRADED, "graded", gate.ungraded))
    t = gate.trigger
    if t is not None:
        out += [Reason(TRIGGERS, "triggers", c, None, None, None) for c in t.blocking]
        if t.errors and t.block_on_errors:
            out.append(Reason(ERRORS, "gate.blockOnErrors", ErrorCount(t.errors, triggers=True)))
    return out + [rule_reason(r) for r in gate.rules.blocks]


def errors_alone_block(gate: Gate) -> bool:
    """The gate is NOT READY only because of errors: nothing measured blocks."""
    found = reasons(gate)
    return not gate.ready and bool(found) and all(r.kind == ERRORS for r in found)
