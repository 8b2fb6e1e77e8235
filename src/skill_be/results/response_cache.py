"""The response cache's store: one JSON file per successful model call, under its key.

An entry is `<folder>/<first two hex digits>/<key>.json`, written to a temp file and renamed into
place, so a reader (another run at the same time, an interrupted run) sees a whole entry or none. A
damaged entry is a miss with one warning; a folder that cannot be written turns the cache off with
one warning. Failed calls are never stored. The keys, and the engine's side that asks the store
before each call, are in `engine/cache.py`."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from skill_be.adapters.base import Answer, Usage
from skill_be.engine.cache import FORMAT
from skill_be.paths import shown
from skill_be.results.atomic import write_atomic


def cache_folder(config_root: Path) -> Path:
    """`.skill-be/cache/` in the config's folder, beside the default results folder."""
    return config_root / ".skill-be" / "cache"


CACHED = ("cacheWrite", "cacheRead")  # a usage's prompt-cache counts, kept only where not 0


def _usage_doc(u: Usage) -> dict[str, int | None]:
    cached = dict(zip(CACHED, (u.cache_write_tokens, u.cache_read_tokens), strict=True))
    return {"input": u.input_tokens, "output": u.output_tokens, **{k: n for k, n in cached.items() if n}}


class Damaged(Exception):
    pass


def _usage_from(doc: object) -> Usage | None:
    if doc is None:
        return None
    if not isinstance(doc, dict) or not {"input", "output"} <= set(doc) <= {"input", "output", *CACHED}:
        raise Damaged("usage is not {input, output}")
    values = [doc["input"], doc["output"], *(doc.get(k, 0) for k in CACHED)]
    if any(x is not None and (not isinstance(x, int) or isinstance(x, bool)) for x in values):
        raise Damaged("a token count is not a whole number")
    return Usage(values[0], values[1], values[2] or 0, values[3] or 0)


def _answer_from(raw: bytes, key: str) -> Answer:
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise Damaged(f"not JSON: {e}") from None
    if not isinstance(doc, dict):
        raise Damaged("not a JSON object")
    if doc.get("format") != FORMAT or doc.get("key") != key:
        raise Damaged("its key or format does not match its name")
    text, meta = doc.get("text"), doc.get("meta")
    if not isinstance(text, str) or not isinstance(meta, dict):
        raise Damaged("text or meta missing")
    return Answer(text=text, usage=_usage_from(doc.get("usage")), meta=meta)


class ResponseCache:
    """Lookups and stores, counted per skill. One object per command; safe for two processes at once."""

    def __init__(self, folder: Path, warn: Callable[[str], None]) -> None:
        self.folder = folder
        self.warn = warn
        self.enabled = True
        self.hits: Counter[str] = Counter()  # skill -> calls answered from the cache
        self.made: Counter[str] = Counter()  # skill -> calls made (cache misses, failed calls included)
        self._warned: set[str] = set()

    @classmethod
    def open(cls, folder: Path, warn: Callable[[str], None]) -> ResponseCache:
        """The cache, or a turned-off one (with one warning) when the folder cannot be written."""
        cache = cls(folder, warn)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            probe = folder / f".probe.{os.getpid()}.{os.urandom(4).hex()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as e:
            cache._turn_off(e)
        return cache

    def _turn_off(self, e: OSError) -> None:
        self.enabled = False
        self.warn(
            f"{shown(self.folder)}: the response cache cannot be written ({e.strerror or e}); "
            "this run makes every call and stores none (fix the folder's permissions, or run with --no-cache)"
        )

    def path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def peek(self, key: str) -> Answer | None:
        """An entry's answer without counting it (dry runs); a damaged one is None, silently."""
        if not self.enabled:
            return None
        try:
            return _answer_from(self.path(key).read_bytes(), key)
        except (OSError, Damaged):
            return None

    def get(self, key: str, skill: str) -> Answer | None:
        """The stored answer, or None. A hit is counted for `skill` and refreshes the entry's time, so
        `cache prune --older-than` removes what no run has used for that long."""
        if not self.enabled:
            return None
        path = self.path(key)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as e:
            self._warn_once(key, f"{shown(path)}: cannot read this cache entry ({e.strerror or e}); the call is made")
            return None
        try:
            answer = _answer_from(raw, key)
        except Damaged as e:
            self._warn_once(key, f"{shown(path)}: a damaged cache entry ({e}); it counts as a miss and is replaced")
            return None
        with contextlib.suppress(OSError):
            os.utime(path)
        self.hits[skill] += 1
        return answer

    def _warn_once(self, key: str, line: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            self.warn(line)

    def count_made(self, skill: str) -> None:
        self.made[skill] += 1

    def put(self, key: str, answer: Answer) -> None:
        """Store a successful call's answer: a temp file beside the entry, then a rename."""
        if not self.enabled:
            return
        doc = {
            "format": FORMAT,
            "key": key,
            "text": answer.text,
            "usage": None if answer.usage is None else _usage_doc(answer.usage),
            "meta": dict(answer.meta),
        }
        try:
            write_atomic(self.path(key), json.dumps(doc, ensure_ascii=False, default=str).encode("utf-8"))
        except OSError as e:
            self._turn_off(e)

    def counts(self, skill: str | None = None) -> dict[str, int]:
        """`{"made": n, "cached": m}` for one skill, or for the whole command."""
        if skill is None:
            return {"made": sum(self.made.values()), "cached": sum(self.hits.values())}
        return {"made": self.made[skill], "cached": self.hits[skill]}


# --- maintenance: `skill-be cache prune` and `cache clear` ---------------------------------------


def entries(folder: Path) -> Iterator[Path]:
    """Every entry and every temp file an interrupted write left behind."""
    if not folder.is_dir():
        return
    for sub in sorted(folder.iterdir()):
        if sub.is_dir() and len(sub.name) == 2:
            yield from sorted(p for p in sub.iterdir() if p.is_file())


def prune(folder: Path, older_than_seconds: float, now: float | None = None) -> tuple[int, int]:
    """Remove entries no run has written or used for `older_than_seconds`; (files removed, bytes freed)."""
    cutoff = (time.time() if now is None else now) - older_than_seconds
    removed = freed = 0
    for p in entries(folder):
        with contextlib.suppress(FileNotFoundError):
            st = p.stat()
            if st.st_mtime < cutoff:
                p.unlink()
                removed += 1
                freed += st.st_size
    _drop_empty(folder)
    return removed, freed


def clear(folder: Path) -> tuple[int, int]:
    """Remove every entry; (files removed, bytes freed)."""
    return prune(folder, float("-inf"))


def _drop_empty(folder: Path) -> None:
    if folder.is_dir():
        for sub in folder.iterdir():
            if sub.is_dir() and len(sub.name) == 2:
                with contextlib.suppress(OSError):
                    sub.rmdir()
