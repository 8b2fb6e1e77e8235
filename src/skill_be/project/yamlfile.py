"""YAML loading that reports syntax errors and duplicate keys with their line."""

from __future__ import annotations

import contextlib
from typing import Any

import yaml

from skill_be.errors import ConfigError
from skill_be.project.characters import refuse_bad_characters

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE_TAG = "tag:yaml.org,2002:merge"


class _Duplicate(yaml.MarkedYAMLError):
    """A key written twice in one mapping; carries both lines so the message can name them."""

    def __init__(self, key: object, first_line: int, mark: Any) -> None:
        super().__init__(problem=f'key "{key}"', problem_mark=mark)
        self.key = key
        self.first_line = first_line


class _StrictLoader(_Base):  # type: ignore[misc]
    """Safe loading, plus: a key written twice in one mapping is an error, not a silent overwrite."""

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == _MERGE_TAG:
                continue  # `<<: *base` merges keys that the mapping may then override on purpose
            key = self.construct_object(key_node, deep=deep)
            with contextlib.suppress(TypeError):  # an unhashable key is reported by the constructor below
                if key in seen:
                    raise _Duplicate(key, seen[key], key_node.start_mark)
                seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _StrictLoader.construct_mapping)


def load_yaml(text: str, name: str, *, first_line: int = 1, part: str = "") -> object:
    """Parse YAML text; a syntax error becomes `name:L:C: invalid YAML (...); fix ...` (`part` names the
    piece of the file, such as a SKILL.md's front matter, that starts at `first_line`)."""
    after = f" {part}:" if part else ""
    try:
        data = yaml.load(text, Loader=_StrictLoader)
    except _Duplicate as e:
        mark = e.problem_mark
        at = f":{mark.line + first_line}:{mark.column + 1}" if mark else ""
        raise ConfigError(
            f'{name}{at}:{after} key "{e.key}" is written twice in one mapping (first at line '
            f"{e.first_line + first_line}); keep one of them"
        ) from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        at = f":{mark.line + first_line}:{mark.column + 1}" if mark else ""
        raise ConfigError(f"{name}{at}:{after} {_explain(e, text)}") from None
    except yaml.reader.ReaderError as e:  # a character YAML does not allow, found before parsing
        before = text[: e.position]
        line = before.count("\n") + first_line
        column = e.position - (before.rfind("\n") + 1) + 1
        raise ConfigError(
            f"{name}:{line}:{column}:{after} invalid YAML (the control character U+{e.character:04X} is "
            "not allowed); remove it"
        ) from None
    except yaml.YAMLError as e:
        one_line = " ".join(str(e).split())
        raise ConfigError(f"{name}:{after} invalid YAML ({one_line}); fix the syntax") from None
    refuse_bad_characters(data, text, name, "yaml", first_line)
    return data


def _explain(e: yaml.MarkedYAMLError, text: str) -> str:
    """PyYAML's words, with the fix for the mistakes people make most."""
    problem = e.problem or e.context or "syntax error"
    mark = e.problem_mark
    if mark is not None and 0 <= mark.index < len(text) and text[mark.index] == "\t":
        return "invalid YAML (a tab character; YAML indents with spaces only); replace the tab with spaces"
    if problem.startswith("could not determine a constructor for the tag"):
        tag = problem.rsplit(" ", 1)[-1].strip("'").replace("tag:yaml.org,2002:", "!!")
        return f"invalid YAML (the tag {tag} is not supported: only plain values are read); remove the tag"
    if problem == "but found another document":
        return 'invalid YAML (a second document starts here with "---"); keep one document in the file'
    return f"invalid YAML ({problem}); fix the syntax there"
