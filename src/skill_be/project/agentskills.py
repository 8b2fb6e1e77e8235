"""`<skill>/evals/evals.json`: the test cases the agentskills.io evaluation guide and Anthropic's
skill-creator keep beside SKILL.md, read as a skill-be eval file.

The mapping (README, "evals/evals.json"):
- `prompt` is the scenario's prompt; each of `files` (paths relative to the skill folder) is attached
  after it as a fenced block, so the model sees the file;
- `expected_output` is context for the judge (`expectedOutput`), never a criterion of its own, so a
  migrated suite keeps its pass rates;
- string `assertions` (or `expectations`) are criteria; object assertions of type `contains` and
  `not_contains` (`{"name", "type", "value"}`) are deterministic assertions, graded without a model;
- `id` names the scenario (`eval-<id>` when it is a number or not a valid file name).
Keys other tools add beside these are left alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.files import read_text
from skill_be.project.jsonfile import load_json
from skill_be.project.places import Places
from skill_be.project.rules import valid_file_name
from skill_be.project.where import type_name

FILE_NAME = "evals.json"
OBJECT_KINDS = ("contains", "not_contains")
MAX_ATTACHMENT = 200_000  # characters of one attached file


def location(skill_dir: Path) -> Path:
    return skill_dir / "evals" / FILE_NAME


def converted(path: Path, skill_dir: Path) -> dict[str, Any]:
    """The skill-be eval file (as data, keys as the file spells them) equivalent to an evals.json.
    A problem is one ConfigError line with the file, the line and column, and the fix."""
    text = read_text(path, what="eval file")
    data = load_json(text, shown(path))
    places = Places(text, "json")

    def error(loc: list[str | int], message: str) -> ConfigError:
        place = places.find(loc)
        where = f"{shown(path)}:{place[0]}:{place[1]}" if place else shown(path)
        dotted = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
        return ConfigError(f"{where}: {dotted}: {message}" if dotted else f"{where}: {message}")

    if not isinstance(data, dict):
        raise error([], f'must be an object with an "evals" list, not {type_name(data)}')
    cases = data.get("evals")
    if not isinstance(cases, list) or not cases:
        raise error(["evals"] if "evals" in data else [], 'needs "evals", a non-empty list of test cases')
    scenarios = []
    seen: dict[str, int] = {}
    for i, case in enumerate(cases):
        sc = _scenario(case, i, skill_dir, lambda loc, msg, i=i: error(["evals", i, *loc], msg))
        if sc["id"] in seen:
            raise error(
                ["evals", i, "id"], f'"{sc["id"]}" is used twice (also evals[{seen[sc["id"]]}]); give each its own id'
            )
        seen[sc["id"]] = i
        scenarios.append(sc)
    return {"scenarios": scenarios}


def _scenario(case: object, i: int, skill_dir: Path, error: Any) -> dict[str, Any]:
    if not isinstance(case, dict):
        raise error([], f"must be an object with a prompt, not {type_name(case)}")
    prompt = case.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise error(["prompt"] if "prompt" in case else [], 'needs "prompt", the task as a non-empty string')
    raw_id = case.get("id", i + 1)
    sid = raw_id if isinstance(raw_id, str) and valid_file_name(raw_id) and not raw_id.isdigit() else f"eval-{raw_id}"
    if not valid_file_name(sid):
        raise error(["id"], f'"{raw_id}" cannot name a scenario; use letters, digits, "-" and "_"')
    out: dict[str, Any] = {"id": sid, "prompt": prompt + _attachments(case.get("files"), skill_dir, error)}
    expected = case.get("expected_output")
    if isinstance(expected, str) and expected.strip():
        out["expectedOutput"] = expected
    key = "assertions" if "assertions" in case else "expectations"
    criteria, checks = _assertions(case.get(key), key, error)
    if criteria:
        out["criteria"] = criteria
    if checks:
        out["assertions"] = checks
    if not criteria and not checks:
        raise error([], 'needs "assertions" (or "expectations"): what a good answer does, one string each')
    return out


def _assertions(items: object, key: str, error: Any) -> tuple[list[str], list[dict[str, Any]]]:
    if items is None:
        return [], []
    if not isinstance(items, list):
        raise error([key], f"must be a list, not {type_name(items)}")
    criteria: list[str] = []
    checks: list[dict[str, Any]] = []
    for j, item in enumerate(items):
        if isinstance(item, str) and item.strip():
            criteria.append(item)
        elif isinstance(item, dict) and item.get("type") in OBJECT_KINDS and isinstance(item.get("value"), str):
            check = {"type": item["type"], "value": item["value"]}
            if isinstance(item.get("name"), str) and item["name"].strip():
                check["name"] = item["name"]
            checks.append(check)
        elif isinstance(item, dict) and isinstance(item.get("text"), str) and item["text"].strip():
            criteria.append(item["text"])  # {"text": ..., "passed": ...}, as some graders write them
        else:
            raise error(
                [key, j],
                'must be a string, or an object with "type" contains or not_contains and a string "value"',
            )
    return criteria, checks


def _attachments(files: object, skill_dir: Path, error: Any) -> str:
    if files is None:
        return ""
    if not isinstance(files, list) or not all(isinstance(f, str) and f.strip() for f in files):
        raise error(["files"], "must be a list of paths relative to the skill folder")
    parts = []
    root = skill_dir.resolve()
    for j, name in enumerate(files):
        path = (skill_dir / name).resolve()
        if not path.is_relative_to(root):
            raise error(["files", j], f'"{name}" is outside the skill folder; keep test files inside it')
        try:
            content = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            why = "not found" if isinstance(e, FileNotFoundError) else "not a readable UTF-8 text file"
            raise error(["files", j], f'"{name}": {why} ({shown(path)}); fix the path') from None
        if len(content) > MAX_ATTACHMENT:
            raise error(["files", j], f'"{name}" is over {MAX_ATTACHMENT} characters; attach a smaller file')
        fence = "````" if "```" in content else "```"
        parts.append(f"\n\nFile `{name}`:\n{fence}\n{content.rstrip()}\n{fence}")
    return "".join(parts)


def attachment_paths(path: Path, skill_dir: Path) -> list[Path]:
    """The files an evals.json attaches (for the fingerprint), in the file's order; none on error."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    out: list[Path] = []
    for case in data.get("evals", []) if isinstance(data, dict) else []:
        files = case.get("files") if isinstance(case, dict) else None
        if isinstance(files, list):
            out += [skill_dir / f for f in files if isinstance(f, str)]
    return out
