"""The building blocks of the file models: a strict mapping base and the leaf value types.

Every check raises `fail(...)` with the final words the user reads; `project/validation.py` adds the
file, the line and column, and the key path. pydantic is imported here, so only modules that
validate a file import this one.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, NoReturn

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    model_validator,
)
from pydantic_core import PydanticCustomError

from skill_be.project.where import did_you_mean, type_name

ERROR_TYPE = "skill_be"


def fail(message: str, *, at: tuple[str | int, ...] = (), key: str | None = None) -> NoReturn:
    """Stop validation with `message`; `at` continues the location below the value being checked,
    `key` points the place at that key of the mapping rather than at the mapping."""
    raise PydanticCustomError(ERROR_TYPE, "{message}", {"message": message, "at": at, "key": key})


# The validation context's key that makes every model drop the keys it does not know, instead of
# refusing them (`validate(..., lenient=True)`).
LENIENT = "lenient"


class Strict(BaseModel):
    """A mapping with known keys (camelCase aliases, as the files spell them).

    The checks on the mapping itself (its type, unknown keys, missing and null keys) run around the
    fields, so their words are ours: `unknown key "bloking" (did you mean "blocking"?)`; the values
    are still checked past them, so one pass finds every mistake (`project/validation.py` lists them).
    """

    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True, defer_build=True, validate_by_alias=True, validate_by_name=False
    )

    not_a_mapping: ClassVar[str] = "must be a mapping of keys to values"
    # What a required key set to null means: "missing" (as if absent), "empty" (config: `is empty;
    # set it to ...`), or "value" (validated as the value null: `must be a string, not null`).
    null_is: ClassVar[str] = "missing"
    missing_hint: ClassVar[str | None] = None  # the parenthesis after `missing required key "k"`; None: the description
    list_keys: ClassVar[bool] = True  # an unknown key without a close match lists the keys
    keep_nulls: ClassVar[bool] = False  # a file skill-be writes keeps `key: null` as written (results/)

    @classmethod
    def why_missing(cls, alias: str, description: str | None) -> str | None:
        """The parenthesis after `missing required key "<alias>"` (None: no parenthesis)."""
        return description if cls.missing_hint is None else cls.missing_hint

    @model_validator(mode="wrap")
    @classmethod
    def _shape(cls, data: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        if not isinstance(data, dict):
            fail(f"{cls.not_a_mapping}, not {type_name(data)}")
        for k in data:
            if not isinstance(k, str):
                fail(f"key {k!r} must be a string")
        fields = {f.alias or name: f for name, f in cls.model_fields.items()}
        if (info.context or {}).get(LENIENT):
            # a file a later version (or another tool) wrote: keys this version does not know are dropped
            data = {k: v for k, v in data.items() if k in fields}
        problems = [*_unknown_keys(cls, data, fields), *_missing_keys(cls, data, fields)]
        absent = {a for a, f in fields.items() if f.is_required() and data.get(a) is None}
        if cls.keep_nulls:
            kept = data
        else:  # an optional key set to null takes its default, as if it were absent
            kept = {k: v for k, v in data.items() if v is not None or k not in fields or fields[k].is_required()}
        if not problems:
            return handler(kept)
        # The mapping's own problems first, then its values' (validated without the unknown keys), so
        # that one pass finds every mistake: the first is the error, the others ride in its `more`.
        try:
            handler({k: v for k, v in kept.items() if k in fields})
            rest: list[Any] = []
        except ValidationError as e:
            rest = [x for x in e.errors(include_url=False) if not (x["loc"] and x["loc"][0] in absent)]
        first, *more = problems
        raise PydanticCustomError(ERROR_TYPE, "{message}", {**first, "more": [*map(_as_error, more), *rest]})


def _as_error(problem: dict[str, Any]) -> dict[str, Any]:
    """A mapping's problem in the form of a pydantic error, at the mapping."""
    return {"type": ERROR_TYPE, "loc": (), "msg": problem["message"], "ctx": problem}


def _unknown_keys(cls: type[Strict], data: dict[str, Any], fields: dict[str, Any]) -> list[dict[str, Any]]:
    if cls.model_config.get("extra") != "forbid":
        return []
    out: list[dict[str, Any]] = []
    for k in data:
        if k not in fields:
            hint: str = did_you_mean(k, fields)
            if not hint and cls.list_keys:
                hint = f"; the keys here are: {', '.join(fields)}"
            out.append({"message": f'unknown key "{k}"{hint}', "at": (), "key": k})
    return out


def _missing_keys(cls: type[Strict], data: dict[str, Any], fields: dict[str, Any]) -> list[dict[str, Any]]:
    """The required keys absent (or null); one that an unknown key misspells is that key's mistake."""
    forbid = cls.model_config.get("extra") == "forbid"
    out: list[dict[str, Any]] = []
    for alias, f in fields.items():
        if not f.is_required():
            continue
        value = data.get(alias)
        if alias in data and value is None and cls.null_is == "empty":
            out.append({"message": f"is empty; set it to {f.description}", "at": (alias,), "key": None})
        elif alias not in data or (value is None and cls.null_is == "missing"):
            misspelt = _misspelt(alias, data, fields)
            if misspelt and forbid:
                continue  # reported as the unknown key, with its did-you-mean
            why = cls.why_missing(alias, f.description)
            message = f'missing required key "{alias}"' + (f" ({why})" if why else "") + misspelt
            out.append({"message": message, "at": (), "key": None})
    return out


