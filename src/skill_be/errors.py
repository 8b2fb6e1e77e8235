"""The few exceptions that stop a command. `cli` alone maps them to exit codes."""

from __future__ import annotations


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
