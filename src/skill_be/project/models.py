"""The one definition of `skill-be.yaml` and of an eval file: pydantic models with the files' own
(camelCase) keys. `config.py` and `evals.py` turn a validated model into the records the rest of
skill-be uses; `skill-be schema` publishes these models as JSON Schemas."""

from __future__ import annotations

from keyword import iskeyword, kwlist
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)

from skill_be.project.adapter_settings import Entry, GraderEntry
from skill_be.project.agent_models import (
    AGENT_GRADED_SCHEMA,
    AGENT_SCHEMA_RULES,
    MODES,
    AgentSettingsModel,
    Check,
    ExpectModel,
    WorkspaceModel,
    check_agent_keys,
    has_agent_lines,
)
from skill_be.project.agent_world import EnvironmentModel, Servers
from skill_be.project.assertion_models import AssertionModel, BudgetModel
from skill_be.project.fields import (
    NOT_BLANK,
    AnyText,
    Flag,
    NonEmptyTextList,
    Number,
    PositiveInt,
    PositiveNumber,
    Share,
    Strict,
    Text,
    TextList,
    TextMap,
    choice,
    fail,
)
from skill_be.project.references import VERDICTS
from skill_be.project.rules import (
    DEFAULT_RESULT_FILE,
    DEFAULT_RESULTS,
    FILE_NAME_TRAPS,
    IDENTIFIER,
    JS_RESERVED,
    LANGUAGE_SPELLING,
    LANGUAGE_SPELLINGS,
    LANGUAGES,
    MAX_DESCRIPTION,
    MAX_TIMEOUT,
    PRESETS,
    REQUIRED,
    SANDBOXES,
    output_language,
    valid_file_name,
)
from skill_be.project.trigger_models import TriggerGateModel, TriggersModel
from skill_be.project.triggers import MAX_TRIGGER_TURNS
from skill_be.project.where import type_name

# --- skill-be.yaml ---------------------------------------------------------------------------------


