"""The one definition of a run's summary.json. `reports/summary.py` builds its content in this
model's shape and order (a test holds what it builds, and files of earlier versions, to
`SummaryModel.to_json()` byte for byte; run writes it without importing pydantic), and every reader
(`triage`, `regrade`, `merge`, the action) goes through `results/summary_file.read_summary`, so a
hand-edited, truncated or older file is one line, never a traceback, and no reader walks the JSON's
keys by hand.

Keys are written in the order the fields are declared here; a key the writer leaves out stays out
(an optional section such as the intervals), one it writes as null stays null. Keys beyond these are
kept as they are, after the known ones: new ones arrive with new features (a new section belongs
here as a field, in the place the writer puts it)."""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

from pydantic import ConfigDict, Field

from skill_be.project.fields import AnyText, AnyTextList, Count, Flag, Integer, ListOf, MapOf, Text
from skill_be.results.trigger_models import TriggersModel
from skill_be.results.written import Meta, Real, Written


class UsageSummary(Written):
    input: Integer | None = None  # every input token, the prompt cache's included
    output: Integer | None = None
    # Of input: written to and read from the provider's prompt cache; absent where it has none.
    cache_write: Integer | None = Field(None, alias="cacheWrite")
    cache_read: Integer | None = Field(None, alias="cacheRead")


class TestResultSummary(Written):
    __test__: ClassVar[bool] = False
    name: AnyText
    passed: Flag
    message: AnyText | None = None
    # Whose words `message` holds (answer, tests, skill-be): codetests/outcome.py
    message_from: AnyText | None = Field(None, alias="messageFrom")
    seconds: Real = 0


class TestsSummary(Written):
    __test__: ClassVar[bool] = False
    passed: Count
    total: Count
    error: AnyText | None = None
    tests: ListOf(TestResultSummary, "tests") = Field(default_factory=list)  # type: ignore[valid-type]


class EvidenceSummary(Written):
    """grader.evidence: one criterion's verdict as the judge said it, its quote, and whether the quote
    is in what the judge was shown (whitespace and case folded)."""

    said: Flag
    quote: AnyText | None = None
    found: Flag = False


class GradingSummary(Written):
    k: Integer
    verdicts: list[bool] | None = None
    error: AnyText | None = None
    attempts: Count = 0
    attempt_errors: AnyTextList = Field(default_factory=list, alias="attemptErrors")
    reasons: AnyText = ""
    seconds: Real = 0
    usage: UsageSummary | None = None
    evidence: ListOf(EvidenceSummary, "evidence") | None = None  # type: ignore[valid-type]
    judge: AnyText | None = None  # `grader` as a list: the judge that made this grading


class AgentRunSummary(Written):
    """An agent scenario's run, in numbers (agents/record.py `summary_of`; reports/agent.py shows them)."""

    loaded: Flag = Field(description="whether the agent loaded the skill under test")
    loaded_turn: Integer | None = Field(None, alias="loadedTurn")
    turns: Count = 0
    tool_calls: Count = Field(0, alias="toolCalls")
    input_tokens: Integer | None = Field(None, alias="inputTokens")
    output_tokens: Integer | None = Field(None, alias="outputTokens")
    cost_usd: Real | None = Field(None, alias="costUsd")
    seconds: Real | None = None
    exit: AnyText | None = None  # the CLI's exit code as text, "timeout", or "" when it never ran
    skills_offered: list[AnyText] | None = Field(None, alias="skillsOffered")


class AdapterSummary(Written):
    """What the adapter recorded about a call (its own keys, kept as written), and for an agent
    scenario the agent's run."""

    agent: AgentRunSummary | None = None


class OutputSummary(Written):
    """One generation of one arm: where its answer file is, its verdicts, gradings, tests and errors."""

    rep: Integer
    arm: Text
    file: AnyText | None = None
    error: AnyText | None = None
    seconds: Real = 0
    prompt_chars: Count = Field(0, alias="promptChars")
    usage: UsageSummary | None = None
    adapter: AdapterSummary | None = None
    verdicts: list[bool] | None = None
    gradings: ListOf(GradingSummary, "gradings") = Field(default_factory=list)  # type: ignore[valid-type]
    tests: TestsSummary | None = None
    errors: AnyTextList = Field(default_factory=list)
    notes: AnyTextList = Field(default_factory=list)


