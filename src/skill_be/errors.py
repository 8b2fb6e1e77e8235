"""The few exceptions that stop a command, and the one place an error becomes an exit code
(`exit_code`, used by `cli` and the GitHub action)."""

from __future__ import annotations

from typing import overload


class SkillBeError(Exception):
    """A mistake the user can fix: a config, a file, an option. Exit code 2."""

    exit_code = 2


class UsageError(SkillBeError):
    """A wrong command line: unknown command or option, a bad option value."""

    def __init__(self, message: str, command: str | None = None) -> None:
        super().__init__(message)
        self.command = command


class ConfigError(SkillBeError):
    """A config, eval, skill, test or result file that cannot be used as it is."""


class Interrupted(BaseException):
    """SIGINT (130) or SIGTERM (143) arrived; raised where the command can unwind."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


USAGE_EXIT = SkillBeError.exit_code  # a command line without a command, a tool's wrong arguments


Stopping = SkillBeError | Interrupted | KeyboardInterrupt | BrokenPipeError  # what ends a command with a code


@overload
def exit_code(e: Stopping) -> int: ...
@overload
def exit_code(e: BaseException) -> int | None: ...
def exit_code(e: BaseException) -> int | None:
    """The exit code an error ends a command with, or None for an error that is not one of these (a
    crash, which the caller lets through)."""
    if isinstance(e, SkillBeError | Interrupted):
        return e.exit_code
    if isinstance(e, KeyboardInterrupt):
        return 130
    if isinstance(e, BrokenPipeError):  # the reader went away (`| head`): what was asked for is written
        return 1
    return None
