"""Python code tests, answer by answer, in every sandbox: the py-ledger example's tests against right,
wrong and broken answers (the fail/error table of the code-tests guide), and a probe file of pytest's
features and of what crosses between the tests and the answer (data, proxies, exceptions, callbacks).
One session per sandbox, shared by the module (its pip list installs once)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.integration.codetests.pysupport import SANDBOXES, Sessions, messages

PAY = [
    "test_moves_the_money_and_returns_the_payers_balance",
    "test_refuses_to_overdraw",
    "test_moves_nothing_when_it_refuses",
    "test_refuses_an_amount_that_is_not_positive[0]",
    "test_refuses_an_amount_that_is_not_positive[-250]",
]
RIGHT = """
from tally import Ledger

def result(ledger: Ledger, payer: str, payee: str, cents: int) -> int:
    ledger.transfer(payer, payee, cents)
    return ledger.balance(payer)
"""
WRONG = """
def result(ledger, payer, payee, cents):
    if ledger.balance(payer) < cents:
        return ledger.balance(payer)
    ledger.post(payer, -cents)
    ledger.post(payee, cents)
    return ledger.balance(payer)
"""
# The right answer, with something else when the amount is 0 (the fourth test).
ON_ZERO = RIGHT.replace("    ledger.transfer(", "    if cents == 0:\n        ZERO\n    ledger.transfer(")
PROBE = """
import asyncio
import pytest
import answer
from answer import result


@pytest.fixture
def recorder():
    calls = []

    def record(x):
        calls.append(x)
        return len(calls)

    record.calls = calls
    return record


def test_data_crosses_as_data():
    out = result("data")
    assert out == {"list": [1, 2.5, "x", None, True], "tuple": (1, 2), "set": {3}, "bytes": b"\\x00\\xff", "big": 2**80}
    assert type(out["tuple"]) is tuple


def test_an_object_of_the_answer_is_a_proxy_never_equal_by_its_own_eq():
    m = result("money")
    assert m.cents == 250 and str(m) == "2.50 EUR"
    assert (m == 250) is False


def test_the_tests_callbacks_are_called(recorder):
    assert result("callback", recorder) == 2
    assert recorder.calls == ["a", "b"]


@pytest.mark.parametrize("x, want", [(1, 2), (2, 4)])
def test_parametrised(x, want):
    assert result("double", x) == want


def test_approx():
    assert result("third") == pytest.approx(0.333, abs=1e-3)


def test_an_exception_of_the_answers_own_class():
    with pytest.raises(answer.Refused, match="no way") as info:
        result("refuse")
    assert info.value.code == 7


def test_an_async_answer():
    assert asyncio.run(result("async")) == "done"


def test_a_generator():
    assert list(result("gen")) == [0, 1, 2]


def test_fails_with_pytests_message():
    assert result("double", 3) == 7
"""
PROBE_ANSWER = """
import asyncio


class Refused(Exception):
    def __init__(self, text):
        super().__init__(text)
        self.code = 7


class Money:
    def __init__(self, cents):
        self.cents = cents

    def __str__(self):
        return f"{self.cents // 100}.{self.cents % 100:02d} EUR"

    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def result(kind, *args):
    if kind == "data":
        return {"list": [1, 2.5, "x", None, True], "tuple": (1, 2), "set": {3}, "bytes": bytes([0, 255]), "big": 2**80}
    if kind == "money":
        return Money(250)
    if kind == "callback":
        args[0]("a")
        return args[0]("b")
    if kind == "double":
        return args[0] * 2
    if kind == "third":
        return 1 / 3
    if kind == "refuse":
        raise Refused("no way")
    if kind == "async":
        async def go():
            await asyncio.sleep(0)
            return "done"
        return go()
    if kind == "gen":
        return (i for i in range(3))
