"""Fixed interface strings. Scripts grep them, so code and tests both import them from here."""

from __future__ import annotations

RELEASE_GATE_HEADING = "## Release Gate"
READY_LINE = "**READY** — No universal 0% criteria. No critical regressions."
NOT_READY_LINE = "**NOT READY**"
ERROR_LINE = (
    "- **[ERROR]** {n} output(s) could not be generated or graded; their criteria were counted as 0 "
    "(see the scenario notes)."
)
ERROR_LINE_WITH_TESTS = (
    "- **[ERROR]** {n} error(s): outputs that could not be generated or graded, or code tests that could not run; "
    "their lines were counted as 0 (see the scenario notes)."
)
BLOCKED_ZERO = '- **BLOCKED** (universal 0%): `{scenario}` — criterion: *"{line}"*'
BLOCKED_REGRESSION = (
    '- **BLOCKED** (regression): `{scenario}` / {model} — *"{line}"*: {baseline}% → {with_skill}% ({delta}pp)'
)
NO_TOOLS_NOTE = 'Note: "with skill" puts the SKILL.md content in the user prompt.'
GRADING_NONE = "Grading: none, no scenario has criteria (code tests only)."
TABLE_HEAD = "| Criterion | Baseline | With skill | Delta |\n|-----------|----------|------------|-------|"
TEST_PREFIX = "[test] "
ERROR_TAG = "[ERROR]"
NOTE_TAG = "[NOTE]"


def signed(pp: int) -> str:
    return f"+{pp}" if pp >= 0 else str(pp)
