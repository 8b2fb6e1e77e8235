"""What the code tests of one answer came to: a result per test, or an error when they could not run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True)
class TestResult:
    __test__: ClassVar[bool] = False  # not a pytest test class
    name: str
    passed: bool
    message: str | None = None  # why it failed: the assertion's text, a timeout, the answer's load error
    seconds: float = 0.0
    # Whose words `message` holds: "answer" (written in the answer's process: an error it threw, its
    # load error, a protocol message it forged), "tests" (the test's assertion, which may quote the
    # answer's values) or "skill-be"; None when not known. Reports show every message as quoted data.
    message_from: str | None = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"name": self.name, "passed": self.passed, "message": self.message}
        if self.message_from is not None:
            out["messageFrom"] = self.message_from
        out["seconds"] = round(self.seconds, 3)
        return out


@dataclass(frozen=True)
class TestRun:
    __test__: ClassVar[bool] = False
    results: tuple[TestResult, ...]  # one per registered test of the scenario, in registration order
    error: str | None = None  # the tests could not run (skill-be's side): an error, and every test counts as 0

    def to_json(self) -> dict[str, object]:
        """What rep-<n>-<arm>.tests.json holds."""
        return {
            "passed": sum(r.passed for r in self.results),
            "total": len(self.results),
            "error": self.error,
            "tests": [r.to_json() for r in self.results],
        }


def all_failed(names: tuple[str, ...], message: str, message_from: str | None = None) -> tuple[TestResult, ...]:
    return tuple(TestResult(name=n, passed=False, message=message, message_from=message_from) for n in names)


def errored(names: tuple[str, ...], error: str) -> TestRun:
    """The tests could not run: each counts as failed, and the run carries the error."""
    return TestRun(results=all_failed(names, f"not run: {error}"), error=error)
