"""The pytest plugin that turns one test file's run into protocol lines: a verdict per test.

Each collected test (a parametrised case is one) is one line, in collection order, named by its node
id within the file (`test_refund[partial]`, `TestSignup::test_taken`). It passes when pytest would
not report it as failed: a failure or an error in setup, call or teardown fails it with the failure's
short message (pytest's own assertion message for an `assert`); a skipped test fails ("skipped: ...":
it proved nothing); an expected failure (xfail) passes, a strict unexpected pass fails. A test that
runs past its limit fails with "timed out after N s"."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from typing import Any

import pytest

from .endpoint import Endpoint, Timeout
from .parts import Emitter, cap, describe

RUNNER_GRACE_S = 0.5  # after the answer's process's own timer: the runner's, should that one not hold
NOT_RUN_AFTER_TIMEOUT = "not run: an earlier test timed out and the test process was stopped"
# pytest's plugins that write files, read the network or change nothing a verdict needs (the terminal
# stays: pytest's assertion messages need it; its output goes nowhere).
UNUSED_PLUGINS = ("cacheprovider", "stepwise", "pastebin", "junitxml", "doctest", "faulthandler")


def pytest_args(test: str, tests_root: str, ini: str) -> list[str]:
    args = [test, "-c", ini, "--rootdir", tests_root, "--confcutdir", tests_root, "-o", "python_files=test_*.py"]
    for name in UNUSED_PLUGINS:
        args += ["-p", f"no:{name}"]
    return args


def name_of(nodeid: str) -> str:
    """A test's line: its node id without the file (`test_x[1]`, `TestA::test_b`)."""
    return nodeid.split("::", 1)[1] if "::" in nodeid else nodeid


def from_peer(exc: BaseException | None) -> bool:
    """The exception (or what caused it) came from the answer's process."""
    seen = 0
    while exc is not None and seen < 20:
        if exc.__dict__.get("_skb_from_peer") if hasattr(exc, "__dict__") else False:
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def short_message(report: Any) -> str:
    longrepr = report.longrepr
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None and isinstance(getattr(crash, "message", None), str):
        text = str(crash.message)
        # pytest keeps the class name when the message holds a quote (its repr then starts otherwise):
        # every rewritten assertion's message starts the same way here.
        return text.removeprefix("AssertionError: ") if text.startswith("AssertionError: assert ") else text
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


class Plugin:
    def __init__(self, emit: Emitter, ep: Endpoint | None, timeout_s: float) -> None:
        self.emit = emit
        self.ep = ep
        self.timeout_s = timeout_s
        self.reports: list[Any] = []
        self.source: str | None = None
        self.timed_out = False
        self.in_item = False
        self.started = 0.0
        self.collect_error: tuple[str, str] | None = None
        signal.signal(signal.SIGALRM, self._alarm)

    def _alarm(self, signum: int, frame: object) -> None:
        if self.in_item:
            self.timed_out = True
            raise Timeout()

    # --- collection -------------------------------------------------------------------------------

    def pytest_exception_interact(self, node: Any, call: Any, report: Any) -> None:
        if isinstance(node, pytest.Collector) and self.collect_error is None and call.excinfo is not None:
            exc = call.excinfo.value
            answer = from_peer(exc) or (isinstance(exc, ImportError) and exc.name == "answer")
            cause = exc.__cause__ if isinstance(exc.__cause__, BaseException) else exc
            if answer:
                self.collect_error = (cap(f"the test file's import of the answer failed: {describe(cause)}"), "answer")
            else:
                self.collect_error = (cap(f"the test file raises when imported: {describe(cause)}"), "skill-be")

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed and self.collect_error is None:
            self.collect_error = (cap(f"the test file raises when imported: {short_message(report)}"), "skill-be")

    def pytest_collection_finish(self, session: Any) -> None:
        if self.collect_error is not None:
            message, source = self.collect_error
            if source == "skill-be":  # it loaded when the tests were listed: here, it is not the answer's
                self.emit({"e": "fatal", "message": message})
                os._exit(3)
            self.emit({"e": "load-error", "message": message, "from": source})
            self._end(0)
        self.emit({"e": "loaded"})

    # --- tests ------------------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: Any, nextitem: Any) -> bool | None:
        if self.ep is not None and self.ep.stuck:
            name = name_of(item.nodeid)
            self.emit({"e": "start", "name": name})
            self.emit({"e": "result", "name": name, "passed": False, "message": NOT_RUN_AFTER_TIMEOUT})
            return True
        return None

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        self.reports = []
        self.source = None
        self.timed_out = False
        self.emit({"e": "start", "name": name_of(nodeid)})
        self.started = time.perf_counter()
        if self.ep is not None:
            self.ep.deadline = time.monotonic() + self.timeout_s
        self.in_item = True
        signal.setitimer(signal.ITIMER_REAL, self.timeout_s + RUNNER_GRACE_S)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: Any, call: Any) -> Any:
        report = yield
        if call.excinfo is not None and report.failed and self.source is None:
            exc = call.excinfo.value
            if isinstance(exc, Timeout):
                self.timed_out = True
                self.source = "skill-be"
            else:
                self.source = "answer" if from_peer(exc) else "tests"
        return report

    def pytest_runtest_logreport(self, report: Any) -> None:
        self.reports.append(report)

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        self.in_item = False
        if self.ep is not None:
            self.ep.deadline = None
        passed, message = self.verdict()
        event: dict[str, Any] = {"e": "result", "name": name_of(nodeid), "passed": passed, "message": message}
        if message is not None:
            event["from"] = "skill-be" if self.timed_out else (self.source or "tests")
        event["ms"] = (time.perf_counter() - self.started) * 1000
        self.emit(event)

    def verdict(self) -> tuple[bool, str | None]:
        if self.timed_out:
            return False, f"timed out after {self.timeout_s:g} s"
        for report in self.reports:
            if report.failed:
                return False, cap(short_message(report))
            if report.skipped:
                if hasattr(report, "wasxfail"):
                    return True, None
                reason = short_message(report).removeprefix("Skipped: ")
                return False, cap(f"skipped: {reason}")
        return True, None

    def pytest_sessionfinish(self, session: Any, exitstatus: Any) -> None:
        self._end(None)

    def _end(self, code: int | None) -> None:
        self.emit({"e": "end"})
        if self.ep is not None:
            with contextlib.suppress(Exception):
                self.ep.event("bye")
        if code is not None:
            os._exit(code)
