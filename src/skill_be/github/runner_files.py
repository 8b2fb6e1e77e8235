"""The runner's files and workflow commands: outputs, the job summary, warning lines."""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Mapping
from pathlib import Path

SUMMARY_LIMIT = 1024 * 1024  # bytes: GitHub refuses a larger job summary for a step


def escape_data(text: str) -> str:
    """A workflow command's message: %, CR and LF escaped so one message stays one line."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def warning(message: str) -> None:
    print(f"::warning::{escape_data(message)}", file=sys.stdout, flush=True)


def write_outputs(values: Mapping[str, str], env: Mapping[str, str] = os.environ) -> None:
    """Append each output to GITHUB_OUTPUT in the multi-line form `name<<DELIM ... DELIM`."""
    path = env.get("GITHUB_OUTPUT")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as f:
        for key, value in values.items():
            delim = f"skill_be_{secrets.token_hex(8)}"
            while delim in value:
                delim = f"skill_be_{secrets.token_hex(8)}"
            f.write(f"{key}<<{delim}\n{value}\n{delim}\n")


def fit_summary(text: str, more: str) -> str:
    """The job summary under 1 MiB (in UTF-8 bytes), trimmed at a line with a note when larger."""
    from skill_be.reports.pr_comment import trim_markdown

    data = text.encode("utf-8")
    if len(data) <= SUMMARY_LIMIT:
        return text
    # Characters can take up to 4 bytes: trim by characters until the bytes fit.
    limit = SUMMARY_LIMIT
    out = text
    while len(out.encode("utf-8")) > SUMMARY_LIMIT:
        limit = int(limit * 0.9)
        out = trim_markdown(text, limit, more)
    return out


def append_summary(text: str, env: Mapping[str, str] = os.environ) -> None:
    path = env.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    with Path(path).open("a", encoding="utf-8") as f:
        f.write(fit_summary(text, "the full report is in the report output's file"))