class IntervalSummary(Written):
    """An interval in percentage points, one decimal."""

    estimate: Real
    low: Real
    high: Real


class ArmCounts(Written):
    baseline: list[int]
    with_skill: list[int] = Field(alias="withSkill")


class LineSummary(Written):
    line: Text
    kind: Literal["criterion", "test"]
    baseline: Integer = Field(description="percent of reps that passed without the skill")
    with_skill: Integer = Field(alias="withSkill", description="percent with the skill")
    delta: Integer
    counts: ArmCounts | None = None
    delta_interval: IntervalSummary | None = Field(None, alias="deltaInterval")
    effect: AnyText | None = None


class Answers(Written):
    baseline: Count
    with_skill: Count = Field(alias="withSkill")


class PooledSummary(IntervalSummary):
    effect: AnyText
    answers: Answers
    low_sample: Flag = Field(alias="lowSample")
    reps_to_decide: Integer | None = Field(None, alias="repsToDecide")
    why: AnyText | None = None  # why the pooled label differs from its lines' (engine/agreement.py)


class ModelSummary(Written):
    lines: ListOf(LineSummary, "lines")  # type: ignore[valid-type]
    pooled: PooledSummary | None = None
    outputs: ListOf(OutputSummary, "outputs")  # type: ignore[valid-type]


class ScenarioSummary(Written):
    id: Text
    critical: Flag
    prompt: AnyText
    criteria: AnyTextList
    tests: AnyTextList
    models: MapOf(ModelSummary)  # type: ignore[valid-type]


class ZeroBlock(Written):
    scenario: Text
    line: Text


class RegressionBlock(Written):
    scenario: Text
    model: Text
    line: Text
    baseline: Integer
    with_skill: Integer = Field(alias="withSkill")


class NoiseNote(Written):
    scenario: Text
    model: Text
    line: AnyText | None  # None: the scenario as a whole
    interval: IntervalSummary
    reps_to_decide: Integer | None = Field(None, alias="repsToDecide")


class EvidenceBlock(Written):
    scenario: Text
    model: Text
    line: AnyText | None  # None: the scenario as a whole
    bound: IntervalSummary
    look: Integer


class Inconclusive(NoiseNote):
    reps: Integer


class TopUp(Written):
    scenario: Text
    model: Text
    reps_from: Integer = Field(alias="from")
    reps_to: Integer = Field(alias="to")


class GateSummary(Written):
    """The strict rule's blocks, the error count, then (engine.gate.Levels) the rule and its levels and,
    under the evidence rule, what it found."""

    zero: ListOf(ZeroBlock, "blocks")  # type: ignore[valid-type]
    regressions: ListOf(RegressionBlock, "blocks")  # type: ignore[valid-type]
    errors: Count
    rule: AnyText | None = None
    alpha: Real | None = None
    looks: Integer | None = None
    look: Integer | None = None
    scenario_level: Real | None = Field(None, alias="scenarioLevel")
    line_level: Real | None = Field(None, alias="lineLevel")
    zero_threshold: Real | None = Field(None, alias="zeroThreshold")
    margin: Real | None = None
    on_inconclusive: AnyText | None = Field(None, alias="onInconclusive")
    noise: ListOf(NoiseNote, "notes") = Field(default_factory=list)  # type: ignore[valid-type]
    blocks: ListOf(EvidenceBlock, "blocks") = Field(default_factory=list)  # type: ignore[valid-type]
    inconclusive: ListOf(Inconclusive, "lines") = Field(default_factory=list)  # type: ignore[valid-type]
    inconclusive_blocks: Flag = Field(False, alias="inconclusiveBlocks")
    top_up: ListOf(TopUp, "top-ups") = Field(default_factory=list, alias="topUp")  # type: ignore[valid-type]


class OverallEffect(IntervalSummary):
    label: AnyText
    low_sample: Flag = Field(alias="lowSample")
    seed: Integer | None = None
    one_scenario: Flag | None = Field(None, alias="oneScenario")
    why: AnyText | None = None  # why the overall label differs from the scenarios' (engine/agreement.py)


