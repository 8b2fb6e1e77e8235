"""What a run costs: the dry run's plan (calls, cache hits, estimated tokens and money) and, after a
real run, the tokens and cost per arm.

Token estimates: a prompt's characters / 4 (a common rule of thumb for English and code); before an
answer exists, 500 output tokens per answer and 200 per grading, and the grading prompt is estimated
with a 2,000-character answer. Where an adapter reports tokens, a real run uses them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from skill_be.adapters.base import Answer, Usage
from skill_be.engine.cache import generation_key, grading_key
from skill_be.engine.prompts import ARMS, grader_prompt, grader_stable, model_prompt, model_stable
from skill_be.project.config import Price
from skill_be.project.loader import Skill

__all__ = ["Price"]  # the config's record (project/config.py); reports and commands import it from here too

CHARS_PER_TOKEN = 4
ANSWER_TOKENS = 500  # output tokens of one answer, before it exists
GRADING_TOKENS = 200  # output tokens of one grading reply
ANSWER_CHARS = ANSWER_TOKENS * CHARS_PER_TOKEN  # an answer's size in a grading prompt, before it exists


def tokens_of(chars: int) -> int:
    return (chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


@dataclass
class Tokens:
    input: int = 0  # every input token, the prompt cache's included
    output: int = 0
    cache_write: int = 0  # of input: written to the provider's prompt cache
    cache_read: int = 0  # of input: read from it

    def add(self, i: int, o: int, written: int = 0, read: int = 0) -> None:
        self.input += i
        self.output += o
        self.cache_write += written
        self.cache_read += read

    def cost(self, price: Price | None) -> float | None:
        return None if price is None else price.dollars(self.input, self.output, self.cache_write, self.cache_read)


def price_for(prices: Mapping[str, Price], label: str, model_id: str) -> Price | None:
    """A model's price by its label (adapter:id when two entries share an id), else by its id."""
    return prices.get(label) or prices.get(model_id)


@dataclass
class PlanCount:
    """The calls one skill's run would make, and the tokens of those not in the cache, per model label."""

    skill: str
    generations: int = 0
    gradings: int = 0
    cached_generations: int = 0
    cached_gradings: int = 0
    tokens: dict[str, Tokens] = field(default_factory=dict)  # label -> tokens of the calls to make

    @property
    def calls(self) -> int:
        return self.generations + self.gradings

    @property
    def cached(self) -> int:
        return self.cached_generations + self.cached_gradings

    def add_tokens(self, label: str, i: int, o: int, written: int = 0, read: int = 0) -> None:
        self.tokens.setdefault(label, Tokens()).add(i, o, written, read)


def _money(amount: float) -> str:
    return f"${amount:,.4f}" if amount < 1 else f"${amount:,.2f}"


def _counts(p: PlanCount) -> str:
    return (
        f"{p.generations} generations + {p.gradings} gradings = {p.calls} calls; "
        f"the cache holds {p.cached}, {p.calls - p.cached} to make"
    )


def _token_words(tokens: Mapping[str, Tokens]) -> str:
    total = Tokens()
    for t in tokens.values():
        total.add(t.input, t.output, t.cache_write, t.cache_read)
    cached = _cache_words(total) if total.cache_write or total.cache_read else ""
    return f"about {total.input:,} input{cached} and {total.output:,} output tokens"


def _cost(tokens: Mapping[str, Tokens], prices: Mapping[str, Price], ids: Mapping[str, str]) -> str | None:
    """`$0.0123 (m1 $0.0100, judge $0.0023)`, or None when a model making calls has no price."""
    parts: list[tuple[str, float]] = []
    for label, t in tokens.items():
        if t.input == 0 and t.output == 0:
            continue
        amount = t.cost(price_for(prices, label, ids.get(label, label)))
        if amount is None:
            return None
        parts.append((label, amount))
    total = sum(a for _, a in parts)
    return f"{_money(total)} ({', '.join(f'{label} {_money(a)}' for label, a in parts)})" if parts else _money(0)