def _misspelt(alias: str, data: dict[str, Any], fields: dict[str, Any]) -> str:
    """`; "adaptr" is there: did you mean "adapter"?` when a key the model does not know is close to the
    missing one (a model that takes extra keys, such as an adapter's settings, lets it through)."""
    import difflib

    unknown = [k for k in data if k not in fields]
    close = difflib.get_close_matches(alias, unknown, n=1, cutoff=0.75)
    return f'; "{close[0]}" is there: did you mean "{alias}"?' if close else ""


def _text(value: object) -> str:
    if not isinstance(value, str):
        fail(f"must be a string, not {type_name(value)}")
    if not value.strip():
        fail("must not be empty")
    return value


def _any_text(value: object) -> str:
    if not isinstance(value, str):
        fail(f"must be a string, not {type_name(value)}")
    return value


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        fail(f"must be true or false, not {type_name(value)}")
    return value


def _positive_int(maximum: int | None) -> Any:
    def check(value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            shown = f"{value!r}" if isinstance(value, int | float) and not isinstance(value, bool) else type_name(value)
            fail(f"must be a positive integer, not {shown}")
        if maximum is not None and value > maximum:
            fail(f"must be at most {maximum}, not {value}")
        return value

    return check


def _positive_number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        fail(f"must be a positive number, not {value!r}")
    return float(value)


def _list(value: object) -> object:
    if not isinstance(value, list):
        fail(f"must be a list of strings, not {type_name(value)}")
    return value


def _non_empty_list(value: object) -> object:
    if not isinstance(value, list):
        fail(f"must be a list of strings, not {type_name(value)}")
    if not value:
        fail("must be a non-empty list of strings")
    return value


def _mapping(value: object) -> object:
    if not isinstance(value, dict):
        fail(f"must be a mapping of keys to values, not {type_name(value)}")
    for k in value:
        if not isinstance(k, str):
            fail(f"key {k!r} must be a string")
    return value


NOT_BLANK = {"pattern": r"\S"}  # for the published schema: `must not be empty` (the validator is _text)
Text = Annotated[str, Field(min_length=1, json_schema_extra=NOT_BLANK), BeforeValidator(_text)]
AnyText = Annotated[str, BeforeValidator(_any_text)]
Flag = Annotated[bool, BeforeValidator(_flag)]
PositiveNumber = Annotated[float, Field(gt=0), BeforeValidator(_positive_number)]
TextList = Annotated[list[Text], BeforeValidator(_list)]
NonEmptyTextList = Annotated[list[Text], Field(min_length=1), BeforeValidator(_non_empty_list)]
TextMap = Annotated[dict[str, Text], BeforeValidator(_mapping)]


def PositiveInt(maximum: int | None = None) -> Any:
    return Annotated[int, Field(gt=0, le=maximum), BeforeValidator(_positive_int(maximum))]


def choice(words: tuple[str, ...], what: str, fix: str | None = None) -> Any:
    """One of `words`: `unknown <what> "x" (did you mean "y"?); use a or b`."""

    def check(value: object) -> str:
        text = _text(value)
        if text not in words:
            use = fix or "use " + (", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0])
            fail(f'unknown {what} "{text}"{did_you_mean(text, words)}; {use}')
        return text

    return Annotated[Literal[words], BeforeValidator(check)]


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        fail(f"must be a number, not {type_name(value)}")
    return float(value)


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        shown = f"{value!r}" if isinstance(value, int | float) and not isinstance(value, bool) else type_name(value)
        fail(f"must be a whole number, 0 or more, not {shown}")
    return value


def _integer(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        shown = f"{value!r}" if isinstance(value, float) else type_name(value)
        fail(f"must be a whole number, not {shown}")
    return value


def _list_of(what: str) -> Any:
    def check(value: object) -> object:
        if not isinstance(value, list):
            fail(f"must be a list of {what}, not {type_name(value)}")
        return value

    return check


Number = Annotated[float, BeforeValidator(_number)]


def _share(value: float) -> float:
    if not 0 <= value <= 1:
        fail(f"must be a share from 0 to 1, not {value:g}")
    return value


Share = Annotated[float, BeforeValidator(_number), AfterValidator(_share)]  # 0 to 1: maxErrorShare, batchDiscount
Amount = Annotated[float, Field(ge=0), BeforeValidator(_number)]  # a number of 0 or more (tokens, USD)
Count = Annotated[int, Field(ge=0), BeforeValidator(_count)]
Integer = Annotated[int, BeforeValidator(_integer)]
AnyTextList = Annotated[list[AnyText], BeforeValidator(_list)]


def ListOf(item: Any, what: str) -> Any:
    """A list whose wrong type reads `must be a list of <what>, not a string`."""
    return Annotated[list[item], BeforeValidator(_list_of(what))]


def MapOf(item: Any) -> Any:
    return Annotated[dict[str, item], BeforeValidator(_mapping)]


class Record(Strict):
    """A file skill-be writes itself (result file, summary.json): keys it does not know are ignored,
    so a file from a newer skill-be, or from the Node tool, still reads; a key it needs is checked."""

    model_config = ConfigDict(extra="ignore")
    null_is = "value"
    missing_hint = ""
