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


# Added by skill-be (not in the reference): intervals and the evidence rule. New lines only.
# What a reader must do when the reps cannot decide: the gate's own sentences, each ending on the command.
CANNOT_TELL = "{have} reps per arm cannot tell{what}; about {reps} would: run --reps {reps}{top_up}"
CANNOT_TELL_FAR = "{have} reps per arm cannot tell{what}, and more than {cap} would: too small a difference to measure"
TOP_UP_TOO = " or --top-up"
NOISE_NOTE = "  - Within the noise: the 95% interval of this delta, {low} to {high}pp, contains 0; {decide}."
NOISE_NOTE_NEVER = "  - Within the noise: the 95% interval of this delta, {low} to {high}pp, contains 0."
BLOCKED_SCENARIO = (
    "- **BLOCKED** (regression, evidence): `{scenario}` / {model} — the scenario's mean delta {delta}pp; "
    "its upper bound {high}pp is below 0 at the one-sided level {level}"
)
BLOCKED_LINE = (
    '- **BLOCKED** (regression, evidence): `{scenario}` / {model} — *"{line}"*: {baseline}% → {with_skill}% '
    "({delta}pp); its upper bound {high}pp is below 0 at the one-sided level {level}"
)
BLOCKED_ZERO_EVIDENCE = (
    '- **BLOCKED** (universal 0%, evidence): `{scenario}` — criterion: *"{line}"*: with the skill below {threshold}% '
    "on every model (one-sided 95% upper bound)"
)
INCONCLUSIVE = (
    "- **INCONCLUSIVE**: `{scenario}` / {model} — {what}: {delta}pp, 95% interval {low} to {high}pp, reaches both "
    "below -{margin}pp and above 0; {decide}. {effect}"
)
INCONCLUSIVE_PASSES = "Not blocking: gate.inconclusive is pass."
INCONCLUSIVE_BLOCKS = "Blocking: gate.inconclusive is block."
RULE_EVIDENCE = (
    "Rule: evidence. A false block is kept under {alpha} (one-sided), split between scenarios and lines{looks}: "
    "on this look each of {scenarios} critical scenario test(s) at {scenario_level}, "
    "each of {lines} line test(s) at {line_level}."
)
# A READY skill with a line at 0% with the skill on every model (the zero rule off, or evidence that
# cannot tell yet) never says "No universal 0% criteria": these lines say which and what to do.
READY_LINE_ZERO_SEEN = "**READY** — No critical regressions; a line at 0% with the skill does not block (above)."
ZERO_SEEN = '- 0% with the skill on every model, not blocking: `{scenario}` — *"{line}"*: {decide}.'
ZERO_SEEN_OFF = (
    '- 0% with the skill on every model, not blocking (gate.blockOnZero is false): `{scenario}` — *"{line}"*.'
)
TOP_UP_LINE = "Top-up: `{scenario}` / {model} from {reps_from} to {reps_to} reps per arm ({calls} more model calls)."
INTERVALS_HEAD = "95% intervals of the deltas ({reps} per arm{low}):"
INTERVAL_LINE = "- *{line}*: {delta}pp, {low} to {high}pp"
SCENARIO_INTERVAL_LINE = "- scenario mean: {delta}pp, {low} to {high}pp: {label}"
OVERALL_LINE = (
    "Overall effect of the skill (mean over scenarios and models, 95% two-level bootstrap interval, seed {seed}): "
    "{delta}pp, {low} to {high}pp: {label}{low_sample}."
)
LOW_SAMPLE = "low sample"
# A scenario run for review with nothing that grades it (graded: false; an evals.json case without assertions).
NOT_GRADED = "not graded: no assertions"
NOT_GRADED_SCENARIO = "*" + NOT_GRADED + "* (its answers are kept in the run folder for review)."
BLOCKED_NOT_GRADED = (
    "- **BLOCKED** (" + NOT_GRADED + "): no scenario has a line to grade; add assertions (or criteria) to at "
    "least one scenario: `{scenarios}`"
)
REASON_MODEL = "gate.models: the skill must hold on {model}, and the gate on {model} alone blocks"
REASON_NOT_GRADED = NOT_GRADED + ": no scenario has a line to grade ({scenarios})"

# The gate's reasons as the result file and summary.json keep them (reports/gate.py writes them); readers
# find what a reason is about from its data beside them (`why`), never from these words.
REASON_ZERO = 'universal 0%: {scenario} — "{line}"'
REASON_REGRESSION = 'regression: {scenario} / {model} — "{line}": {baseline}% → {with_skill}% ({delta}pp)'

# The gate's words and the closing Result line, for every report and command that says them.
READY = "READY"
NOT_READY = "NOT READY"
RESULT_PREFIX = "Result: "
# A fake run (run --fake, adapter fake: reports/fake.py): no verdict to give, nothing recorded.
RESULT_FAKE = (
    RESULT_PREFIX + "fake run: the pipeline ran end to end; nothing was measured and the result file was not "
    "written. Set the model's key and run without --fake for a verdict."
)
RESULT_PASS = RESULT_PREFIX + "pass"
RESULT_BLOCKED = RESULT_PREFIX + "blocked by {blockers}"
GATE_BLOCKER = "the release gate (NOT READY: {skills})"
RESULT_ERROR = RESULT_PREFIX + "error, could not measure {causes}"
RESULT_RULES_BLOCKED = RESULT_PREFIX + "blocked by gate.previous or gate.minDelta (NOT READY: {names})"
RULES_BLOCKER = "{rules} against the base (NOT READY: {skills})"  # verify --base: gate.previous, gate.minDelta
VERIFY_ALL_READY = "result file {name}: {n} skill(s) match their last run, every one READY"
VERIFY_NOT_READY = '  - skill "{skill}": NOT READY at its last run ({date}): {why}; fix it and {rerun}'
# check --graders (reports/references.py): the reference answers' Result line
REFERENCES_PASS = RESULT_PASS + " ({n} reference answer(s), every line as expected)"
REFERENCES_BLOCKER = "{found} line(s) that disagree with their reference answers ({n} checked)"

# The token line's tail where the provider's prompt cache took part (reports/markdown.py `cache_words`).
CACHED_INPUT_HEAD = "Of the input, from the prompt cache (mean):"
CACHED_INPUT = "{arm} {read} read, {written} written"
CACHE_READ_WORD = "cache read"  # the PR comment's token line: "12,400 in (9,000 cache read, 1,100 cache write)"
CACHE_WRITE_WORD = "cache write"
CACHED_PER_ANSWER = "with the skill, of its input per answer"  # the result file's usage, against the base

# Batch mode (reports/batch.py): a batch's progress line and how to go on after an interruption.
BATCH_PROGRESS = "[batch] {model}: {batch_id} ({how}) {submitted} submitted, {done} done, {failed} failed{end}"
BATCH_RESUME = "[batch] interrupted? skill-be run --resume {folder} fetches the batches submitted so far"
BATCH_DRY_RUN = "Batch mode: each model's calls go as provider batches; every cost below is at the batch price."