def dry_run_lines(
    plans: Sequence[PlanCount],
    prices: Mapping[str, Price],
    ids: Mapping[str, str],
    cache_on: bool,
    most: tuple[int, Sequence[PlanCount]] | None = None,
) -> list[str]:
    """What `run --dry-run` prints: per skill and in total, calls, cache hits, tokens and (with prices) cost."""
    lines = ["Dry run: nothing is called; the plan of this run:"]
    total = PlanCount(skill="Total")
    for p in plans:
        lines.append(f"  {p.skill}: {_counts(p)}; {_token_words(p.tokens)}")
        total.generations += p.generations
        total.gradings += p.gradings
        total.cached_generations += p.cached_generations
        total.cached_gradings += p.cached_gradings
        for label, t in p.tokens.items():
            total.add_tokens(label, t.input, t.output, t.cache_write, t.cache_read)
    lines.append(f"  Total: {_counts(total)}; {_token_words(total.tokens)}")
    if most is not None:
        reps, bigger = most
        generations, gradings = sum(p.generations for p in bigger), sum(p.gradings for p in bigger)
        lines.append(
            f"  With --top-up, at most {generations} generations + {gradings} gradings = {generations + gradings} "
            f"calls (every scenario taken to gate.topUpReps, {reps} reps)"
        )
    if not cache_on:
        lines.append("  The response cache is off (cache: true in skill-be.yaml or --cache turns it on).")
    unpriced = sorted(
        label for label, t in total.tokens.items() if t.input + t.output and not _has_price(prices, label, ids)
    )
    if prices and not unpriced:
        lines.append(f"Estimated cost of the calls to make: {_cost(total.tokens, prices, ids)}")
    elif prices:
        lines.append(f"Estimated cost: no price in pricing for {', '.join(unpriced)}; add it to price the plan")
    else:
        lines.append(
            "Estimated cost: add a pricing section to skill-be.yaml (US dollars per million tokens per model id)"
        )
    lines.append(
        f"Tokens are estimated as prompt characters / {CHARS_PER_TOKEN}, with {ANSWER_TOKENS} output tokens per "
        f"answer and {GRADING_TOKENS} per grading where the cache does not hold the answer yet."
    )
    if any(t.cache_write or t.cache_read for t in total.tokens.values()):
        lines.append(PROMPT_CACHE_NOTE)
    return lines


PROMPT_CACHE_NOTE = (
    "The prompt cache: a stable prefix (the skill's text, the grader's rules and criteria) long enough for the "
    "model is written by its first call and read by the rest (promptCaching: false in an entry turns it off)."
)


def _has_price(prices: Mapping[str, Price], label: str, ids: Mapping[str, str]) -> bool:
    return price_for(prices, label, ids.get(label, label)) is not None


# --- after a real run: tokens and cost per arm ----------------------------------------------------


