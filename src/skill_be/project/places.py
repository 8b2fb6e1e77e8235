"""Where a key or value sits in a YAML or JSON file: line and column from a key path.

Only an error needs a place, so the text is read again, positions and all, only then: a valid file
pays nothing. A path is a tuple of keys (str) and list indexes (int), as pydantic's error `loc`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

Path = Sequence[str | int]
Place = tuple[int, int]  # 1-based line and column


class Places:
    """The place of each key and value in one file's text, computed on the first question."""

    def __init__(self, text: str, kind: str, first_line: int = 1) -> None:
        self.text = text
        self.kind = kind  # "yaml" or "json"
        self.first_line = first_line
        self._index: dict[tuple[str | int, ...], tuple[Place, Place]] | None = None

    def _built(self) -> dict[tuple[str | int, ...], tuple[Place, Place]]:
        if self._index is None:
            index: dict[tuple[str | int, ...], tuple[Place, Place]] = {}
            try:
                if self.kind == "yaml":
                    _yaml_places(self.text, index)
                else:
                    _JsonPlaces(self.text, index).run()
            except Exception:
                index = {}
            self._index = {k: ((a[0] + self.first_line - 1, a[1]), (b[0] + self.first_line - 1, b[1]))
                           for k, (a, b) in index.items()}  # fmt: skip
        return self._index

    def find(self, path: Path, *, key: bool = False) -> Place | None:
        """The place of the value at `path` (of its key with `key`); the nearest enclosing one when the
        path goes deeper than the file (a missing key is reported at its mapping)."""
        index = self._built()
        parts = tuple(path)
        while True:
            got = index.get(parts)
            if got is not None:
                return got[0] if key else got[1]
            if not parts:
                return None
            parts = parts[:-1]
            key = False  # the parent's value holds the missing key


def _yaml_places(text: str, index: dict[tuple[str | int, ...], tuple[Place, Place]]) -> None:
    import yaml

    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    root = yaml.compose(text, Loader=loader)
    if root is None:
        return

    def mark(node: Any) -> Place:
        return node.start_mark.line + 1, node.start_mark.column + 1

    def walk(node: Any, path: tuple[str | int, ...], key_place: Place) -> None:
        index.setdefault(path, (key_place, mark(node)))
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if k.tag == "tag:yaml.org,2002:merge":
                    merged = v.value if isinstance(v, yaml.SequenceNode) else [v]
                    for m in merged:
                        for mk, mv in getattr(m, "value", []):
                            if isinstance(mk, yaml.ScalarNode):
                                walk(mv, (*path, mk.value), mark(mk))
                    continue
                if isinstance(k, yaml.ScalarNode):
                    walk(v, (*path, k.value), mark(k))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, (*path, i), mark(item))

    walk(root, (), mark(root))


_SPACE = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_ATOM = re.compile(r"[^,\]}\s]+")


class _JsonPlaces:
    """A small scanner over text that `json.loads` already accepted: it records where each value and
    each key starts, and builds nothing else."""

    def __init__(self, text: str, index: dict[tuple[str | int, ...], tuple[Place, Place]]) -> None:
        self.text = text
        self.index = index
        self.pos = 0
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def place(self, pos: int) -> Place:
        import bisect

        line = bisect.bisect_right(self.line_starts, pos)
        return line, pos - self.line_starts[line - 1] + 1

    def skip(self) -> None:
        m = _SPACE.match(self.text, self.pos)
        self.pos = m.end() if m else self.pos

    def run(self) -> None:
        self.skip()
        self.value((), self.place(self.pos))

    def value(self, path: tuple[str | int, ...], key_place: Place) -> None:
        self.skip()
        self.index.setdefault(path, (key_place, self.place(self.pos)))
        c = self.text[self.pos : self.pos + 1]
        if c == "{":
            self.pos += 1
            self.skip()
            if self.text[self.pos] == "}":
                self.pos += 1
                return
            while True:
                self.skip()
                start = self.pos
                m = _STRING.match(self.text, self.pos)
                assert m is not None
                import json

                name = json.loads(m.group(0))
                self.pos = m.end()
                self.skip()
                self.pos += 1  # the colon
                self.value((*path, name), self.place(start))
                self.skip()
                if self.text[self.pos] == ",":
                    self.pos += 1
                    continue
                self.pos += 1  # the closing brace
                return
        if c == "[":
            self.pos += 1
            self.skip()
            if self.text[self.pos] == "]":
                self.pos += 1
                return
            i = 0
            while True:
                self.skip()
                self.value((*path, i), self.place(self.pos))
                i += 1
                self.skip()
                if self.text[self.pos] == ",":
                    self.pos += 1
                    continue
                self.pos += 1
                return
        m = _STRING.match(self.text, self.pos) if c == '"' else _ATOM.match(self.text, self.pos)
        assert m is not None
        self.pos = m.end()
