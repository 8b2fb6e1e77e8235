"""The settings of a `model`, `grader` or `triage.model` entry, one model per built-in adapter.

The entry's `adapter` picks its model (`Entry`, a tagged union over `adapter_kinds.ADAPTERS`), so a
wrong, unknown or misspelt setting is a mistake of the config's model, with its line and column and
its did-you-mean, listed with the file's other mistakes. An adapter of the user's own (a `.py` or a
JavaScript module) takes any settings: they are passed to it as they are.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    WithJsonSchema,
    create_model,
    model_validator,
)
from pydantic.config import JsonDict

from skill_be.project.adapter_kinds import ADAPTERS, entry_title, is_module, unknown
from skill_be.project.fields import NOT_BLANK, Flag, PositiveInt, Strict, Text, _text, fail
from skill_be.project.where import did_you_mean

APIS = ("openai-completions", "anthropic-messages")  # `api`: the wire format of a CLI's own baseUrl
THINKING = ("off", "minimal", "low", "medium", "high", "xhigh", "max")  # pi-cli's `thinking`
COPILOT_PROVIDERS = ("openai", "anthropic")  # copilot-cli's `provider`


def _label(value: object) -> object:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)  # `id: 4` in YAML is a label, not a number
    return value


Id = Annotated[
    Text,
    BeforeValidator(_label),
    WithJsonSchema({"anyOf": [{"type": "string", "minLength": 1, **NOT_BLANK}, {"type": "number"}]}),
]


def _url(value: object) -> str:
    text = _text(value).rstrip("/")
    if not text.startswith(("http://", "https://")):
        fail(f'must be an http:// or https:// URL, not "{text}"')
    return str(value)


Url = Annotated[str, Field(pattern=r"^https?://.*[^/]"), BeforeValidator(_url)]


def _one_of(words: tuple[str, ...]) -> Any:
    def check(value: object) -> str:
        text = _text(value)
        if text not in words:
            fail(f'must be one of {", ".join(words)}, not "{text}"{did_you_mean(text, words)}')
        return text

    return Annotated[Literal[words], BeforeValidator(check)]


def _temperature(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 2:
        fail(f"must be a number from 0 to 2, not {value!r}")
    return value


def _temperature_to_1(value: object) -> float:
    number = _temperature(value)
    if number > 1:
        fail(f"must be a number from 0 to 1, not {number:g}")
    return number


Temperature = Annotated[float, Field(ge=0, le=2), BeforeValidator(_temperature)]
Temperature1 = Annotated[float, Field(ge=0, le=1), BeforeValidator(_temperature_to_1)]


ADAPTER = "a built-in adapter (claude-cli, pi-cli, opencode-cli, anthropic, openai, gemini, command, ...) or a module"


class EntryModel(Strict):
    """An entry's keys every adapter shares: `adapter` and `id`."""

    not_a_mapping = (
        "must be an entry with adapter and id (such as adapter: claude-cli and id: claude-sonnet-5-5 on their "
        "own lines)"
    )
    missing_hint = None
    entry_keys: ClassVar[tuple[str, ...]] = ("adapter", "id")

    adapter: Text = Field(description=ADAPTER)
    id: Id = Field(description="the model id passed to the adapter (for command, a label)")

    @classmethod
    def why_missing(cls, alias: str, description: str | None) -> str | None:
        return "an entry needs adapter and id" if alias in cls.entry_keys else description


class UnknownAdapter(EntryModel):
    """An entry whose `adapter` names no adapter (or is missing, or is not a string): its mistake is that
    key, once the entry's other keys are right."""

    model_config = ConfigDict(extra="allow")

    @model_validator(mode="after")
    def _known(self) -> UnknownAdapter:
        fail(unknown(self.adapter), at=("adapter",))


class ModuleEntry(EntryModel):
    """An adapter module of the user's own: every other key is passed to it as its settings."""

    model_config = ConfigDict(extra="allow")

    adapter: Annotated[Text, Field(json_schema_extra={"pattern": r"\.(py|js|mjs|cjs)$"})] = Field(
        description="a Python file (.py) or a JavaScript module (.js, .mjs, .cjs), relative to the config's folder"
    )


class FakeSettings(EntryModel):
    """`fake`: canned answers and gradings; the other keys are left as they are (run --fake keeps them)."""

    model_config = ConfigDict(extra="allow")


# The published schema takes a command line without quotes or backslashes; one with them goes through
# the model, which splits it as the adapter does (an unclosed quote is a mistake).
PLAIN_LINE = {"pattern": r"""^[^'"\\]*[^'"\\\s][^'"\\]*$"""}


class CommandSettings(EntryModel):
    """`command`: only `run` is its own. Other keys are taken as they are, as skill-be always took them
    (they change the cache key, and `apiKeyEnv` keeps the CI rule): a setting a wrapper script reads
    from the config stays valid."""

    model_config = ConfigDict(extra="allow")

    api_key_env: Text | None = Field(
        None, alias="apiKeyEnv", description="a variable that must be set in CI (the command finds its own credentials)"
    )
    run: Annotated[Text, BeforeValidator(lambda v: _command_line(v)), Field(json_schema_extra=PLAIN_LINE)] = Field(
        description="the command line that answers a prompt"
    )


def _command_line(value: object) -> object:
    from skill_be.proc import split_words

    try:
        split_words(_text(value))
    except ValueError as e:
        fail(str(e))
    return value


