"""apiKeyEnv: which credential a call uses, the CI rule, and keeping keys out of every message and file."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from skill_be.errors import ConfigError
from skill_be.project.config import AdapterEntry


def in_ci(env: Mapping[str, str]) -> bool:
    """CI counts as set when it holds any non-empty value other than `false` or `0`."""
    value = env.get("CI", "").strip()
    return bool(value) and value.lower() not in ("false", "0")


def api_key(entry: AdapterEntry, env: Mapping[str, str]) -> str | None:
    """The key from the entry's apiKeyEnv variable; None means the CLI's stored login.
    In CI a named variable that is unset or empty is a config error (exit 2)."""
    var = entry.settings.get("apiKeyEnv")
    if var is None:
        return None
    if not isinstance(var, str) or not var.strip():
        raise entry.where.key("apiKeyEnv").error("must be the name of an environment variable")
    value = env.get(var, "")
    if value:
        return value
    if in_ci(env):
        raise ConfigError(
            f"{entry.where.file}: {entry.where.path}.apiKeyEnv: {var} is unset or empty, and CI is set; "
            f"store the key as a secret and export it as {var}"
        )
    return None


class Redactor:
    """Replaces every known secret with *** in text bound for a message, report or file."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets = sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True)

    def add(self, secret: str | None) -> None:
        if secret and len(secret) >= 4 and secret not in self._secrets:
            self._secrets = sorted([*self._secrets, secret], key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for s in self._secrets:
            text = text.replace(s, "***")
        return text
