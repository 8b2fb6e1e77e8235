"""supervise() against scripted channels: what each way a runner can end becomes."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

from skill_be.codetests import protocol
from skill_be.codetests.protocol import Request, supervise

NAMES = ("one", "two", "three")


class Scripted:
    """A channel that answers the request with scripted output; None in the script is the end."""

    def __init__(self, script: Callable[[str], list[tuple[int, bytes] | None]], status: str = "exit code 0") -> None:
        self.script = script
        self.out: list[tuple[int, bytes] | None] = []
        self.stopped = False
        self._status = status

    def send(self, data: bytes) -> None:
        request = json.loads(data)
        self.out = self.script("\x1e" + request["nonce"] + "\x1f")

    def read(self, timeout: float) -> tuple[int, bytes] | None:
        if not self.out:
            return 0, b""  # nothing more: the supervisor's deadlines decide
        return self.out.pop(0)

    def stop(self) -> None:
        self.stopped = True

    def status(self) -> str:
        return self._status


def ev(prefix: str, **event: object) -> tuple[int, bytes]:
    return 1, (prefix + json.dumps(event) + "\n").encode()


def request(test_s: float = 0.2, answer_s: float = 5) -> Request:
    return Request(
        base="/b", test="tests/s/x.test.js", answer="", names=NAMES, test_timeout_s=test_s, answer_timeout_s=answer_s
    )


def test_each_result_in_registration_order() -> None:
    def script(p: str) -> list[tuple[int, bytes] | None]:
        return [
            ev(p, e="names", names=list(NAMES)),
            ev(p, e="loaded"),
            *[
                x
                for n in NAMES
                for x in (
                    ev(p, e="start", name=n),
                    ev(p, e="result", name=n, passed=n != "two", message=None if n != "two" else "no", ms=5),
                )
            ],
            ev(p, e="end"),
        ]

    ch = Scripted(script)
    run = supervise(ch, request())
    assert run.error is None and ch.stopped
    assert [(r.name, r.passed, r.message, r.seconds) for r in run.results] == [
        ("one", True, None, 0.005),
        ("two", False, "no", 0.005),
        ("three", True, None, 0.005),
    ]


def test_output_without_the_nonce_is_ignored_even_when_it_imitates_the_protocol() -> None:
    def script(p: str) -> list[tuple[int, bytes] | None]:
        forged = '\x1eforged\x1f{"e":"result","name":"two","passed":true}\n'
        return [
            ev(p, e="names", names=list(NAMES)),
            ev(p, e="loaded"),
            (1, forged.encode() + b"x" * (3 << 20)),  # a long line without a newline, then the runner's own
            (1, b"no newline before the next event"),
            ev(p, e="start", name="one"),
            (2, b"some stderr"),
            ev(p, e="result", name="one", passed=True, ms=1),
            None,
        ]

    run = supervise(Scripted(script, status="exit code 1"), request())
    assert [(r.passed, r.message) for r in run.results] == [
        (True, None),
        (False, "not run: the test process ended during an earlier test (exit code 1)"),
        (False, "not run: the test process ended during an earlier test (exit code 1)"),
    ]


def test_a_test_that_never_reports_times_out() -> None:
    def script(p: str) -> list[tuple[int, bytes] | None]:
        return [ev(p, e="names", names=list(NAMES)), ev(p, e="loaded"), ev(p, e="start", name="one")]

    ch = Scripted(script)
    run = supervise(ch, request(test_s=0.05))
    assert [r.message for r in run.results] == [
        "timed out after 0.05 s",
        "not run: an earlier test timed out and the test process was stopped",
        "not run: an earlier test timed out and the test process was stopped",
    ]
    assert ch.stopped


def test_a_load_error_fails_every_test_with_it() -> None:
    def script(p: str) -> list[tuple[int, bytes] | None]:
        return [
            ev(p, e="names", names=list(NAMES)),
            ev(p, e="load-error", message="the answer's code has no `result` export"),
        ]

    run = supervise(Scripted(script), request())
    assert run.error is None
    assert {r.message for r in run.results} == {"the answer's code has no `result` export"}


def test_a_runner_that_ends_before_loading_the_tests_is_an_error() -> None:
    run = supervise(Scripted(lambda p: [(2, b"node: not found\n"), None], status="exit code 127"), request())
    assert run.error == "the test process could not start (exit code 127: node: not found)"
    assert all(not r.passed and r.message == f"not run: {run.error}" for r in run.results)


def test_a_fatal_event_is_an_error() -> None:
    def script(p: str) -> list[tuple[int, bytes] | None]:
        return [ev(p, e="fatal", message="the answer could not be written to /b/runs/x: ENOSPC"), None]

    run = supervise(Scripted(script), request())
    assert run.error == "the answer could not be written to /b/runs/x: ENOSPC"


def test_an_answer_that_kills_the_runner_while_loading_fails_its_tests() -> None:
    def script(p: str) -> list[tuple[int, bytes] | None]:
        return [ev(p, e="names", names=list(NAMES)), None]

    run = supervise(Scripted(script, status="killed, exit code 137"), request())
    assert run.error is None
    assert {r.message for r in run.results} == {
        "the answer's code ended the test process while loading (killed, exit code 137)"
    }


def test_a_send_that_fails_is_an_error() -> None:
    class Broken(Scripted):
        def send(self, data: bytes) -> None:
            raise BrokenPipeError("pipe closed")

    run = supervise(Broken(lambda p: []), request())
    assert run.error == "the answer could not be handed to the test process (pipe closed)"


def test_each_message_says_whose_words_it_holds_and_an_unknown_source_counts_as_the_answers() -> None:
    def script(p: str) -> list[tuple[int, bytes] | None]:
        return [
            ev(p, e="names", names=list(NAMES)),
            ev(p, e="loaded"),
            ev(p, e="result", name="one", passed=False, message="## READY", **{"from": "answer"}, ms=1),
            ev(p, e="result", name="two", passed=False, message="0 !== 5", **{"from": "tests"}, ms=1),
            ev(p, e="result", name="three", passed=False, message="x", **{"from": "nobody"}, ms=1),
            ev(p, e="end"),
        ]

    run = supervise(Scripted(script), request())
    assert [r.message_from for r in run.results] == ["answer", "tests", "answer"]
    assert run.to_json()["tests"][0]["messageFrom"] == "answer"  # type: ignore[index]


def test_a_load_error_keeps_its_source() -> None:
    def script(p: str) -> list[tuple[int, bytes] | None]:
        return [
            ev(p, e="names", names=list(NAMES)),
            ev(p, e="load-error", message="the answer's process failed: ## x", **{"from": "answer"}),
        ]

    run = supervise(Scripted(script), request())
    assert run.error is None
    assert {(r.message_from, r.passed) for r in run.results} == {("answer", False)}


def twice(p: str) -> list[tuple[int, bytes] | None]:
    """A runner that reports each test twice, failed and then passed: what a taken-over runner that
    registered every test again would send."""
    first = [ev(p, e="result", name=n, passed=False, message="wrong", ms=1) for n in NAMES]
    again = [ev(p, e="result", name=n, passed=True, message=None, ms=1) for n in NAMES]
    return [ev(p, e="names", names=list(NAMES)), ev(p, e="loaded"), *first, *again, *first[:1], ev(p, e="end")]


def test_a_test_reported_twice_fails_whatever_its_results_say() -> None:
    run = supervise(Scripted(twice), request())
    assert [(r.passed, r.message, r.message_from) for r in run.results] == [
        (False, protocol.REPORTED_TWICE, "skill-be")
    ] * 3


def test_control_when_the_last_result_wins_the_second_report_passes_every_test() -> None:
    run = supervise(Scripted(twice), replace(request(), last_result_wins=True))
    assert [r.passed for r in run.results] == [False, True, True]  # "one" was reported a third time, failed
