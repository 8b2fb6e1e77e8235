"""The rules of the user's files that more than the models need: limits, word lists, file-name
safety. Plain Python, so that modules which only read a config's records stay free of pydantic."""

from __future__ import annotations

import re

DEFAULT_RESULTS = ".skill-be/results"  # relative to the config file's folder
DEFAULT_RESULT_FILE = "skill-be.result.json"
MAX_TIMEOUT = 2147483  # seconds: the longest a Node timer holds, kept for compatibility

REQUIRED = {
    "skills": "the folder with one folder per skill, each holding a SKILL.md",
    "evals": "the folder with one <skill>.json eval file per skill",
    "model": "the model under test: an entry with adapter and id, or a list of them",
    "grader": "the judge: an entry with adapter and id",
}
PRESETS = ("typescript", "python")
SANDBOXES = ("auto", "docker", "process", "bwrap")

MAX_DESCRIPTION = 200
# `output.language`: the language of the answer's code and of the scenario's tests (TypeScript when absent).
LANGUAGES = ("typescript", "python")
DEFAULT_LANGUAGE = "typescript"
# Spellings that mean a language but are not its name: an error, not an export called `language`.
LANGUAGE_SPELLINGS = frozenset({"python", "typescript", "py", "ts", "python3"})
# The same, as a pattern the published schema can hold (any case, surrounding spaces).
LANGUAGE_SPELLING = r"^\s*([Pp][Yy][Tt][Hh][Oo][Nn]3?|[Tt][Yy][Pp][Ee][Ss][Cc][Rr][Ii][Pp][Tt]|[Pp][Yy]|[Tt][Ss])\s*$"


def output_language(output: object) -> str:
    """The language an output contract asks for: `language: python`, else TypeScript. A `language` key
    with any other value is an export of that name, as it always was."""
    if isinstance(output, dict) and output.get("language") in LANGUAGES:
        return str(output["language"])
    return DEFAULT_LANGUAGE


IDENTIFIER = re.compile(r"^[^\W\d]\w*$|^[$_A-Za-z][$\w]*$")
JS_RESERVED = frozenset(
    [
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "else",
        "enum",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "new",
        "null",
        "return",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "yield",
        "let",
        "static",
        "implements",
        "interface",
        "package",
        "private",
        "protected",
        "public",
        "await",
    ]
)
_BAD_FILE_CHARS = re.compile(r'[<>:"/\\|?*\x00-\x1f]')
# Names Windows keeps for devices, with or without an extension: a run folder cannot be called CON.
_WINDOWS_DEVICES = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$", re.IGNORECASE)


# The same rule as valid_file_name, as patterns for the published schema (no flags: JavaScript
# engines read these too): a name matching any of them is refused.
FILE_NAME_TRAPS = (
    r"^\.\.?$",
    _BAD_FILE_CHARS.pattern,
    r"^\s",
    r"\s$",
    r"\.$",
    r"^([cC][oO][nN]|[pP][rR][nN]|[aA][uU][xX]|[nN][uU][lL]|[cC][oO][mM][0-9]|[lL][pP][tT][0-9])(\..*)?$",
)


def valid_file_name(sid: str) -> bool:
    """Whether a scenario id can name its output folder and test file on every system."""
    return not (
        sid in (".", "..")
        or _BAD_FILE_CHARS.search(sid) is not None
        or sid != sid.strip()
        or sid.endswith(".")
        or _WINDOWS_DEVICES.match(sid) is not None
        or len(sid) > 200
    )
