"""What `skill-be open` reads of a results folder: each run folder's summary.json (or why it cannot
be read), and the answers and grader replies results.html shows, confined to the run's folder."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill_be.errors import ConfigError
from skill_be.results.run_dir import run_folders

if TYPE_CHECKING:
    from skill_be.results.summary_models import SummaryModel


@dataclass(frozen=True)
class RunEntry:
    """One run folder: its name, summary.json's document (None when unreadable, `problem` says why),
    and whether the run wrote its own results.html."""

    name: str
    doc: Mapping[str, Any] | None
    problem: str = ""
    has_page: bool = False
    summary: SummaryModel | None = None  # `doc` read through its model


def read_entry(path: Path) -> RunEntry:
    """A run folder's summary.json checked against its model; a broken one is a problem, never raised."""
    from skill_be.results.summary_file import parse_summary

    has_page = (path / "results.html").is_file()
    try:
        text = (path / "summary.json").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return RunEntry(path.name, None, f"summary.json cannot be read ({e})", has_page)
    try:
        summary = parse_summary(text, f"{path.name}/summary.json")
    except ConfigError as e:
        return RunEntry(path.name, None, str(e), has_page)
    return RunEntry(path.name, json.loads(text), "", has_page, summary)


@dataclass(frozen=True)
class AgentFiles:
    """What an agent rep left beside its answer, for its page: the transcript's document (None when
    missing or unreadable) and the workspace diff (None when missing)."""

    transcript: Mapping[str, Any] | None
    diff: str | None


Seen = dict[Path, tuple[tuple[int, int], RunEntry]]  # a folder -> its summary.json's (mtime, size), entry


def run_entries(results: Path, seen: Seen | None = None) -> list[RunEntry]:
    """Every run folder under the results folder (those with a summary.json), oldest first. With
    `seen`, a summary.json unchanged since it was last read (same time and size) is not read again."""
    out = []
    for path in run_folders(results):
        if seen is None:
            out.append(read_entry(path))
            continue
        try:
            st = (path / "summary.json").stat()
        except OSError:
            continue  # removed since it was listed
        key = (st.st_mtime_ns, st.st_size)
        known = seen.get(path)
        entry = known[1] if known is not None and known[0] == key else read_entry(path)
        seen[path] = (key, entry)
        out.append(replace(entry, has_page=(path / "results.html").is_file()))
    return out


def _inside(root: Path, relative: str) -> Path | None:
    """`relative` under `root`, or None when it leaves it (`..`, an absolute path, a symlink out)."""
    try:
        target = (root / relative).resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    return target if target.is_relative_to(root.resolve()) and target.is_file() else None


def _text(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return text[:-1] if text.endswith("\n") else text  # the run folder adds one newline


def page_inputs(run: Path, doc: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """What `reports/html.render_html` shows beyond summary.json, read back from the run folder: each
    output's answer and each grading's last reply (`<rep>.grading-<k>.md`), keyed by the output's file.
    A file named outside the run folder is not read."""
    texts: dict[str, str] = {}
    replies: dict[str, list[str]] = {}
    for skill in doc.get("skills", {}).values():
        for sc in skill.get("scenarios", []):
            for m in sc.get("models", {}).values():
                for o in m.get("outputs", []):
                    file = o.get("file")
                    if not isinstance(file, str) or not file.endswith(".md"):
                        continue
                    text = _text(_inside(run, file))
                    if text is not None:
                        texts[file] = text
                    stem = file.removesuffix(".md")
                    got = [_text(_inside(run, f"{stem}.grading-{g.get('k')}.md")) for g in o.get("gradings", [])]
                    replies[file] = [r or "" for r in got]
    return texts, replies


def agent_inputs(run: Path, doc: Mapping[str, Any]) -> dict[str, AgentFiles]:
    """Each agent rep's transcript (rep-*.transcript.json) and diff (rep-*.diff) in the run folder, by
    the rep's stem (skill/scenario/model/rep-N-arm, the model as its folder is named). A file
    outside the run folder, or a transcript that is not a JSON object, is left out."""
    from skill_be.results.run_dir import safe_name

    out: dict[str, AgentFiles] = {}
    for name, skill in doc.get("skills", {}).items():
        for sc in skill.get("scenarios", []):
            for label, m in sc.get("models", {}).items():
                for o in m.get("outputs", []):
                    if not isinstance((o.get("adapter") or {}).get("agent"), Mapping):
                        continue
                    stem = f"{name}/{sc.get('id')}/{safe_name(label)}/rep-{o.get('rep')}-{o.get('arm')}"
                    out[stem] = AgentFiles(_json(_text(_inside(run, f"{stem}.transcript.json"))), _diff(run, stem))
    return out


def _json(text: str | None) -> Mapping[str, Any] | None:
    try:
        doc = json.loads(text) if text is not None else None
    except ValueError:
        return None
    return doc if isinstance(doc, Mapping) else None


def _diff(run: Path, stem: str) -> str | None:
    path = _inside(run, f"{stem}.diff")
    try:
        return None if path is None else path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
