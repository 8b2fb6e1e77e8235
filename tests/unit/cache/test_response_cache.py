"""The response cache: keys, entries, damage, an unwritable folder, two writers at once, prune and clear."""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from pathlib import Path
from typing import NamedTuple

import pytest

from skill_be.adapters.base import Answer, Usage
from skill_be.engine import cache as c
from skill_be.project import identity
from skill_be.results import response_cache as store


class Entry(NamedTuple):
    adapter: str
    id: str
    settings: dict[str, object]


def entry(**settings: object) -> Entry:
    base: dict[str, object] = {"adapter": "claude-cli", "id": "sonnet"}
    base.update(settings)
    return Entry(str(base["adapter"]), str(base["id"]), base)


def test_the_generation_key_holds_prompt_arm_rep_and_model() -> None:
    k = c.generation_key("model-a", "Split a bill.", "baseline", 1)
    assert len(k) == 64 and k == c.generation_key("model-a", "Split a bill.", "baseline", 1)
    others = {
        c.generation_key("model-b", "Split a bill.", "baseline", 1),
        c.generation_key("model-a", "Split a bill!", "baseline", 1),
        c.generation_key("model-a", "Split a bill.", "with-skill", 1),
        c.generation_key("model-a", "Split a bill.", "baseline", 2),
    }
    assert k not in others and len(others) == 4


def test_the_grading_key_holds_grader_prompt_output_k_and_attempt() -> None:
    out = ("money", "split", "m1", "baseline", 1)
    k = c.grading_key("judge", "prompt with the answer", out, 1, 1)
    others = {
        c.grading_key("judge-2", "prompt with the answer", out, 1, 1),
        c.grading_key("judge", "prompt with another answer", out, 1, 1),
        c.grading_key("judge", "prompt with the answer", ("dates", "split", "m1", "baseline", 1), 1, 1),
        c.grading_key("judge", "prompt with the answer", ("money", "share", "m1", "baseline", 1), 1, 1),
        c.grading_key("judge", "prompt with the answer", ("money", "split", "m2", "baseline", 1), 1, 1),
        c.grading_key("judge", "prompt with the answer", ("money", "split", "m1", "with-skill", 1), 1, 1),
        c.grading_key("judge", "prompt with the answer", ("money", "split", "m1", "baseline", 2), 1, 1),
        c.grading_key("judge", "prompt with the answer", out, 2, 1),
        c.grading_key("judge", "prompt with the answer", out, 1, 2),
    }
    assert k not in others and len(others) == 9
    # a generation and a grading with the same words never share an entry
    assert c.generation_key("judge", "prompt with the answer", "baseline", 1) != k


@pytest.mark.parametrize(
    "change",
    [
        {"id": "opus"},
        {"adapter": "pi-cli"},
        {"provider": "anthropic"},
        {"thinking": "high"},
        {"baseUrl": "http://127.0.0.1:9/v1"},
        {"api": "openai-completions"},
        {"run": "python other.py"},
    ],
)
def test_every_setting_of_the_entry_is_in_the_adapter_identity(tmp_path: Path, change: dict[str, object]) -> None:
    assert identity.adapter_identity(entry(), tmp_path) == identity.adapter_identity(entry(), tmp_path)
    assert identity.adapter_identity(entry(), tmp_path) != identity.adapter_identity(entry(**change), tmp_path)


def test_a_module_file_and_a_script_named_by_run_are_in_the_identity_by_content(tmp_path: Path) -> None:
    (tmp_path / "adapter.py").write_text("async def complete(p, **k): return 'a'\n")
    module = Entry("./adapter.py", "m", {"adapter": "./adapter.py", "id": "m"})
    before = identity.adapter_identity(module, tmp_path)
    (tmp_path / "adapter.py").write_text("async def complete(p, **k): return 'b'\n")
    assert identity.adapter_identity(module, tmp_path) != before

    (tmp_path / "model.py").write_text("print('a')\n")
    command = Entry("command", "m", {"adapter": "command", "id": "m", "run": "python3 model.py --flag"})
    before = identity.adapter_identity(command, tmp_path)
    assert identity.adapter_identity(command, tmp_path) == before
    (tmp_path / "model.py").write_text("print('b')\n")
    assert identity.adapter_identity(command, tmp_path) != before


def warnings() -> tuple[list[str], object]:
    got: list[str] = []
    return got, got.append


def test_put_then_get_returns_the_answer_and_counts_hits_per_skill(tmp_path: Path) -> None:
    seen, warn = warnings()
    cache = store.ResponseCache.open(tmp_path / "cache", warn)  # type: ignore[arg-type]
    key = c.generation_key("m", "p", "baseline", 1)
    assert cache.get(key, "money") is None
    cache.put(key, Answer("the answer", Usage(12, 34), {"isolation": "none"}))
    got = cache.get(key, "money")
    assert got == Answer("the answer", Usage(12, 34), {"isolation": "none"})
    assert cache.counts("money") == {"made": 0, "cached": 1} and cache.counts() == {"made": 0, "cached": 1}
    assert cache.path(key).parent.name == key[:2]
    assert [p.name for p in cache.path(key).parent.iterdir()] == [f"{key}.json"]  # no temp file left
    assert seen == []


