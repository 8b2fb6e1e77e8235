"""`list`: the tests each test file collects, before any answer exists (the session learns the names
of its scored lines this way). The file imports `answer` as it will when it runs; here every name of
it is a placeholder, so a test file that only imports names and defines tests lists without an answer."""

from __future__ import annotations

import json
import os
import sys
import types
from typing import Any

import pytest

from .plugin import UNUSED_PLUGINS, name_of, short_message
from .session import INI

NOT_LOADED = "the answer is not loaded while skill-be lists the tests; use it inside the tests"


class Placeholder:
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(NOT_LOADED)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return Placeholder()


class StubModule(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return Placeholder()


class Lister:
    def __init__(self, root: str) -> None:
        self.root = root
        self.names: dict[str, list[str]] = {}
        self.errors: dict[str, str] = {}

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            path = os.path.join(self.root, report.nodeid.split("::")[0])
            self.errors.setdefault(path, short_message(report).strip().splitlines()[-1][:400])

    def pytest_collection_modifyitems(self, session: Any, config: Any, items: list[Any]) -> None:
        for item in items:
            self.names.setdefault(str(item.path), []).append(name_of(item.nodeid))


def main(argv: list[str]) -> None:
    packages = argv[argv.index("--packages") + 1] if "--packages" in argv else ""
    files = [a for i, a in enumerate(argv) if not a.startswith("--") and (i == 0 or argv[i - 1] != "--packages")]
    if packages:
        sys.path.append(packages)
    root = os.path.commonpath([os.path.dirname(os.path.dirname(f)) for f in files])
    sys.path[:0] = [os.path.join(root, "_shared")]
    sys.modules["answer"] = StubModule("answer")
    lister = Lister(root)
    args = ["--collect-only", "--continue-on-collection-errors", "-c", INI, "--rootdir", root]
    args += ["--confcutdir", root, "-o", "python_files=test_*.py"]
    for name in UNUSED_PLUGINS:
        args += ["-p", f"no:{name}"]
    pytest.main([*args, *files], plugins=[lister])
    out: dict[str, Any] = {}
    for f in files:
        if f in lister.errors:
            out[f] = {"error": f"raises when collected: {lister.errors[f]}"}
        elif lister.names.get(f):
            out[f] = {"names": lister.names[f]}
        else:
            out[f] = {"error": "collects no test"}
    sys.stdout.write("\n" + json.dumps(out) + "\n")
    sys.stdout.flush()