class SplitLineSummary(Written):
    """One criterion line: on how many answers (with two gradings or more) the gradings split."""

    scenario: Text
    model: Text
    line: AnyText
    split: Count
    answers: Count
    share: Real
    flagged: Flag = Field(description="split on more than grader.maxSplitShare of the answers")
    judges_apart: Count | None = Field(
        None, alias="judgesApart", description="answers the judges' majorities differ on"
    )
    judged: Count | None = Field(None, description="answers graded by two judges or more")


class JudgeSummary(Written):
    """The judge's own noise (engine/judge_noise.py): how often its gradings of one answer agree."""

    agreement: Real = Field(description="share of graded criteria on which every grading agreed")
    agreed: Count
    graded: Count
    max_split_share: Real = Field(alias="maxSplitShare")
    lines: ListOf(SplitLineSummary, "lines")  # type: ignore[valid-type]


class PreferenceSummary(Written):
    """compare.pairwise: the share (percent) of decided criteria where the judge preferred the skill's answer."""

    estimate: Real
    low: Real
    high: Real
    wins: Count
    losses: Count
    ties: Count
    pairs: Count = Field(description="pairs of answers with a decided criterion: the interval's trials")


class ComparisonSummary(Written):
    scenario: Text
    model: Text
    rep: Integer
    a: Text = Field(description='the arm the judge saw as "A" (the order was random)')
    preferred: AnyTextList = Field(description="per criterion: baseline, with-skill or neither")
    error: AnyText | None = None


class PairwiseSummary(Written):
    preference: PreferenceSummary | None = None
    comparisons: ListOf(ComparisonSummary, "comparisons")  # type: ignore[valid-type]


class Tokens(Written):
    input: Integer
    output: Integer
    cache_write: Integer | None = Field(None, alias="cacheWrite")
    cache_read: Integer | None = Field(None, alias="cacheRead")


class TokenSummary(Written):
    baseline: Tokens
    with_skill: Tokens = Field(alias="withSkill")
    estimated: Flag = False


class CostSummary(Written):
    baseline: Real
    with_skill: Real = Field(alias="withSkill")
    skill_text: Real = Field(alias="skillText")


class CallCounts(Written):
    made: Count
    cached: Count


class WhyRecord(Written):
    """One blocking reason as data (engine/reasons.py `Reason`), beside its words in `reasons`."""

    kind: Text = Field(
        description="errors, zero, regression, inconclusive, not-graded, triggers, min-delta, previous, model"
    )
    source: Text = Field(description="the config key (or part) that decided it")
    scenario: AnyText | None = None
    model: AnyText | None = None
    line: AnyText | None = None


class PassCount(Written):
    passed: Count
    total: Count


class Loaded(Written):
    agent: list[int] | None = Field(None, description="agent scenarios: [with-skill runs that loaded it, runs]")
    trigger: list[int] | None = Field(None, description="trigger evals: [should-trigger calls that loaded it, calls]")


class AcrossRow(Written):
    """One model's row of the table across models (engine/across.py, reports/across.py)."""

    model: Text
    required: Flag = Field(
        description="gate.models names it: the skill must hold on it alone (without gate.models the gate pools every model)"
    )
    loaded: Loaded
    baseline: PassCount = Field(description="lines passed and counted over every scenario, without the skill")
    with_skill: PassCount = Field(alias="withSkill")
    effect: IntervalSummary | None = Field(None, description="the model's effect over no skill, 95%, in points")
    verdict: Text = Field(description="the gate on this model alone, in the words of reports/strings.py")


