"""The fast path: does data conform to a format's published JSON Schema (generated from its model)?

pydantic costs about 100 ms of start-up, more than `verify` spends on everything else, and a valid
file needs no error message. So a file is first checked against its schema here, with the standard
library only; when it conforms it is valid, and the records are built from it directly. Anything
else (an error, or a value the schema is stricter about than the model, such as `reps: null`) goes
through the model, which gives the one-line error or the accepted value. The schemas are exact or
stricter than the models (tests/unit/project/test_fastcheck.py holds both to the same cases), so the
fast path never accepts what the model would refuse.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

# Keywords that only describe: they never change whether data conforms.
_NOTES = frozenset({"title", "description", "default", "examples", "$schema", "$defs", "$id", "$comment"})


class _Unknown(Exception):
    """A keyword this checker does not implement: the data goes the model's way."""


@cache
def schema(name: str) -> dict[str, Any]:
    """The published schema of `name` (config, eval, result, summary), as shipped in the package."""
    text = (Path(__file__).resolve().parents[1] / "schema" / f"{name}.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def conforms(name: str, data: object, definition: str | None = None) -> bool:
    """Whether `data` conforms to the schema of `name`, or to one of its `$defs` (`definition`)."""
    root = schema(name)
    try:
        return _ok(root if definition is None else root["$defs"][definition], data, root)
    except (_Unknown, RecursionError):  # RecursionError: a YAML anchor that contains itself
        return False


@cache
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _is_type(kind: str, v: object) -> bool:
    if kind == "object":
        return isinstance(v, dict) and all(isinstance(k, str) for k in v)
    if kind == "array":
        return isinstance(v, list)
    if kind == "string":
        return isinstance(v, str)
    if kind == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if kind == "number":
        return isinstance(v, int | float) and not isinstance(v, bool)
    if kind == "boolean":
        return isinstance(v, bool)
    if kind == "null":
        return v is None
    raise _Unknown(kind)


def _ok(s: dict[str, Any] | bool, v: object, root: dict[str, Any]) -> bool:
    if s is True:
        return True
    if s is False:
        return False
    assert isinstance(s, dict)
    for key, arg in s.items():
        if key in _NOTES:
            continue
        if key == "$ref":
            if not arg.startswith("#/$defs/"):
                raise _Unknown(arg)
            if not _ok(root["$defs"][arg.removeprefix("#/$defs/")], v, root):
                return False
        elif key == "type":
            if not any(_is_type(t, v) for t in ([arg] if isinstance(arg, str) else arg)):
                return False
        elif key == "enum":
            if not any(_same(v, x) for x in arg):
                return False
        elif key == "const":
            if not _same(v, arg):
                return False
        elif key == "anyOf":
            if not any(_ok(x, v, root) for x in arg):
                return False
        elif key == "oneOf":
            if sum(_ok(x, v, root) for x in arg) != 1:
                return False
        elif key == "allOf":
            if not all(_ok(x, v, root) for x in arg):
                return False
        elif key == "not":
            if _ok(arg, v, root):
                return False
        elif key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if _is_type("number", v) and not _in_range(key, v, arg):  # type: ignore[arg-type]
                return False
        elif key in ("minLength", "maxLength", "pattern"):
            if isinstance(v, str) and not _string_ok(key, v, arg):
                return False
        elif key in ("minItems", "maxItems", "items", "x-uniqueKey"):
            if isinstance(v, list) and not _array_ok(key, v, arg, root):
                return False
        elif key in ("properties", "required", "additionalProperties", "propertyNames", "minProperties"):
            if isinstance(v, dict) and not _object_ok(key, v, s, root):
                return False
        else:
            raise _Unknown(key)
    return True


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b  # `true` is not 1, `1.0` is not 1


def _in_range(key: str, v: float, bound: Any) -> bool:
    b = float(bound)
    if key == "minimum":
        return v >= b
    if key == "maximum":
        return v <= b
    if key == "exclusiveMinimum":
        return v > b
    return v < b


def _string_ok(key: str, v: str, arg: Any) -> bool:
    if key == "minLength":
        return len(v) >= int(arg)
    if key == "maxLength":
        return len(v) <= int(arg)
    return _regex(arg).search(v) is not None


def _array_ok(key: str, v: list[Any], arg: Any, root: dict[str, Any]) -> bool:
    if key == "minItems":
        return len(v) >= int(arg)
    if key == "maxItems":
        return len(v) <= int(arg)
    if key == "items":
        return all(_ok(arg, item, root) for item in v)
    # x-uniqueKey: no two items (objects) share the value of this key; JSON Schema cannot say it.
    seen = [item.get(arg) for item in v if isinstance(item, dict)]
    return len(seen) == len({json.dumps(x, sort_keys=True) for x in seen})


def _object_ok(key: str, v: dict[str, Any], s: dict[str, Any], root: dict[str, Any]) -> bool:
    if key == "properties":
        return all(_ok(sub, v[k], root) for k, sub in s["properties"].items() if k in v)
    if key == "required":
        return all(k in v for k in s["required"])
    if key == "minProperties":
        return len(v) >= int(s["minProperties"])
    if key == "propertyNames":
        return all(_ok(s["propertyNames"], k, root) for k in v)
    extra = s["additionalProperties"]
    known = s.get("properties", {})
    return all(_ok(extra, val, root) for k, val in v.items() if k not in known)