def _dollars(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        fail(f"must be a number of US dollars, 0 or more, not {type_name(value)}")
    return float(value)


Dollars = Annotated[float, Field(ge=0), BeforeValidator(_dollars)]


class PriceModel(Strict):
    """One model's prices (`pricing:`), in US dollars per million tokens."""

    input: Dollars = Field(description="US dollars per million input tokens")
    output: Dollars = Field(description="US dollars per million output tokens")
    cache_write: Dollars | None = Field(
        None,
        alias="cacheWrite",
        description="US dollars per million input tokens written to the prompt cache (default: input)",
    )
    cache_read: Dollars | None = Field(
        None,
        alias="cacheRead",
        description="US dollars per million input tokens read from the prompt cache (default: input)",
    )
    batch_discount: Share = Field(
        0.5,
        alias="batchDiscount",
        description="the share of every price taken off in batch mode (run --batch, batch: true): 0.5 is half price",
        json_schema_extra={"minimum": 0, "maximum": 1},
    )


def _price_map(value: object) -> object:
    if not isinstance(value, dict):
        fail(
            "must map each model id to its prices, such as claude-sonnet-4-5: {input: 3, output: 15} "
            f"(US dollars per million tokens), not {type_name(value)}"
        )
    return value


Pricing = Annotated[dict[str, PriceModel], BeforeValidator(_price_map)]


def _non_empty_entries(value: object) -> object:
    if value == []:
        fail("must be an entry or a non-empty list of entries")
    return value


def _entries(entry: Any) -> Any:
    """One entry or a non-empty list of entries (`model`, `grader`)."""
    return Annotated[
        Annotated[entry, Tag("<one>")]
        | Annotated[list[entry], Field(min_length=1), BeforeValidator(_non_empty_entries), Tag("<list>")],
        Discriminator(lambda v: "<list>" if isinstance(v, list) else "<one>"),
    ]


Models = _entries(Entry)
Graders = _entries(GraderEntry)


class GateModel(Strict):
    regression_on_critical: Flag = Field(True, alias="regressionOnCritical")
    block_on_zero: Flag = Field(True, alias="blockOnZero")
    block_on_errors: Flag = Field(True, alias="blockOnErrors")
    rule: choice(("strict", "evidence"), "value") = Field("strict")  # type: ignore[valid-type]
    margin: PositiveNumber = Field(
        30.0,
        description="percentage points of harm that the evidence rule must rule out",
        json_schema_extra={"maximum": 100},
    )
    inconclusive: choice(("pass", "block"), "value") = Field("pass")  # type: ignore[valid-type]
    top_up_reps: PositiveInt() = Field(40, alias="topUpReps")  # type: ignore[valid-type]
    trigger: TriggerGateModel | None = Field(None, description="trigger evals: minRecall and maxFalseTrigger")
    min_delta: Number | None = Field(
        None,
        alias="minDelta",
        description="percentage points the skill's overall effect must reach over no skill",
        json_schema_extra={"minimum": -100, "maximum": 100},
    )
    previous: choice(("block", "warn", "off"), "value") = Field("warn")  # type: ignore[valid-type]
    max_error_share: Share = Field(
        0.5,
        alias="maxErrorShare",
        description="the share of outputs that may error before the verdict is ERROR (engine/health.py)",
        json_schema_extra={"minimum": 0, "maximum": 1},
    )
    error_verdict: Flag = Field(True, alias="errorVerdict")
    models: TextList | None = Field(
        None,
        description="the model labels the skill must hold on (engine/across.py); absent: every model under test",
    )

    @field_validator("margin")
    @classmethod
    def _at_most_100(cls, value: float) -> float:
        if value > 100:
            fail(f"must be at most 100 percentage points, not {value:g}")
        return value

    @field_validator("previous", mode="before")
    @classmethod
    def _off(cls, value: object) -> object:
        """YAML 1.1 reads a bare `off` as false: `previous: off` means "off"."""
        return "off" if value is False else value

    @field_validator("min_delta")
    @classmethod
    def _within_100(cls, value: float | None) -> float | None:
        if value is not None and not -100 <= value <= 100:
            fail(f"must be between -100 and 100 percentage points, not {value:g}")
        return value


_PRESET = choice(PRESETS, "preset", "use typescript or python, or set command for another language")


class TypecheckModel(Strict):
    model_config = ConfigDict(json_schema_extra={"not": {"required": ["preset", "command"]}})
    not_a_mapping = "must be false (off) or a mapping of settings"

    preset: _PRESET | None = None  # type: ignore[valid-type]
    library: Text | None = None
    preludes: TextMap | None = None
    blocking: Flag = True
    command: Text | None = None
    mypy: Flag = False

    @model_validator(mode="after")
    def _one_way(self) -> TypecheckModel:
        if self.command and self.preset:
            fail("set either preset or command, not both: command replaces the preset")
        return self


class CoverageModel(Strict):
    model_config = ConfigDict(
        json_schema_extra={
            "not": {"required": ["preset", "command"]},
            "anyOf": [{"required": ["entry"]}, {"required": ["command"]}],
        }
    )
    not_a_mapping = "must be false (off) or a mapping of settings with entry or command"

    preset: _PRESET | None = None  # type: ignore[valid-type]
    entry: Text | None = None
    ignore: TextList | None = None
    blocking: Flag = False
    command: Text | None = None

    @model_validator(mode="after")
    def _one_way(self) -> CoverageModel:
        if self.command and self.preset:
            fail("set either preset or command, not both: command replaces the preset")
        if not self.command and not self.entry:
            fail('missing required key "entry" (the library entry whose API must be covered), or set command')
        return self


Typecheck = Annotated[
    Annotated[bool, Tag("<flag>")] | Annotated[TypecheckModel, Tag("<settings>")],
    Discriminator(lambda v: "<flag>" if isinstance(v, bool) else "<settings>"),
]
Coverage = Annotated[
    Annotated[Literal[False], Tag("<off>")] | Annotated[CoverageModel, Tag("<settings>")],
    Discriminator(lambda v: "<off>" if v is False else "<settings>"),
]


class ChecksModel(Strict):
    typecheck: Typecheck | None = Field(None, description="false turns it off; true or settings turn it on")
    coverage: Coverage | None = Field(None, description="off unless set")


class TriageModel(Strict):
    model: Entry | None = None


class CompareModel(Strict):
    pairwise: Flag = Field(
        False, description="a blind A/B per rep: the judge says which answer meets each criterion better"
    )
    pairwise_gate: Flag = Field(
        False,
        alias="pairwiseGate",
        description="the blind A/B feeds the gate: it blocks when the judge surely prefers the baseline's answers",
    )
    against: Text | None = Field(
        None,
        description="a git commit, branch or tag: each run adds the `previous` arm, the skills as they were "
        "there (run --against overrides it)",
    )


class CodeTestsModel(Strict):
    packages: Text | None = None
    packages_by_skill: TextMap | None = Field(None, alias="packagesBySkill")
    test_timeout_seconds: PositiveInt(MAX_TIMEOUT) = Field(10, alias="testTimeoutSeconds")  # type: ignore[valid-type]
    answer_timeout_seconds: PositiveInt(MAX_TIMEOUT) = Field(60, alias="answerTimeoutSeconds")  # type: ignore[valid-type]
    allow: TextList | None = None
    sandbox: choice(SANDBOXES, "sandbox") = "auto"  # type: ignore[valid-type]
    image: Text | None = None
    memory_mb: PositiveInt(1 << 20) = Field(512, alias="memoryMb")  # type: ignore[valid-type]
    cpus: PositiveNumber = 1.0
    pids: PositiveInt(1 << 16) = 128  # type: ignore[valid-type]


def _template(value: str) -> str:
    missing = [p for p in ("{{skill}}", "{{task}}") if p not in value]
    if missing:
        fail(f"must contain {' and '.join(missing)}, where the skill text and the task go")
    return value


class ConfigModel(Strict):
    """skill-be.yaml."""

    model_config = ConfigDict(title="skill-be.yaml")
    null_is = "empty"

    skills: Text = Field(description=REQUIRED["skills"])
    evals: Text = Field(description=REQUIRED["evals"])
    model: Models = Field(description=REQUIRED["model"])  # type: ignore[valid-type]
    grader: Graders = Field(description=REQUIRED["grader"])  # type: ignore[valid-type]  # a list: each judge grades each answer
    reps: PositiveInt() = 3  # type: ignore[valid-type]
    gradings: PositiveInt() = 3  # type: ignore[valid-type]
    concurrency: PositiveInt() = 4  # type: ignore[valid-type]
    timeout_seconds: PositiveInt(MAX_TIMEOUT) = Field(120, alias="timeoutSeconds")  # type: ignore[valid-type]
    results: Text = DEFAULT_RESULTS
    result_file: Text = Field(DEFAULT_RESULT_FILE, alias="resultFile")
    with_skill_template: Text | None = Field(
        None,
        alias="withSkillTemplate",
        description="how the skill text and the task are put together; must contain {{skill}} and {{task}}",
        json_schema_extra={"allOf": [{"pattern": r"\{\{skill\}\}"}, {"pattern": r"\{\{task\}\}"}]},
    )
    grader_prompt: Text | None = Field(None, alias="graderPrompt")
    gate: GateModel | None = None
    checks: ChecksModel | None = None
    triage: TriageModel | None = None
    compare: CompareModel | None = None
    tests: Text | None = None
    code_tests: CodeTestsModel | None = Field(None, alias="codeTests")
    cache: Flag = Field(False, description="the response cache; run --cache and --no-cache override it")
    batch: Flag = Field(
        False,
        description="batch mode: each model's generations, then its gradings, as one provider batch "
        "(anthropic, openai) at the batch price; run --batch turns it on too",
    )
    batch_poll_seconds: PositiveNumber = Field(
        30,
        alias="batchPollSeconds",
        description="batch mode: the first wait between two polls of a batch, growing by half each poll",
    )
    pricing: Pricing | None = Field(
        None, description="model id -> prices in US dollars per million tokens, such as sonnet: {input: 3, output: 15}"
    )
    neighbours: TextList | None = Field(
        None,
        description="other skill folders: offered beside each skill in trigger evals (default: every other skill) "
        "and installed in both arms of agent scenarios (default: none)",
    )
    trigger_turns: PositiveInt(MAX_TRIGGER_TURNS) = Field(  # type: ignore[valid-type]
        3, alias="triggerTurns", description="CLI adapters: a skill loaded within this many agent turns counts"
    )

    @field_validator("with_skill_template")
    @classmethod
    def _placeholders(cls, value: str | None) -> str | None:
        return None if value is None else _template(value)


# --- eval files ------------------------------------------------------------------------------------


def _output(value: object) -> object:
    if not isinstance(value, dict):
        fail(f"must be a mapping of keys to values, not {type_name(value)}")
    if not value:
        fail('must name at least "result", the export the tests are written against')
    python = output_language(value) == "python"
    for key, desc in value.items():
        if key == "language" and desc in LANGUAGES:
            continue
        if key == "language" and isinstance(desc, str) and desc.strip().lower() in LANGUAGE_SPELLINGS:
            fail(f'"{desc}" is not a language skill-be knows; write "python" or "typescript"', at=(key,))
        if python:
            if not isinstance(key, str) or not key.isidentifier() or iskeyword(key):
                fail(f'"{key}" is not a name a module can define; use a Python identifier', key=str(key))
        elif not isinstance(key, str) or not IDENTIFIER.match(key) or key in JS_RESERVED:
            fail(f'"{key}" is not a name a module can export; use a JavaScript identifier', key=str(key))
        if not isinstance(desc, str):
            fail(f"must be a string, not {type_name(desc)}", at=(key,))
        if not desc.strip():
            fail("must not be empty", at=(key,))
        if len(desc) > MAX_DESCRIPTION:
            fail(
                f"is {len(desc)} characters; keep a description at most {MAX_DESCRIPTION} (it shapes the answer, "
                "it does not teach it)",
                at=(key,),
            )
    if "result" not in value:
        fail('missing required key "result" (the export the tests are written against)')
    return value


def _file_name(value: str) -> str:
    if not valid_file_name(value):
        fail(
            f'"{value}" is not a valid file name (it names the scenario\'s output folder and test file); '
            "use letters, digits, '-', '_' and '.'"
        )
    return value


Output = Annotated[
    dict[str, Annotated[str, Field(min_length=1, max_length=MAX_DESCRIPTION, json_schema_extra=NOT_BLANK)]],
    BeforeValidator(_output),
    Field(
        json_schema_extra={
            "required": ["result"],
            "propertyNames": {"pattern": IDENTIFIER.pattern, "not": {"enum": sorted(JS_RESERVED)}},
            # `language`: "typescript", "python" (then the names are Python's), or an export's description
            # that does not spell a language.
            "anyOf": [
                {"not": {"required": ["language"]}},
                {"properties": {"language": {"enum": ["typescript"]}}},
                {"properties": {"language": {"not": {"pattern": LANGUAGE_SPELLING}}}},
                {
                    "properties": {"language": {"const": "python"}},
                    "propertyNames": {"pattern": r"^[A-Za-z_][A-Za-z0-9_]*$", "not": {"enum": sorted(kwlist)}},
                },
            ],
        }
    ),
]


class ReferenceModel(Strict):
    """One reference answer and what each line must give on it."""

    comment_: AnyText | None = Field(None, alias="$comment", description="a note for people; ignored")
    answer: AnyText | None = Field(None, description="the answer's text")
    file: Text | None = Field(None, description="a file beside the eval file that holds the answer")
    expect: Annotated[dict[str, choice(VERDICTS, "verdict")], Field(min_length=1)] = Field(  # type: ignore[valid-type]
        description='each line (a criterion\'s text or its 1-based number, an assertion, "[test] <name>") -> YES or NO'
    )

    @model_validator(mode="after")
    def _one_source(self) -> ReferenceModel:
        if (self.answer is None) == (self.file is None):
            fail('needs "answer" (the text) or "file" (a file beside the eval file), exactly one of them')
        return self


# `graded: false`: a scenario run for review (its answers kept), with nothing that grades it.
UNGRADED: dict[str, Any] = {"required": ["graded"], "properties": {"graded": {"const": False}}}
GRADED_BY: list[Any] = [{"required": [k]} for k in ("criteria", "output", "assertions", "checks", "expect", "budget")]


class ScenarioModel(Strict):
    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [
                {"required": ["criteria"]},
                {"required": ["output"]},
                {"required": ["assertions"]},
                *AGENT_GRADED_SCHEMA,  # agent mode (project/agent_models.py)
                UNGRADED,
            ],
            "allOf": [*AGENT_SCHEMA_RULES, {"anyOf": [{"not": UNGRADED}, {"not": {"anyOf": GRADED_BY}}]}],
        }
    )

    comment_: AnyText | None = Field(None, alias="$comment", description="a note for people; ignored")
    id: Text = Field(
        description="a unique name for the scenario",
        json_schema_extra={"maxLength": 200, "not": {"anyOf": [{"pattern": p} for p in FILE_NAME_TRAPS]}},
    )
    prompt: Text = Field(description="the task given to the model")
    critical: Flag = False
    output: Output | None = Field(None, description="the exports the code tests are written against; needs result")
    criteria: NonEmptyTextList | None = None
    # agent mode: project/agent_models.py
    mode: choice(MODES, "mode") = Field("one-shot", description="agent: the CLI acts in a workspace")  # type: ignore[valid-type]
    workspace: WorkspaceModel | None = None
    agent: AgentSettingsModel | None = None
    checks: Annotated[list[Check], Field(min_length=1)] | None = Field(
        None, description="commands run in the finished workspace; exit 0 passes"
    )
    check_files: TextList | None = Field(
        None, alias="checkFiles", description="files beside the eval file the checks use (not shown to the agent)"
    )
    expect: ExpectModel | None = None
    environment: EnvironmentModel | None = Field(None, description="the image the agent and its checks run in")
    mcp: Servers | None = Field(None, description="stdio MCP servers the agent can use: name -> {command, args, env}")
    follow_ups: NonEmptyTextList | None = Field(
        None, alias="followUps", description="messages sent in the same session after each answer, in order"
    )
    graded: Flag = Field(True, description="false: run and keep the answers for review, grade nothing")
    attachments: TextList | None = Field(
        None,
        description="files beside the eval file the model gets as content: PDFs and images (agent mode: any "
        "file, copied into the workspace)",
        json_schema_extra={"minItems": 1, "items": {"not": {"pattern": r"^(/|~|\\|[A-Za-z]:)"}}},
    )
    assertions: Annotated[list[AssertionModel], Field(min_length=1)] | None = Field(
        None, description="deterministic checks graded without a model: contains, regex, json-schema, ..."
    )
    budget: BudgetModel | None = Field(None, description="limits each answer must stay within, each a line")
    expected_output: Text | None = Field(
        None,
        alias="expectedOutput",
        description="what a good answer looks like: context for the judge, not a criterion",
    )
    references: Annotated[list[ReferenceModel], Field(min_length=1)] | None = Field(
        None, description="answers whose result on each line is known: skill-be check --graders grades them"
    )

    @field_validator("id")
    @classmethod
    def _id_names_a_file(cls, value: str) -> str:
        return _file_name(value)

    @field_validator("attachments")
    @classmethod
    def _relative(cls, value: list[str] | None) -> list[str] | None:
        if value == []:
            fail("must be a non-empty list of files beside the eval file")
        for i, v in enumerate(value or ()):
            if v.startswith(("/", "~", "\\")) or (len(v) > 1 and v[1] == ":"):
                fail(f'"{v}" is an absolute path; name a file relative to the eval file', at=(i,))
        return value

    @model_validator(mode="after")
    def _graded(self) -> ScenarioModel:
        check_agent_keys(self)
        lines = [k for k in ("criteria", "output", "assertions", "checks", "expect", "budget") if getattr(self, k)]
        if not self.graded:
            if lines:
                fail(f'has graded: false and "{lines[0]}"; remove graded to grade it, or remove "{lines[0]}"')
            return self
        if has_agent_lines(self):
            return self
        if self.criteria is None and self.output is None and self.assertions is None:
            fail('needs "criteria" (a non-empty list of strings), an "output", "assertions", or more than one')
        return self


