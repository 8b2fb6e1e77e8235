"""`<skill>/evals/evals.json`: the test cases the agentskills.io evaluation guide and Anthropic's
skill-creator keep beside SKILL.md, read as a skill-be eval file.

The mapping (docs/reference/eval-files.md, "evals/evals.json"):
- `prompt` is the scenario's prompt; each of `files` (paths relative to the skill folder) that is
  UTF-8 text is attached after it as a fenced block, so the model sees the file; a PDF or an image
  is an `attachments` entry, which the model gets as content (project/attachments.py);
- `expected_output` is context for the judge (`expectedOutput`), never a criterion of its own, so a
  migrated suite keeps its pass rates;
- string `assertions` and `expectations` (both, when both are written) are criteria, and so are
  `{"text": ...}` objects; objects with a `type` (contains, not_contains, regex, equals) and a string
  `value` are deterministic assertions, graded without a model;
- a case with no assertion yet runs with `graded: false`: its answers are kept for review;
- `id` names the scenario (`eval-<id>` when it is a number or not a valid file name).
Every key this mapping does not read is named in a warning (`Reading.notes`), never dropped silently.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.files import read_text
from skill_be.project.jsonfile import load_json
from skill_be.project.places import Places
from skill_be.project.rules import valid_file_name
from skill_be.project.where import type_name

FILE_NAME = "evals.json"
OBJECT_KINDS = ("contains", "not_contains", "regex", "equals")
MAX_ATTACHMENT = 200_000  # characters of one attached text file
TOP_KEYS = ("skill_name", "evals")
CASE_KEYS = ("id", "prompt", "expected_output", "files", "assertions", "expectations")
# Keys real files write that skill-be does not read, and what to do about them.
WHY_NOT = {
    "name": "skill-be names each scenario by its id",
    "expected_behavior": 'move these lines to "assertions" to grade them',
    "category": "skill-be reports each line on its own, without categories",
    "passed": "a recorded verdict; skill-be grades every answer itself",
}
AGENT_FIX = "run `skill-be convert` and give the scenario mode: agent, which copies the file into the workspace"
NOT_GRADED_HINT = (
    'not graded: no assertions ({ids}); skill-be runs them and keeps the answers for review. Add "assertions": '
    '["what a good answer does", ...] to a case to grade it'
)

Loc = list[str | int]
Error = Callable[[Loc, str], ConfigError]


class Reading(NamedTuple):
    data: dict[str, Any]  # the equivalent skill-be eval file, keys as that format spells them
    notes: tuple[str, ...]  # one warning line each: keys not read, cases not graded, SKILL.md attached
    places: Places  # the evals.json's places, found by the key paths of `data` (EvalFile.places)


def location(skill_dir: Path) -> Path:
    return skill_dir / "evals" / FILE_NAME


def converted(path: Path, skill_dir: Path, base: Path | None = None) -> dict[str, Any]:
    """The skill-be eval file (as data) equivalent to an evals.json; see `read`."""
    return read(path, skill_dir, base).data


def read(path: Path, skill_dir: Path, base: Path | None = None) -> Reading:
    """The evals.json at `path` as a skill-be eval file whose attachment paths are relative to `base`
    (default: the evals.json's folder). A problem is one ConfigError line with the file, the line and
    column, and the fix."""
    text = read_text(path, what="eval file")
    data = load_json(text, shown(path))
    places = Places(text, "json")
    notes: list[str] = []

    def at(loc: Loc, key: bool = False) -> str:
        place = places.find(loc, key=key)
        where = f"{shown(path)}:{place[0]}:{place[1]}" if place else shown(path)
        dotted = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
        return f"{where}: {dotted}" if dotted else where

    def error(loc: Loc, message: str) -> ConfigError:
        return ConfigError(f"{at(loc)}: {message}")

    if not isinstance(data, dict):
        raise error([], f'must be an object with an "evals" list, not {type_name(data)}')
    cases = data.get("evals")
    if not isinstance(cases, list) or not cases:
        raise error(["evals"] if "evals" in data else [], 'needs "evals", a non-empty list of test cases')
    unread: dict[str, list[Loc]] = {}
    _unread(data, TOP_KEYS, [], unread)
    scenarios, ungraded = [], []
    seen: dict[str, int] = {}
    ctx = _Case(skill_dir, base or path.parent, unread, lambda loc, msg: notes.append(f"warning: {at(loc)}: {msg}"))
    for i, case in enumerate(cases):

        def in_case(loc: Loc, msg: str, i: int = i) -> ConfigError:
            return error(["evals", i, *loc], msg)

        sc = ctx.scenario(case, i, in_case)
        if sc["id"] in seen:
            raise error(
                ["evals", i, "id"], f'"{sc["id"]}" is used twice (also evals[{seen[sc["id"]]}]); give each its own id'
            )
        seen[sc["id"]] = i
        scenarios.append(sc)
        if sc.get("graded") is False:
            ungraded.append(i)
    notes += _unread_notes(unread, at)
    if ungraded:
        ids = ", ".join(f'evals[{i}] (scenario "{scenarios[i]["id"]}")' for i in ungraded)
        cases_ = "1 case is" if len(ungraded) == 1 else f"{len(ungraded)} cases are"
        place = at(["evals", ungraded[0]]).rsplit(": ", 1)[0]
        notes.append(f"warning: {place}: {cases_} {NOT_GRADED_HINT.format(ids=ids)}")
    return Reading({"scenarios": scenarios}, tuple(notes), _Remapped(text, ctx.sources, shown(path)))


def _unread(node: dict[str, Any], known: Sequence[str], loc: Loc, into: dict[str, list[Loc]]) -> None:
    for key in node:
        if key not in known:
            into.setdefault(key, []).append([*loc, key])


def _unread_notes(unread: dict[str, list[Loc]], at: Callable[[Loc, bool], str]) -> list[str]:
    """One warning per key that is not read: its first place, how often, and why."""
    out = []
    for key, locs in unread.items():
        more = f" (and {len(locs) - 1} more like it)" if len(locs) > 1 else ""
        why = WHY_NOT.get(key, "skill-be does not read this key")
        out.append(f'warning: {at(locs[0], True)}{more}: "{key}" is not read: {why}')
    return out


class _Case:
    """Turns one case into a scenario; collects what it does not read and where its files came from."""

    def __init__(self, skill_dir: Path, base: Path, unread: dict[str, list[Loc]], note: Callable[[Loc, str], None]):
        self.skill_dir = skill_dir
        self.base = base
        self.unread = unread
        self.note = note
        self.sources: dict[tuple[int, int], tuple[int, str]] = {}  # (scenario, attachment) -> (files index, name)

    def scenario(self, case: object, i: int, error: Error) -> dict[str, Any]:
        if not isinstance(case, dict):
            raise error([], f"must be an object with a prompt, not {type_name(case)}")
        _unread(case, CASE_KEYS, ["evals", i], self.unread)
        prompt = case.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise error(["prompt"] if "prompt" in case else [], 'needs "prompt", the task as a non-empty string')
        raw_id = case.get("id", i + 1)
        ok = isinstance(raw_id, str) and valid_file_name(raw_id) and not raw_id.isdigit()
        sid = raw_id if ok else f"eval-{raw_id}"
        if not valid_file_name(sid):
            raise error(["id"], f'"{raw_id}" cannot name a scenario; use letters, digits, "-" and "_"')
        text, attached = self.files(case.get("files"), i, error)
        out: dict[str, Any] = {"id": sid, "prompt": prompt + text}
        if attached:
            out["attachments"] = attached
        expected = case.get("expected_output")
        if isinstance(expected, str) and expected.strip():
            out["expectedOutput"] = expected
        criteria: list[str] = []
        checks: list[dict[str, Any]] = []
        for key in ("assertions", "expectations"):  # both when both are written: none is dropped
            self.assertions(case.get(key), key, i, error, criteria, checks)
        if criteria:
            out["criteria"] = criteria
        if checks:
            out["assertions"] = checks
        if not criteria and not checks:
            out["graded"] = False
        return out

    def assertions(
        self, items: object, key: str, i: int, error: Error, criteria: list[str], checks: list[dict[str, Any]]
    ) -> None:
        if items is None:
            return
        if not isinstance(items, list):
            raise error([key], f"must be a list, not {type_name(items)}")
        for j, item in enumerate(items):
            text = item.get("text") if isinstance(item, dict) else item
            if isinstance(text, str) and text.strip():
                if isinstance(item, dict):  # {"text": ..., "category"/"passed": ...}, as graders write them
                    _unread(item, ("text",), ["evals", i, key, j], self.unread)
                if text in criteria:
                    self.note(["evals", i, key, j], f'"{text}" is written twice; it is one criterion')
                else:
                    criteria.append(text)
            elif isinstance(item, dict) and item.get("type") in OBJECT_KINDS and isinstance(item.get("value"), str):
                _unread(item, ("type", "value", "name"), ["evals", i, key, j], self.unread)
                check = {"type": item["type"], "value": item["value"]}
                if isinstance(item.get("name"), str) and item["name"].strip():
                    check["name"] = item["name"]
                checks.append(check)
            else:
                raise error(
                    [key, j],
                    'must be a string, {"text": ...}, or an object with "type" (contains, not_contains, regex or '
                    'equals) and a string "value"',
                )

    def files(self, files: object, i: int, error: Error) -> tuple[str, list[str]]:
        """The text files as fenced blocks after the prompt, and the PDFs and images as attachments."""
        if files is None:
            return "", []
        if not isinstance(files, list) or not all(isinstance(f, str) and f.strip() for f in files):
            raise error(["files"], "must be a list of paths relative to the skill folder")
        parts: list[str] = []
        attached: list[str] = []
        root = self.skill_dir.resolve()
        for j, name in enumerate(files):
            path = (self.skill_dir / name).resolve()
            if not path.is_relative_to(root):
                raise error(["files", j], f'"{name}" is outside the skill folder; keep test files inside it')
            if path == (root / "SKILL.md"):
                self.note(
                    ["evals", i, "files", j],
                    f'"{name}" is the skill\'s own SKILL.md: the baseline arm reads the skill too, so the '
                    "comparison understates what the skill does; attach the task's own files only",
                )
            part = self.one_file(name, path, j, error)
            if part is None:
                self.sources[(i, len(attached))] = (j, name)
                attached.append(Path(os.path.relpath(path, self.base.resolve())).as_posix())
                parts.append(f"\n\nFile `{name}` is attached.")
            else:
                parts.append(part)
        return "".join(parts), attached

    def one_file(self, name: str, path: Path, j: int, error: Error) -> str | None:
        """A text file as its fenced block; None for a PDF or an image (attached as it is)."""
        from skill_be.project.attachments import MAX_BYTES, OCTETS, is_text, media_type, one_shot_problem

        try:
            data = path.read_bytes() if path.stat().st_size <= MAX_BYTES else None
        except OSError as e:
            why = "not found" if isinstance(e, FileNotFoundError) else f"cannot be read ({e.strerror or e})"
            raise error(["files", j], f'"{name}": {why} ({shown(path)}); fix the path') from None
        if data is None:
            raise error(["files", j], f'"{name}" is over {MAX_BYTES} bytes; attach a smaller file')
        kind = media_type(data)  # a PDF may be all ASCII: its first bytes decide, not its encoding
        if kind != OCTETS or not is_text(data):
            from skill_be.project.attachments import Attachment

            refused = one_shot_problem(Attachment(name, kind), AGENT_FIX)
            if refused is not None:
                raise error(["files", j], refused)
            return None
        content = data.decode("utf-8").removeprefix("\ufeff")
        if len(content) > MAX_ATTACHMENT:
            raise error(["files", j], f'"{name}" is over {MAX_ATTACHMENT} characters; attach a smaller file')
        fence = "````" if "```" in content else "```"
        return f"\n\nFile `{name}`:\n{fence}\n{content.rstrip()}\n{fence}"


class _Remapped(Places):
    """The evals.json's own places, found by the key paths of the converted scenarios: an error found
    after loading (`scenarios[0].attachments[0]`) points at the case's line (`evals[0].files[2]`)."""

    def __init__(self, text: str, sources: dict[tuple[int, int], tuple[int, str]], name: str) -> None:
        super().__init__(text, "json")
        self.sources = sources
        self.name = name

    def attachment(self, i: int, j: int) -> tuple[str, str]:
        """Attachment j of scenario i as the evals.json writes it: `file:line:col: evals[i].files[k]`, the name."""
        k, written = self.sources[(i, j)]
        place = super().find(["evals", i, "files", k])
        at = f"{self.name}:{place[0]}:{place[1]}" if place else self.name
        return f"{at}: evals[{i}].files[{k}]", written

    def find(self, path: Sequence[str | int], *, key: bool = False) -> tuple[int, int] | None:
        parts = list(path)
        if len(parts) >= 2 and parts[0] == "scenarios" and isinstance(parts[1], int):
            i = parts[1]
            rest = parts[2:]
            if rest[:1] == ["attachments"] and len(rest) > 1 and isinstance(rest[1], int):
                mapped: list[str | int] = ["evals", i, "files", self.sources.get((i, rest[1]), (0, ""))[0]]
            elif rest[:1] in (["prompt"], ["id"]):
                mapped = ["evals", i, str(rest[0])]
            else:
                mapped = ["evals", i]
            return super().find(mapped, key=key)
        return super().find(["evals"] if parts[:1] == ["scenarios"] else parts, key=key)


def relabelled(evals: Any, reading: Reading) -> Any:
    """The EvalFile of a reading with each attachment named and placed as the evals.json writes it."""
    from dataclasses import replace

    places = reading.places
    if not isinstance(places, _Remapped) or not places.sources:
        return evals
    scenarios = []
    for i, sc in enumerate(evals.scenarios):
        named = [
            replace(a, where=w, name=n) for j, a in enumerate(sc.attachments) for w, n in [places.attachment(i, j)]
        ]
        scenarios.append(sc._replace(attachments=tuple(named)) if named else sc)
    return evals._replace(scenarios=tuple(scenarios))


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
