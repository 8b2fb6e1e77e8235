"""Attacks of a Python answer on its own verdict, each with its control (the same attack with the
protection off, where it works).

The answer runs in a process of its own (host.py); the controls run it in the runner's own process
(`realm`: the request's inRealm, as the TypeScript controls do) or switch off the runner's guard on
what it serves of its own objects (`guard`). Every attack makes the answer wrong, then tries to pass
all the same: a forged verdict is a test that passes. The probe test file hands the answer what tests
usually hand it: a callback of the test module, a fake object, an exception from a fake."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.integration.codetests.pysupport import Sessions

PROBE = """
import sys
import pytest
from answer import result


class Fake:
    def __init__(self):
        self.calls = []

    def fetch(self, key):
        self.calls.append(key)
        if key == "boom":
            raise LookupError("no such key")
        return key.upper()


def callback(x):
    return x + 1


def test_plain():
    assert result("plain", callback, Fake()) == 42


def test_raises():
    with pytest.raises(ValueError):
        result("raises", callback, Fake())


def test_after():
    assert result("after", callback, Fake()) == 42
"""
# Each attack is the body of `forge(cb, fake)`, run at each call; `result` then answers wrong (41,
# and no ValueError), so only a forged verdict can pass a test.
WRONG = """
import gc, sys

def forge(cb, fake):
BODY

def result(kind, cb, fake):
    try:
        forge(cb, fake)
    except Exception:
        pass
    return 41
"""
ATTACKS = {
    # The verdicts' plugin, found among the objects of the process and told every test passed.
    "gc-plugin": """
    for o in gc.get_objects():
        if type(o).__name__ == "Plugin" and hasattr(o, "verdict"):
            type(o).verdict = lambda self: (True, None)
""",
    # pytest itself, patched through sys.modules: raises() never fails, and every report says passed.
    "patch-pytest": """
    import contextlib
    sys.modules["pytest"].raises = lambda *a, **k: contextlib.nullcontext()
    report = sys.modules["_pytest.reports"].TestReport
    made = report.from_item_and_call.__func__

    def passed(cls, item, call):
        r = made(cls, item, call)
        r.outcome, r.longrepr = "passed", None
        return r

    report.from_item_and_call = classmethod(passed)
""",
    # The frames above the answer's code: the runner's plugin is a local of one of them.
    "frames": """
    f = sys._getframe()
    while f is not None:
        for v in list(f.f_locals.values()):
            if type(v).__name__ == "Plugin":
                type(v).verdict = lambda self: (True, None)
        f = f.f_back
""",
    # builtins and pytest's outcomes: every failing assert and pytest.raises becomes an expected failure.
    "builtins": """
    import builtins
    outcomes = sys.modules["_pytest.outcomes"]
    builtins.AssertionError = type("AssertionError", (outcomes.XFailed,), {})
    outcomes.Failed = type("Failed", (outcomes.XFailed,), {})
""",
}
# Through what the tests hand the answer: the runner's own objects, reached by the answer's own
# requests on the channel (as a hand-made attack would, past the proxy's own checks).
REACH = """
    ep = next(o for o in gc.get_objects() if type(o).__name__ == "Endpoint")
    glob = ep.request("get", cb, n="__globals__")
    modules = ep.request("get", glob["sys"], n="modules")
    plugin = ep.request("get", modules["skbpy.plugin"], n="Plugin")
    ep.request("set", plugin, n="verdict", v=lambda *a: (True, None))
"""
SUBCLASSES = """
    ep = next(o for o in gc.get_objects() if type(o).__name__ == "Endpoint")
    cls = ep.request("get", fake, n="__class__")
    base = ep.request("get", cls, n="__base__")
    for sub in ep.request("call", ep.request("get", base, n="__subclasses__")):
        if "Plugin" in repr(sub):
            ep.request("set", sub, n="verdict", v=lambda *a: (True, None))
"""
TRACEBACK = """
    try:
        fake.fetch("boom")
    except LookupError as e:
        tb = e.__traceback__
        while tb is not None:
            f = tb.tb_frame
            while f is not None:
                for v in list(f.f_locals.values()):
                    if type(v).__name__ == "Plugin":
                        type(v).verdict = lambda self: (True, None)
                f = f.f_back
            tb = tb.tb_next
"""
ALWAYS_EQUAL = """
class Yes(int):
    pass

class Always:
    def __eq__(self, other):
        return True
    __hash__ = object.__hash__
    def __bool__(self):
        return True

def result(kind, cb, fake):
    if kind == "raises":
        return Always()
    return Always()