def _scenarios(value: object) -> object:
    if not isinstance(value, list) or not value:
        fail(f"must be a non-empty list of scenarios, not {'an empty list' if value == [] else type_name(value)}")
    return value


class EvalFileModel(Strict):
    """<evals>/<skill>.json: the scenarios of one skill."""

    model_config = ConfigDict(title="skill-be eval file")

    schema_: AnyText | None = Field(None, alias="$schema", description="a JSON Schema for editors; ignored")
    comment_: AnyText | None = Field(None, alias="$comment", description="a note for people; ignored")
    skill: Any = None
    budget: BudgetModel | None = Field(
        None, description="limits for every scenario of the skill (a scenario's own win)"
    )
    scenarios: Annotated[list[ScenarioModel], Field(min_length=1), BeforeValidator(_scenarios)] = Field(
        description="a non-empty list of scenarios", json_schema_extra={"x-uniqueKey": "id"}
    )
    triggers: TriggersModel | None = Field(None, description="trigger evals: should and shouldNot queries")
    environment: EnvironmentModel | None = Field(
        None, description="the image of every agent scenario (a scenario's own setup and files win)"
    )

    @field_validator("scenarios")
    @classmethod
    def _unique(cls, value: list[ScenarioModel]) -> list[ScenarioModel]:
        seen: dict[str, int] = {}
        for i, s in enumerate(value):
            if s.id in seen:
                fail(
                    f'"{s.id}" is used twice (also scenarios[{seen[s.id]}]); each scenario needs its own id',
                    at=(i, "id"),
                )
            seen[s.id] = i
        return value