class OutputLike(Protocol):
    @property
    def arm(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def prompt_chars(self) -> int: ...
    @property
    def text(self) -> str | None: ...
    @property
    def usage(self) -> Usage | None: ...


def output_tokens(o: OutputLike) -> tuple[int, int, bool]:
    """(input, output, estimated): the adapter's counts where it reports them, else characters / 4."""
    u = o.usage
    if u is not None and u.input_tokens is not None and u.output_tokens is not None:
        return u.input_tokens, u.output_tokens, False
    return tokens_of(o.prompt_chars), tokens_of(len(o.text or "")), True


def cached_tokens(o: OutputLike) -> tuple[int, int]:
    """(written, read): the input tokens of `o` that the provider's prompt cache wrote and read."""
    u = o.usage
    return (u.cache_write_tokens, u.cache_read_tokens) if u is not None and u.input_tokens is not None else (0, 0)


def arm_costs(
    outputs: Sequence[OutputLike], prices: Mapping[str, Price], ids: Mapping[str, str], arms: Sequence[str]
) -> tuple[dict[str, Tokens], dict[str, float | None], bool]:
    """Generation tokens and cost per arm, summed over the outputs; whether any count is estimated."""
    tokens = {arm: Tokens() for arm in arms}
    costs: dict[str, float | None] = {arm: 0.0 for arm in arms}
    estimated = False
    for o in outputs:
        if (o.text is None and o.usage is None) or o.arm not in tokens:
            continue  # a failed call: nothing known to price; or an arm not asked for (previous)
        i, out, est = output_tokens(o)
        written, read = (0, 0) if est else cached_tokens(o)
        estimated |= est
        tokens[o.arm].add(i, out, written, read)
        price = price_for(prices, o.model, ids.get(o.model, o.model))
        current = costs[o.arm]
        costs[o.arm] = None if price is None or current is None else current + price.dollars(i, out, written, read)
    return tokens, costs, estimated


def cost_line(
    outputs: Sequence[OutputLike], prices: Mapping[str, Price], ids: Mapping[str, str], baseline: str, with_skill: str
) -> str:
    """The report's line: `Cost (pricing in skill-be.yaml): baseline $0.0100, with skill $0.0300 (+$0.0200 for the
    skill text).` Empty without prices, or when a model under test has none."""
    if not prices:
        return ""
    _, costs, estimated = arm_costs(outputs, prices, ids, (baseline, with_skill))
    base, skill = costs[baseline], costs[with_skill]
    if base is None or skill is None:
        return ""
    note = " Tokens estimated from characters where the adapter reports none." if estimated else ""
    return (
        f"Cost (pricing in skill-be.yaml): baseline {_money(base)}, with skill {_money(skill)} "
        f"({'+' if skill >= base else '-'}{_money(abs(skill - base))} for the skill text).{note}"
    )


def answer_usage(
    outputs: Sequence[OutputLike], prices: Mapping[str, Price], ids: Mapping[str, str], arms: Mapping[str, str]
) -> dict[str, object] | None:
    """The result file's `usage` of one skill: per arm (`arms` maps its key there to the arm), the
    answers counted and the mean input and output tokens of one answer, and its mean cost in USD when
    every model under test has a price; whether any count is estimated. None when an arm has no
    answer (every call failed): nothing to compare with."""
    outputs = [o for o in outputs if o.arm in arms.values()]  # another arm (previous) is not the skill's cost
    tokens, costs, estimated = arm_costs(outputs, prices, ids, list(arms.values()))
    counts = Counter(o.arm for o in outputs if not (o.text is None and o.usage is None))
    doc: dict[str, object] = {}
    for key, arm in arms.items():
        n = counts[arm]
        if not n:
            return None
        entry: dict[str, object] = {
            "answers": n,
            "inputTokens": round(tokens[arm].input / n, 1),
            "outputTokens": round(tokens[arm].output / n, 1),
        }
        cost = costs[arm]
        if prices and cost is not None:
            entry["costUsd"] = round(cost / n, 8)
        for name, count in (("cacheReadTokens", tokens[arm].cache_read), ("cacheWriteTokens", tokens[arm].cache_write)):
            if count:  # only where the provider's prompt cache served the arm: older files stay as they were
                entry[name] = round(count / n, 1)
        doc[key] = entry
    return {**doc, "estimated": estimated}


# --- the dry run's plan ------------------------------------------------------------------------------


class CacheLike(Protocol):
    def peek(self, key: str) -> Answer | None: ...


@dataclass(frozen=True)
class Caller:
    """A model or the grader as the plan sees it: its label, its cache identity, and the fewest tokens
    of a stable prefix its provider caches (None: it caches none; the adapter's `cache_minimum`)."""

    label: str
    identity: str
    cache_minimum: int | None = None


def cache_minimum_of(adapter: object) -> int | None:
    """An adapter's `cache_minimum()`, None for one without it (CLIs, commands, modules)."""
    ask = getattr(adapter, "cache_minimum", None)
    found = ask() if callable(ask) else None
    return found if isinstance(found, int) else None


def prompt_cache(caller: Caller, prompt: str, stable: Sequence[int], seen: set[tuple[str, str]]) -> tuple[int, int]:
    """(written, read) input tokens of one planned call: of its stable prefixes long enough for the
    caller's minimum, the longest one an earlier call of the plan wrote is read, and the longest is
    written past that unless it was written already (what the providers document)."""
    if caller.cache_minimum is None:
        return 0, 0
    least = caller.cache_minimum
    fit = [prompt[:c] for c in sorted(stable) if 0 < c <= len(prompt) and tokens_of(c) >= least]
    if not fit:
        return 0, 0
    hits = [p for p in fit if (caller.label, p) in seen]
    read = tokens_of(len(hits[-1])) if hits else 0
    written = 0 if (caller.label, fit[-1]) in seen else tokens_of(len(fit[-1])) - read
    seen.update((caller.label, p) for p in fit)
    return written, read


def plan_skill(
    skill: Skill,
    models: Sequence[Caller],
    graders: Sequence[Caller],
    reps: int,
    gradings: int,
    template: str,
    grader_rules: str | None,
    cache: CacheLike | None,
    only: Callable[[str, str, str, int], bool] | None = None,
    evidence: bool = False,
) -> PlanCount:
    """Every call a run of `skill` makes (the engine's plan: scenario x model x rep x arm, then `gradings`
    gradings of each answer to a scenario with criteria), which of them the cache holds, and the estimated
    tokens of the rest. A grading is known to be cached only when its answer is."""
    plan = PlanCount(skill=skill.name)
    seen: set[tuple[str, str]] = set()  # the prompt-cache prefixes the plan's calls wrote so far
    for sc in skill.evals.scenarios:
        graded = bool(sc.criteria) and bool(graders)
        for model in models:
            for rep in range(1, reps + 1):
                if only is not None and not only(skill.name, sc.id, model.label, rep):
                    continue  # another shard's
                for arm in ARMS:
                    prompt = model_prompt(sc, arm, skill.doc.text, template)
                    plan.generations += 1
                    answer = cache.peek(generation_key(model.identity, prompt, arm, rep)) if cache else None
                    if answer is not None:
                        plan.cached_generations += 1
                    else:
                        stable = model_stable(arm, skill.doc.text, template)
                        cached = prompt_cache(model, prompt, stable, seen)
                        plan.add_tokens(model.label, tokens_of(len(prompt)), ANSWER_TOKENS, *cached)
                    if not graded:
                        continue
                    text = answer.text if answer is not None else "x" * ANSWER_CHARS
                    g_prompt = grader_prompt(grader_rules, sc.criteria, text, sc.judge_context, evidence)
                    g_stable = grader_stable(grader_rules, sc.criteria, sc.judge_context)
                    for j, grader in enumerate(graders):  # `grader` as a list: each judge's gradings
                        for k in range(j * gradings + 1, (j + 1) * gradings + 1):
                            plan.gradings += 1
                            unit = (skill.name, sc.id, model.label, arm, rep)
                            key = grading_key(grader.identity, g_prompt, unit, k, 1)
                            if answer is not None and cache is not None and cache.peek(key) is not None:
                                plan.cached_gradings += 1
                            else:
                                cached = prompt_cache(grader, g_prompt, g_stable, seen)
                                plan.add_tokens(grader.label, tokens_of(len(g_prompt)), GRADING_TOKENS, *cached)
    return plan


# --- after a real run: what the report and summary.json add about cost and the cache ---------------


def _tokens_json(t: Tokens) -> dict[str, int]:
    """`input`, `output`, and `cacheWrite` and `cacheRead` (of the input) where not 0."""
    cached = {"cacheWrite": t.cache_write, "cacheRead": t.cache_read}
    return {"input": t.input, "output": t.output, **{k: n for k, n in cached.items() if n}}


def _cache_words(t: Tokens) -> str:
    return f" ({t.cache_read:,} read from the prompt cache, {t.cache_write:,} written to it)"


def skill_costs(
    outputs: Sequence[OutputLike],
    prices: Mapping[str, Price],
    ids: Mapping[str, str],
    baseline: str,
    with_skill: str,
    calls: Mapping[str, int] | None,
) -> tuple[list[str], dict[str, object]]:
    """The report lines (the cost per arm, the cache's share of the calls) and summary.json's keys for
    one skill: `tokens` per arm (generations; estimated from characters where the adapter reports none),
    `cost` per arm and of the skill text when every model has a price, `calls` when the cache is on."""
    tokens, costs, estimated = arm_costs(outputs, prices, ids, (baseline, with_skill))
    doc: dict[str, object] = {
        "tokens": {
            "baseline": _tokens_json(tokens[baseline]),
            "withSkill": _tokens_json(tokens[with_skill]),
            "estimated": estimated,
        }
    }
    b, w = tokens[baseline], tokens[with_skill]
    how = " (estimated from characters where the adapter reports none)" if estimated else ""
    # The prompt cache's part of the input is said only where it has one: the line is as before otherwise.
    b_cache = _cache_words(b) if b.cache_write or b.cache_read else ""
    w_cache = _cache_words(w) if w.cache_write or w.cache_read else ""
    lines = [
        f"Tokens of the generations{how}: baseline {b.input:,} in{b_cache}, {b.output:,} out; with skill "
        f"{w.input:,} in{w_cache}, {w.output:,} out "
        f"({'+' if w.input >= b.input else '-'}{abs(w.input - b.input):,} input tokens with the skill)."
    ]
    base, skill = costs[baseline], costs[with_skill]
    if prices and base is not None and skill is not None:
        doc["cost"] = {"baseline": round(base, 6), "withSkill": round(skill, 6), "skillText": round(skill - base, 6)}
        lines.append(cost_line(outputs, prices, ids, baseline, with_skill))
    if calls is not None:
        doc["calls"] = dict(calls)
        total = calls["made"] + calls["cached"]
        lines.append(f"Response cache: {calls['cached']} of {total} model calls came from the cache.")
    return lines, doc