"""


@pytest.fixture(scope="module")
def sessions() -> Iterator[Sessions]:
    s = Sessions(PROBE, testTimeoutSeconds=5, answerTimeoutSeconds=40)
    try:
        yield s
    finally:
        s.close()


def passed(sessions: Sessions, kind: str, code: str, *weaken: str) -> list[bool]:
    run = sessions.run(kind, "probe", code, *weaken)
    assert run.error is None, run.error
    return [r.passed for r in run.results]


def test_the_wrong_answer_fails_every_test(sessions: Sessions) -> None:
    assert passed(sessions, "process", WRONG.replace("BODY", "    pass")) == [False, False, False]


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_the_answer_cannot_patch_the_runner_to_forge_its_verdict(sessions: Sessions, attack: str) -> None:
    assert passed(sessions, "process", WRONG.replace("BODY", ATTACKS[attack])) == [False, False, False]


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_control_in_the_runners_own_process_each_patch_forges_the_verdict(sessions: Sessions, attack: str) -> None:
    assert passed(sessions, "process", WRONG.replace("BODY", ATTACKS[attack]), "realm") == [True, True, True]


@pytest.mark.parametrize("kind", ["docker", "bwrap"])
def test_the_plugin_stays_out_of_reach_in_the_other_sandboxes(sessions: Sessions, kind: str) -> None:
    assert passed(sessions, kind, WRONG.replace("BODY", ATTACKS["gc-plugin"])) == [False, False, False]


@pytest.mark.parametrize("reach", [REACH, SUBCLASSES], ids=["callback-globals", "class-subclasses"])
def test_what_the_tests_hand_the_answer_leads_to_nothing_of_the_runner(sessions: Sessions, reach: str) -> None:
    assert passed(sessions, "process", WRONG.replace("BODY", reach)) == [False, False, False]


@pytest.mark.parametrize("reach", [REACH, SUBCLASSES], ids=["callback-globals", "class-subclasses"])
def test_control_without_the_guard_the_answer_reaches_the_plugin_and_forges(sessions: Sessions, reach: str) -> None:
    assert passed(sessions, "process", WRONG.replace("BODY", reach), "guard") == [True, True, True]


def test_an_exception_from_a_fake_carries_no_frame_of_the_runner(sessions: Sessions) -> None:
    assert passed(sessions, "process", WRONG.replace("BODY", TRACEBACK)) == [False, False, False]


def test_control_in_the_runners_own_process_its_traceback_leads_to_the_plugin(sessions: Sessions) -> None:
    assert passed(sessions, "process", WRONG.replace("BODY", TRACEBACK), "realm") == [True, True, True]


def test_an_object_whose_eq_says_yes_is_compared_as_what_it_is(sessions: Sessions) -> None:
    assert passed(sessions, "process", ALWAYS_EQUAL) == [False, False, False]


def test_control_in_the_runners_own_process_its_eq_passes_the_comparison(sessions: Sessions) -> None:
    assert passed(sessions, "process", ALWAYS_EQUAL, "realm") == [True, False, True]


MISBEHAVING = """
def result(kind, cb, fake):
    if kind == "plain":
        return "x" * (20 << 20)  # over the channel's frame limit
    if kind == "raises":
        loop = []
        loop.append(loop)
        deep = []
        for _ in range(100_000):
            deep = [deep]
        return [loop, deep]
    return 42
"""
FORGED_FRAMES = """
import os, sys

def result(kind, cb, fake):
    if kind == "plain":
        os.write(4, b"\\xff\\xff\\xff\\xff")  # a frame of 4 GiB, announced on the channel
    if kind == "raises":
        sys.exit(0)
    return 42
"""


def test_huge_cyclic_and_deep_values_fail_their_test_and_the_runner_goes_on(sessions: Sessions) -> None:
    run = sessions.run("process", "probe", MISBEHAVING)
    assert [r.passed for r in run.results] == [False, False, True]
    assert "over 8 MiB" in (run.results[0].message or ""), run.results[0].message


def test_an_exit_of_the_answer_fails_its_test_and_a_forged_frame_ends_only_its_own_process(sessions: Sessions) -> None:
    run = sessions.run("process", "probe", FORGED_FRAMES.replace('if kind == "plain"', 'if kind == "never"'))
    assert [(r.passed, r.message) for r in run.results] == [
        (True, None),
        (False, "SystemExit: 0\n(raised in the answer's code, line 8, in result)"),
        (True, None),
    ]
    forged = sessions.run("process", "probe", FORGED_FRAMES)
    assert [r.passed for r in forged.results] == [False, False, False]
    assert (forged.results[0].message or "").startswith("the test process ended during this test ("), forged.results