class CliSettings(EntryModel):
    """What every agent CLI's entry takes."""

    api_key_env: Text | None = Field(
        None, alias="apiKeyEnv", description="the variable that holds the key (none: the CLI's stored login)"
    )
    bin: Text | None = Field(
        None, description="the CLI's executable: a name on PATH or a path from the config's folder"
    )
    base_url: Url | None = Field(None, alias="baseUrl", description="a server of your own for the CLI's model calls")


# `api` without `baseUrl`, refused by the model (`_api_needs_base`), said in the published schema too
API_NEEDS_BASE: JsonDict = {"not": {"required": ["api"], "not": {"required": ["baseUrl"]}}}


def _api_needs_base(entry: Any) -> None:
    if entry.api is not None and entry.base_url is None:
        fail("only applies with baseUrl; add baseUrl or remove api", at=("api",))


class PiCliSettings(CliSettings):
    model_config = ConfigDict(json_schema_extra=API_NEEDS_BASE)
    provider: Text = Field(description="pi would otherwise use its own default")
    thinking: _one_of(THINKING) | None = None  # type: ignore[valid-type]
    api: _one_of(APIS) | None = None  # type: ignore[valid-type]

    @model_validator(mode="after")
    def _api(self) -> PiCliSettings:
        _api_needs_base(self)
        return self


class OpencodeCliSettings(CliSettings):
    model_config = ConfigDict(json_schema_extra=API_NEEDS_BASE)
    provider: Text = Field(description="the model is passed as <provider>/<id>")
    api: _one_of(APIS) | None = None  # type: ignore[valid-type]

    @model_validator(mode="after")
    def _api(self) -> OpencodeCliSettings:
        _api_needs_base(self)
        return self


class CopilotCliSettings(CliSettings):
    model_config = ConfigDict(
        json_schema_extra={**API_NEEDS_BASE, "anyOf": [{"required": ["baseUrl"]}, {"required": ["provider"]}]}
    )
    provider: _one_of(COPILOT_PROVIDERS) | None = None  # type: ignore[valid-type]
    api: _one_of(APIS) | None = None  # type: ignore[valid-type]

    @model_validator(mode="after")
    def _provider(self) -> CopilotCliSettings:
        _api_needs_base(self)
        if self.base_url is None and self.provider is None:
            fail(
                'missing "baseUrl" or "provider": skill-be runs Copilot CLI with a model of your own provider '
                "(BYOK, offline), not through a GitHub login"
            )
        return self


class HttpSettings(EntryModel):
    """What every HTTP API's entry takes."""

    api_key_env: Text | None = Field(None, alias="apiKeyEnv", description="the variable that holds the API key")
    base_url: Url | None = Field(None, alias="baseUrl", description="the API's address (default: the provider's)")
    max_tokens: PositiveInt() | None = Field(None, alias="maxTokens")  # type: ignore[valid-type]
    temperature: Temperature | None = None


class AnthropicSettings(HttpSettings):
    temperature: Temperature1 | None = None
    prompt_caching: Flag | None = Field(None, alias="promptCaching")


class OpenaiSettings(HttpSettings):
    prompt_caching: Flag | None = Field(None, alias="promptCaching")


def _tag(value: object) -> str:
    """Which model validates an entry: its adapter's, a module's, or the one that names the mistake."""
    name = value.get("adapter") if isinstance(value, dict) else getattr(value, "adapter", None)  # data, or a model
    if isinstance(name, str) and name in ADAPTERS:
        return f"<{name}>"
    if isinstance(name, str) and is_module(name):
        return "<module>"
    return "<entry>"


def _built(name: str, grader: bool) -> type[EntryModel]:
    """The model of an entry of the built-in adapter `name`: its settings model with `adapter` that
    word (so the published schema tells the adapters apart); as a grader, with skill-be's grader keys."""
    base: type[EntryModel] = globals()[ADAPTERS[name].settings]
    return _model(
        ("Grader" if grader else "") + entry_title(name),
        base,
        grader,
        adapter=(Literal[name], Field(description=ADAPTER)),
    )


def _model(title: str, base: type[EntryModel], grader: bool, **fields: Any) -> type[EntryModel]:
    if grader:
        fields.update(
            template=(Any, None), evidence=(Any, None), max_split_share=(Any, Field(None, alias="maxSplitShare"))
        )
    made: type[EntryModel] = create_model(title, __base__=base, __doc__=base.__doc__, **fields)
    return made


def settings_model(name: str) -> type[EntryModel]:
    """The model of an entry of the built-in adapter `name` (not a grader's)."""
    return MODELS[name]


NEVER = WithJsonSchema({"not": {}})  # the published schema offers no entry that is a mistake


def _union(grader: bool) -> Any:
    models = MODELS if not grader else {name: _built(name, grader=True) for name in ADAPTERS}
    branches = [Annotated[models[name], Tag(f"<{name}>")] for name in ADAPTERS]
    module = _model("GraderModuleEntry", ModuleEntry, True) if grader else ModuleEntry
    branches += [Annotated[module, Tag("<module>")], Annotated[UnknownAdapter, NEVER, Tag("<entry>")]]
    return Annotated[Union[tuple(branches)], Discriminator(_tag)]  # noqa: UP007


MODELS = {name: _built(name, grader=False) for name in ADAPTERS}
Entry = _union(grader=False)  # a `model` or `triage.model` entry
GraderEntry = _union(grader=True)  # a `grader` entry: its adapter's settings and skill-be's grader keys