class SkillSummary(Written):
    ready: Flag
    reasons: AnyTextList
    why: ListOf(WhyRecord, "why") | None = None  # type: ignore[valid-type]  # the reasons as data, same order
    across: ListOf(AcrossRow, "across") | None = None  # type: ignore[valid-type]  # several models: a row each
    errors: Count
    seconds: Real
    fingerprint: Text
    graded: Flag
    gate: GateSummary
    effect: OverallEffect | None = None
    judge: JudgeSummary | None = None  # with gradings >= 2 (reports/judge.py)
    pairwise: PairwiseSummary | None = None  # compare.pairwise (reports/pairwise.py)
    scenarios: ListOf(ScenarioSummary, "scenarios")  # type: ignore[valid-type]
    triggers: TriggersModel | None = None  # trigger evals (results/triggers.py)
    tokens: TokenSummary | None = None
    cost: CostSummary | None = None
    calls: CallCounts | None = None
    previous: MapOf(Any) | None = Field(  # type: ignore[valid-type]
        None, description="run --against: the change against the previous version, overall and per line"
    )
    interrupted: Flag | None = None  # Ctrl-C: the answers so far (wiring/interrupted.py)


class ProblemSummary(Written):
    """One problem a check found: where (skill, file, line) and what."""

    skill: AnyText | None = None
    file: AnyText | None = None
    line: Integer | None = None
    message: AnyText = ""


class CheckSummary(Written):
    name: Text
    lines: AnyTextList
    blocks: Flag
    problems: ListOf(ProblemSummary, "problems")  # type: ignore[valid-type]


class CheckDocument(Written):
    """`skill-be check --json`: each check's lines and problems, the warnings, the result."""

    result: Text
    exit_code: Integer = Field(alias="exitCode")
    config: AnyText
    checks: ListOf(CheckSummary, "checks")  # type: ignore[valid-type]
    warnings: AnyTextList = Field(default_factory=list)
    lines: AnyTextList = Field(default_factory=list)


class CacheSummary(Written):
    folder: AnyText
    calls: CallCounts


class ShardSummary(Written):
    index: Integer
    of: Integer
    plan: AnyText


class SummaryModel(Written):
    """A run's summary.json: the run's settings, then each skill, then the checks."""

    model_config = ConfigDict(title="skill-be summary.json")

    schema_version: Integer = Field(alias="schema")
    skill_be_version: Text = Field(alias="skillBeVersion")
    started_at: AnyText | None = Field(None, alias="startedAt")
    config: AnyText | None = None
    commit: AnyText | None = Field(
        None, description="the git commit the config's folder was at when the run started (absent outside git)"
    )
    regrade_of: AnyText | None = Field(None, alias="regradeOf", description="regrade: the run folder it graded")
    reps: Integer | None = None
    gradings: Integer | None = None
    concurrency: Integer | None = None
    timeout_seconds: Integer | None = Field(None, alias="timeoutSeconds")
    models: ListOf(Meta, "models") | None = None  # type: ignore[valid-type]
    grader: Meta | None = None
    graders: ListOf(Meta, "judges") | None = Field(  # type: ignore[valid-type]
        None, description="`grader` as a list: every judge, the first being `grader`"
    )
    code_tests: Meta | None = Field(None, alias="codeTests")
    cache: CacheSummary | None = None
    shard: ShardSummary | None = None
    interrupted: Flag | None = None  # Ctrl-C: some skills unfinished (wiring/interrupted.py)
    fake_run: Flag | None = Field(
        None, alias="fakeRun", description="run --fake (adapter fake): canned answers, never READY, no result file"
    )
    skills: MapOf(SkillSummary)  # type: ignore[valid-type]
    checks: ListOf(CheckSummary, "checks") | None = None  # type: ignore[valid-type]

    @classmethod
    def of(cls, doc: dict[str, Any]) -> SummaryModel:
        """The model of a document skill-be is about to write (a mistake here is skill-be's bug)."""
        return cls.model_validate(doc)

    def to_doc(self) -> dict[str, Any]:
        """The JSON document, keys as written: exactly the keys given, in the model's order."""
        return self.model_dump(by_alias=True, exclude_unset=True, mode="json")

    def to_json(self) -> str:
        return json.dumps(self.to_doc(), indent=2, ensure_ascii=False) + "\n"

    def run_meta(self) -> dict[str, Any]:
        """The run's settings (every key before `skills`), as written."""
        return {k: v for k, v in self.to_doc().items() if k not in RUN_PARTS}


RUN_PARTS = ("schema", "skillBeVersion", "skills", "checks")
