"""The hint-word check: an output contract that names what only the skill teaches hints the baseline.

Warnings only; it never blocks. `check` and the start of `run` print what `hint_warnings` returns.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Final

from skill_be.project.evals import JS_RESERVED
from skill_be.project.loader import Project, Skill
from skill_be.project.skills import inline_code

_WORD = re.compile(r"[A-Za-z_$][\w$]*")
# Comments and string literals in code are prose and data, not names the skill teaches.
_NOISE = re.compile(
    r"//[^\n]*|/\*.*?\*/|'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\"|`(?:\\.|[^`\\])*`",
    re.DOTALL,
)
_HASH_COMMENT = re.compile(r"(?m)(^|\s)#[^\n]*")
_HASH_LANGS = frozenset({"python", "py", "bash", "sh", "shell", "zsh", "yaml", "yml", "toml", "ruby", "rb"})

KEYWORDS_AND_BUILTINS: Final = JS_RESERVED | frozenset(
    [
        "AbortController",
        "AbortSignal",
        "Array",
        "ArrayBuffer",
        "AsyncGenerator",
        "AsyncIterable",
        "AsyncIterator",
        "Awaited",
        "BigInt",
        "Boolean",
        "Buffer",
        "DataView",
        "Date",
        "Error",
        "EvalError",
        "Exclude",
        "Extract",
        "Float32Array",
        "Float64Array",
        "Function",
        "Generator",
        "Headers",
        "Infinity",
        "InstanceType",
        "Int16Array",
        "Int32Array",
        "Int8Array",
        "Intl",
        "Iterable",
        "Iterator",
        "JSON",
        "Map",
        "Math",
        "NaN",
        "NonNullable",
        "Number",
        "Object",
        "Omit",
        "Parameters",
        "Partial",
        "Pick",
        "Promise",
        "PromiseLike",
        "Proxy",
        "RangeError",
        "Readonly",
        "ReadonlyArray",
        "ReadonlyMap",
        "ReadonlySet",
        "Record",
        "ReferenceError",
        "Reflect",
        "RegExp",
        "Request",
        "Required",
        "Response",
        "ReturnType",
        "Set",
        "String",
        "Symbol",
        "SyntaxError",
        "TextDecoder",
        "TextEncoder",
        "TypeError",
        "URIError",
        "URL",
        "URLSearchParams",
        "Uint16Array",
        "Uint32Array",
        "Uint8Array",
        "Uint8ClampedArray",
        "WeakMap",
        "WeakRef",
        "WeakSet",
        "abstract",
        "accessor",
        "any",
        "as",
        "asserts",
        "async",
        "bigint",
        "boolean",
        "clearInterval",
        "clearTimeout",
        "console",
        "constructor",
        "declare",
        "decodeURIComponent",
        "encodeURIComponent",
        "fetch",
        "from",
        "get",
        "global",
        "globalThis",
        "infer",
        "is",
        "isFinite",
        "isNaN",
        "keyof",
        "log",
        "module",
        "namespace",
        "never",
        "number",
        "object",
        "of",
        "out",
        "override",
        "parseFloat",
        "parseInt",
        "process",
        "queueMicrotask",
        "readonly",
        "require",
        "satisfies",
        "set",
        "setInterval",
        "setTimeout",
        "string",
        "structuredClone",
        "symbol",
        "type",
        "undefined",
        "unique",
        "unknown",
    ]
)


# A Python scenario's contract also drops Python's keywords and built-ins (`None`, `self`, `len`, ...).
PYTHON_WORDS: Final = (
    frozenset(keyword.kwlist)
    | frozenset(keyword.softkwlist)
    | frozenset(dir(builtins))
    | frozenset(
        ["self", "cls", "kwargs", "args", "typing", "dataclass", "dataclasses", "Optional", "Union", "List", "Dict"]
    )
)


class _Unset:
    pass


UNSET: Final = _Unset()


def _identifiers(text: str) -> list[str]:
    return [w for w in _WORD.findall(text) if len(w) >= 3 and w not in KEYWORDS_AND_BUILTINS]


def skill_words(skill: Skill) -> list[str]:
    """Identifiers of three or more characters in the skill's code blocks and inline code."""
    words: list[str] = []
    for block in skill.doc.blocks:
        code = _NOISE.sub(" ", block.code)
        if block.lang in _HASH_LANGS:
            code = _HASH_COMMENT.sub(" ", code)
        words += _identifiers(code)
    for span in inline_code(skill.doc.text):
        words += _identifiers(_NOISE.sub(" ", span))
    return list(dict.fromkeys(words))


def coverage_words(names: Iterable[str]) -> list[str]:
    """Coverage names as words: `Money.allocate` is named by `Money` and by `allocate`."""
    words: list[str] = []
    for name in names:
        words.append(name)
        words += name.split(".")
    return list(dict.fromkeys(w for w in words if w))


def _has_word(text: str, word: str) -> bool:
    return re.search(r"(?<![\w$])" + re.escape(word) + r"(?![\w$])", text) is not None


def skill_warnings(skill: Skill, words: Sequence[str], allow: Iterable[str]) -> list[str]:
    allowed = set(allow)
    out: list[str] = []
    for scenario in skill.evals.scenarios:
        if not scenario.output:
            continue
        candidates = [w for w in words if w not in allowed and not _has_word(scenario.prompt, w)]
        if scenario.language == "python":
            candidates = [w for w in candidates if w not in PYTHON_WORDS]
        for field, description in scenario.output:
            hits = [(m.start(), w) for w in candidates if (m := _first(description, w))]
            for _, word in sorted(hits):
                out.append(
                    f'warning: skill "{skill.name}" / scenario "{scenario.id}": output.{field} names "{word}", '
                    "which the task prompt does not use. The baseline sees the output contract too, so this hints it."
                )
    return out


def _first(text: str, word: str) -> re.Match[str] | None:
    return re.search(r"(?<![\w$])" + re.escape(word) + r"(?![\w$])", text)


def hint_warnings(
    project: Project,
    warn: Callable[[str], None] = lambda _: None,
    *,
    coverage_names: Sequence[str] | _Unset | None = UNSET,
) -> list[str]:
    """One warning per word of a skill that an output description names and its prompt does not.

    The words are coverage's API names when coverage is configured (its `ignore` not applied),
    else each skill's identifiers. `coverage_names` passes names already read (None: coverage off)."""
    if not any(s.output for skill in project.skills for s in skill.evals.scenarios):
        return []
    if isinstance(coverage_names, _Unset):
        if project.config.checks.coverage is None:
            names: Sequence[str] | None = None
        else:
            from skill_be.checks.runner import coverage_names as read_names

            names = read_names(project, warn)
    else:
        names = coverage_names
    allow = project.config.code_tests.allow
    out: list[str] = []
    for skill in project.skills:
        words = coverage_words(names) if names is not None else skill_words(skill)
        out += skill_warnings(skill, words, allow)
    return out
