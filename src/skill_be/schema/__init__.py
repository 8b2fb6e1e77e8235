"""JSON Schemas of the four file formats, generated from their pydantic models.

The same files are committed under `schemas/` at the top of the repository and shipped here as
package data; `python -m skill_be.schema --write` rewrites both, and a test fails when either drifts
from the models.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FORMATS = ("config", "eval", "result", "summary")
HERE = Path(__file__).resolve().parent
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def model_of(name: str) -> Any:
    if name == "config":
        from skill_be.project.models import ConfigModel

        return ConfigModel
    if name == "eval":
        from skill_be.project.models import EvalFileModel

        return EvalFileModel
    if name == "result":
        from skill_be.results.models import ResultFileModel

        return ResultFileModel
    if name == "summary":
        from skill_be.results.summary_models import SummaryModel

        return SummaryModel
    raise ValueError(name)


def generate(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one format, keys as the files spell them."""
    schema: dict[str, Any] = model_of(name).model_json_schema(by_alias=True, mode="validation")
    # summary.json keeps the nulls its writer writes (results/summary_models.py `Written`): there a
    # null is a value (a failed output's `usage`, an undecided `repsToDecide`), so its schema offers it.
    return {"$schema": DIALECT, **(schema if name == "summary" else _no_null(schema))}


def _no_null(node: Any) -> Any:
    """An optional key is written with its value or left out. skill-be also reads `key: null` as left
    out, but the schema does not offer it: an editor suggests the value, and the fast path
    (project/fastcheck.py) leaves that case to the model."""
    if isinstance(node, list):
        return [_no_null(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _no_null(v) for k, v in node.items()}
    branches = out.get("anyOf")
    if isinstance(branches, list) and {"type": "null"} in branches and out.get("default", 0) is None:
        rest = [b for b in branches if b != {"type": "null"}]
        del out["anyOf"], out["default"]
        out = {**rest[0], **out} if len(rest) == 1 and not (set(rest[0]) & set(out)) else {"anyOf": rest, **out}
    return out


def text(name: str) -> str:
    return json.dumps(generate(name), indent=2, ensure_ascii=False) + "\n"


def file_name(name: str) -> str:
    return f"{name}.schema.json"


def main() -> int:
    import sys

    if sys.argv[1:] != ["--write"]:
        print("usage: python -m skill_be.schema --write  (rewrites schemas/ and the packaged copies)", file=sys.stderr)
        return 2
    top = HERE.parents[2] / "schemas"
    for name in FORMATS:
        for folder in (HERE, top):
            folder.mkdir(exist_ok=True)
            (folder / file_name(name)).write_text(text(name), encoding="utf-8")
    return 0
