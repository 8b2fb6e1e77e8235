"""YAML loading that reports syntax errors and duplicate keys with their line."""

from __future__ import annotations

import contextlib
from typing import Any

import yaml

from skill_be.errors import ConfigError

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_Base):  # type: ignore[misc]
    """Safe loading, plus: a key written twice in one mapping is an error, not a silent overwrite."""

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                duplicate = key in seen
            except TypeError:
                duplicate = False
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    None, None, f'key "{key}" appears twice in one mapping', key_node.start_mark
                )
            with contextlib.suppress(TypeError):
                seen.add(key)
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _StrictLoader.construct_mapping)


def load_yaml(text: str, name: str, *, first_line: int = 1) -> object:
    """Parse YAML text; a syntax error becomes `name: line L, column C: invalid YAML (...)`."""
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"line {mark.line + first_line}, column {mark.column + 1}: " if mark else ""
        problem = e.problem or e.context or "syntax error"
        raise ConfigError(f"{name}: {where}invalid YAML ({problem})") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{name}: invalid YAML ({e})") from None