def test_a_truncated_or_foreign_entry_is_a_miss_with_one_warning_and_is_replaced(tmp_path: Path) -> None:
    seen, warn = warnings()
    cache = store.ResponseCache.open(tmp_path / "cache", warn)  # type: ignore[arg-type]
    key = c.generation_key("m", "p", "baseline", 1)
    cache.put(key, Answer("the right answer"))
    raw = cache.path(key).read_bytes()
    cache.path(key).write_bytes(raw[: len(raw) // 2])
    assert cache.get(key, "money") is None
    assert cache.get(key, "money") is None
    assert len(seen) == 1 and "a damaged cache entry" in seen[0] and key in seen[0]
    cache.put(key, Answer("the right answer"))
    assert cache.get(key, "money") == Answer("the right answer")
    # an entry copied under another key's name is never served for that key
    other = c.generation_key("m", "p", "baseline", 2)
    cache.path(other).parent.mkdir(exist_ok=True)
    cache.path(other).write_bytes(cache.path(key).read_bytes())
    assert cache.get(other, "money") is None
    assert len(seen) == 2
    # a usage of the wrong type is damage too, not a crash
    third = c.generation_key("m", "p", "baseline", 3)
    cache.put(third, Answer("x", Usage(1, 2)))
    doc = json.loads(cache.path(third).read_text())
    doc["usage"] = {"input": "12", "output": 3}
    cache.path(third).write_text(json.dumps(doc))
    assert cache.get(third, "x") is None and len(seen) == 3


def test_an_unwritable_cache_folder_turns_the_cache_off_with_one_warning(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be\n")
    seen, warn = warnings()
    cache = store.ResponseCache.open(blocker / "cache", warn)  # type: ignore[arg-type]
    assert cache.enabled is False
    assert len(seen) == 1 and "the response cache cannot be written" in seen[0] and "--no-cache" in seen[0]
    key = c.generation_key("m", "p", "baseline", 1)
    cache.put(key, Answer("x"))
    assert cache.get(key, "s") is None and len(seen) == 1
    # the control: the same calls on a writable folder store and find the entry
    ok = store.ResponseCache.open(tmp_path / "cache", warn)  # type: ignore[arg-type]
    ok.put(key, Answer("x"))
    assert ok.get(key, "s") == Answer("x") and len(seen) == 1


def test_a_write_that_fails_midway_turns_the_cache_off_and_leaves_no_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen, warn = warnings()
    cache = store.ResponseCache.open(tmp_path / "cache", warn)  # type: ignore[arg-type]
    key = c.generation_key("m", "p", "baseline", 1)

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store.os, "fsync", full_disk)
    cache.put(key, Answer("x"))
    assert not cache.enabled and len(seen) == 1 and "No space left on device" in seen[0]
    assert list((tmp_path / "cache").rglob("*")) in ([], [cache.path(key).parent])


def test_an_interrupted_write_leaves_no_half_written_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = store.ResponseCache.open(tmp_path / "cache", lambda _: None)
    key = c.generation_key("m", "p", "baseline", 1)

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(store.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cache.put(key, Answer("x" * 100_000))
    assert not cache.path(key).exists()
    assert [p for p in (tmp_path / "cache").rglob("*") if p.is_file()] == []


def _writer(folder: str, key: str, n: int, tag: str) -> None:
    cache = store.ResponseCache(Path(folder), lambda line: None)
    for i in range(n):
        cache.put(key, Answer(f"{tag}-{i}-" + "y" * 20_000))


def test_two_runs_writing_the_same_entry_at_once_never_show_a_reader_half_an_entry(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    seen, warn = warnings()
    reader = store.ResponseCache.open(folder, warn)  # type: ignore[arg-type]
    key = c.generation_key("m", "p", "baseline", 1)
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(folder), key, 150, tag)) for tag in ("a", "b")]
    for p in procs:
        p.start()
    reads = 0
    while any(p.is_alive() for p in procs):
        got = reader.get(key, "s")
        if got is not None:
            reads += 1
            assert got.text.startswith(("a-", "b-")) and got.text.endswith("y" * 20_000)
    for p in procs:
        p.join()
        assert p.exitcode == 0
    assert seen == [] and reads > 0
    assert [p.name for p in reader.path(key).parent.iterdir()] == [f"{key}.json"]


def test_prune_removes_what_no_run_used_for_that_long_and_clear_removes_everything(tmp_path: Path) -> None:
    cache = store.ResponseCache.open(tmp_path / "cache", lambda _: None)
    keys = [c.generation_key("m", "p", "baseline", rep) for rep in range(1, 5)]
    for k in keys:
        cache.put(k, Answer("x"))
    now = time.time()
    old = now - 31 * 86400
    for k in keys[:2]:
        os.utime(cache.path(k), (old, old))
    leftover = cache.path(keys[0]).parent / f".{keys[0]}.123.abcd.tmp"  # what a killed run may leave
    leftover.write_text("{")
    os.utime(leftover, (old, old))
    # a hit refreshes the entry's time: used recently, it is kept
    assert cache.get(keys[1], "s") is not None
    removed, freed = store.prune(tmp_path / "cache", c_age("30d"), now=now + 1)
    assert removed == 2 and freed > 0
    assert [k for k in keys if cache.path(k).exists()] == keys[1:]
    assert not leftover.exists()
    removed, _ = store.clear(tmp_path / "cache")
    assert removed == 3 and not any(cache.path(k).exists() for k in keys)
    assert store.clear(tmp_path / "missing") == (0, 0)


def c_age(text: str) -> float:
    from skill_be.commands.cache import parse_age

    return parse_age(text)


def test_ages() -> None:
    from skill_be.commands.cache import parse_age
    from skill_be.errors import UsageError

    assert [parse_age(t) for t in ("45s", "90m", "12h", "30d", "2w")] == [45, 5400, 43200, 2592000, 1209600]
    for bad in ("30", "d", "1.5d", "-3d", "30 days"):
        with pytest.raises(UsageError, match="is not an age"):
            parse_age(bad)