"""


@pytest.fixture(scope="module")
def sessions() -> Iterator[Sessions]:
    s = Sessions(PROBE, testTimeoutSeconds=2, answerTimeoutSeconds=40)
    try:
        yield s
    finally:
        s.close()


@pytest.mark.parametrize("kind", SANDBOXES)
def test_the_right_answer_passes_every_test(sessions: Sessions, kind: str) -> None:
    assert messages(sessions.run(kind, "pay", RIGHT)) == dict.fromkeys(PAY)


@pytest.mark.parametrize("kind", SANDBOXES)
def test_a_wrong_answer_fails_with_pytests_messages(sessions: Sessions, kind: str) -> None:
    got = messages(sessions.run(kind, "pay", WRONG))
    assert got == {
        PAY[0]: None,
        PAY[1]: "Failed: DID NOT RAISE <class 'tally.InsufficientFunds'>",
        PAY[2]: "Failed: DID NOT RAISE <class 'Exception'>",
        PAY[3]: "Failed: DID NOT RAISE <class 'ValueError'>",
        PAY[4]: "Failed: DID NOT RAISE <class 'ValueError'>",
    }


@pytest.mark.parametrize("kind", SANDBOXES)
@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("raise RuntimeError('not ready')", "the answer's code raises when imported: RuntimeError: not ready"),
        ("def pay(ledger, payer, payee, cents):\n    return 0", "the answer's code does not define `result`"),
        ("def result(:\n    pass", "the answer's code does not parse: "),
    ],
    ids=["raises-on-import", "missing-name", "syntax-error"],
)
def test_an_answer_that_does_not_load_fails_every_test_with_the_reason(
    sessions: Sessions, kind: str, code: str, reason: str
) -> None:
    run = sessions.run(kind, "pay", code)
    assert run.error is None
    assert [r.passed for r in run.results] == [False] * len(PAY)
    assert all((r.message or "").startswith(reason) for r in run.results), run.results


def test_a_reply_without_a_python_block_fails_every_test(sessions: Sessions) -> None:
    run = sessions.drive(sessions.get("process").run("ledger", "pay", "```ts\nexport const result = 1;\n```"))
    assert {r.message for r in run.results} == {"the reply has no code block tagged python, py or python3"}


@pytest.mark.parametrize("kind", SANDBOXES)
@pytest.mark.parametrize(
    "slow",
    [
        "import time; time.sleep(60)",
        "while True:\n            try:\n                while True: pass\n            except BaseException: pass",
    ],
    ids=["sleeps", "loops-and-catches-everything"],
)
def test_a_test_over_its_time_limit_fails_alone(sessions: Sessions, kind: str, slow: str) -> None:
    got = messages(sessions.run(kind, "pay", ON_ZERO.replace("ZERO", slow)))
    assert got == {**dict.fromkeys(PAY), PAY[3]: "timed out after 2 s"}


@pytest.mark.parametrize("kind", SANDBOXES)
def test_an_endless_loop_that_ignores_its_time_keeps_the_finished_results(sessions: Sessions, kind: str) -> None:
    loop = "import signal; signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n        while True: pass"
    got = messages(sessions.run(kind, "pay", ON_ZERO.replace("ZERO", loop)))
    assert got == {
        **dict.fromkeys(PAY[:3]),
        PAY[3]: "timed out after 2 s",
        PAY[4]: "not run: an earlier test timed out and the test process was stopped",
    }


@pytest.mark.parametrize("kind", SANDBOXES)
def test_a_memory_bomb_fails_its_test_and_the_others_keep_their_results(sessions: Sessions, kind: str) -> None:
    bomb = "hog = []\n        while True: hog.append(bytearray(1 << 24))"
    got = messages(sessions.run(kind, "pay", ON_ZERO.replace("ZERO", bomb)))
    assert {k: v for k, v in got.items() if k != PAY[3]} == dict.fromkeys(PAY[:3] + PAY[4:])
    assert (got[PAY[3]] or "").startswith("MemoryError"), got[PAY[3]]


@pytest.mark.parametrize("kind", SANDBOXES)
def test_a_crash_fails_its_test_and_the_ones_after_it(sessions: Sessions, kind: str) -> None:
    got = messages(sessions.run(kind, "pay", ON_ZERO.replace("ZERO", "import os; os._exit(7)")))
    assert {k: got[k] for k in PAY[:3]} == dict.fromkeys(PAY[:3])
    assert (got[PAY[3]] or "").startswith("the test process ended during this test ("), got[PAY[3]]
    assert (got[PAY[4]] or "").startswith("not run: the test process ended during an earlier test ("), got[PAY[4]]


@pytest.mark.parametrize("kind", SANDBOXES)
def test_pytests_features_and_what_crosses(sessions: Sessions, kind: str) -> None:
    run = sessions.run(kind, "probe", PROBE_ANSWER)
    failed = {r.name: (r.message, r.message_from) for r in run.results if not r.passed}
    assert failed == {"test_fails_with_pytests_message": ("assert 6 == 7\n +  where 6 = result('double', 3)", "tests")}
    assert [r.name for r in run.results][3:5] == ["test_parametrised[1-2]", "test_parametrised[2-4]"]
