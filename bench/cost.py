"""What one real-sized plan costs at list prices: without the prompt cache, with it, and with it and
the providers' batch price. Nothing is called: the figures come from the dry run's plan.

    python bench/cost.py [--skill-tokens 10000] [--scenarios 10] [--reps 10] [--gradings 3]

Builds a project in a temp folder (one skill whose SKILL.md is about --skill-tokens tokens, the
scenarios with three criteria each), loads it with skill-be's loader, builds the adapters from the
config (Anthropic's and OpenAI's, each the model under test and its own grader) and plans the run
with `plan_skill` (engine/pricing.py), the code behind `skill-be run --dry-run`: the same prompts,
the same prompt-cache hit estimate (the first call per stable prefix writes, the rest read), the
same 500 output tokens per answer and 200 per grading. The cost is `Price.dollars` of the plan's
tokens, once with the adapters' caching off (`promptCaching: false`), once on, and once on at the
batch price `run --batch` applies (wiring/batch.py `batch_priced`: every price less the config's
`pricing.<model>.batchDiscount`, here the providers' 0.5). Both arms are counted. Prints the three costs per provider and their ratio to the uncached one; the goal is at
most 0.35x.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from skill_be.adapters.credentials import Redactor
from skill_be.adapters.registry import AdapterEnv, AdapterRegistry
from skill_be.engine.pricing import PlanCount, Tokens, plan_skill
from skill_be.project.config import Price
from skill_be.project.loader import load_project
from skill_be.wiring.assembly import build_judges, build_models, engine_settings
from skill_be.wiring.batch import batch_priced
from skill_be.wiring.scale import caller

TARGET = 0.35  # cached and batched, over uncached

# List prices per million tokens (input, output, cache write, cache read), as the providers publish
# them: Claude Sonnet 4.5 (cache write 1.25x input, read 0.1x) and GPT-4.1 (cached input 0.25x; no
# write surcharge, so the write price is the input price).
PROVIDERS = {
    "anthropic": ("claude-sonnet-4-5", Price(3.0, 15.0, 3.75, 0.30)),
    "openai": ("gpt-4.1", Price(2.0, 8.0, 2.0, 0.50)),
}

# Both providers' batch APIs (Anthropic Message Batches, OpenAI Batch API) charge half the list price
# for every token, the cached ones included: `batchDiscount` in the config's pricing.
BATCH_DISCOUNT = 0.5

WORDS = "Use allocate() for every buffer; never call malloc directly, and free in the reverse order. "


def config_text(adapter: str, model_id: str, price: Price, caching: bool, reps: int, gradings: int) -> str:
    entry = {"adapter": adapter, "id": model_id, "promptCaching": caching}
    prices = {
        "input": price.input,
        "output": price.output,
        "cacheWrite": price.cache_write,
        "cacheRead": price.cache_read,
        "batchDiscount": BATCH_DISCOUNT,
    }
    return (
        "skills: ./skills\nevals: ./evals\n"
        f"model: {json.dumps(entry)}\ngrader: {json.dumps(entry)}\n"
        f"reps: {reps}\ngradings: {gradings}\n"
        f"pricing: {json.dumps({model_id: prices})}\n"
        "checks: {typecheck: false}\n"
    )


def build(root: Path, skill_tokens: int, scenarios: int) -> None:
    skill = root / "skills" / "alloc"
    skill.mkdir(parents=True)
    body = WORDS * (skill_tokens * 4 // len(WORDS))  # characters / 4 = tokens, as the plan counts them
    (skill / "SKILL.md").write_text(f"---\nname: alloc\ndescription: Buffers in this codebase.\n---\n{body}\n")
    (root / "evals").mkdir()
    cases = [
        {
            "id": f"task-{i}",
            "prompt": f"Write the function that reads record {i} into a new buffer and returns it.",
            "criteria": ["Uses allocate()", "Never calls malloc", "Frees in the reverse order"],
        }
        for i in range(scenarios)
    ]
    (root / "evals" / "alloc.json").write_text(json.dumps({"scenarios": cases}))


def plan_tokens(root: Path, text: str, batch: bool = False) -> tuple[list[PlanCount], Price]:
    """The plan of the project at `root` with config `text`, as `run --dry-run` (`--batch`) makes it,
    and the price of its one model."""
    (root / "skill-be.yaml").write_text(text)
    project = load_project(root / "skill-be.yaml")
    if batch:
        project = batch_priced(project)
    config = project.config
    env = AdapterEnv(root=config.root, environ=dict(os.environ), redactor=Redactor())
    registry = AdapterRegistry()
    models = [
        caller(m, e, config.root) for m, e in zip(build_models(config, env, registry), config.models, strict=True)
    ]
    judges = [
        caller(m, e, config.root) for m, e in zip(build_judges(config, env, registry), config.graders, strict=True)
    ]
    s = engine_settings(config)
    plans = [
        plan_skill(skill, models, judges, s.reps, s.gradings, s.template, s.grader_rules, None)
        for skill in project.skills
    ]
    [price] = config.pricing.values()
    return plans, price


def dollars(planned: tuple[list[PlanCount], Price]) -> tuple[float, Tokens]:
    plans, price = planned
    total = Tokens()
    for p in plans:
        for t in p.tokens.values():
            total.add(t.input, t.output, t.cache_write, t.cache_read)
    return price.dollars(total.input, total.output, total.cache_write, total.cache_read), total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skill-tokens", type=int, default=10_000, help="the SKILL.md's size (default 10000)")
    parser.add_argument("--scenarios", type=int, default=10, help="scenarios (default 10)")
    parser.add_argument("--reps", type=int, default=10, help="reps per scenario and arm (default 10)")
    parser.add_argument("--gradings", type=int, default=3, help="gradings per answer (default 3)")
    a = parser.parse_args()
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="skill-be-cost-") as tmp:
        root = Path(tmp)
        build(root, a.skill_tokens, a.scenarios)
        calls = a.scenarios * a.reps * 2 * (1 + a.gradings)
        print(
            f"plan: a {a.skill_tokens:,}-token skill, {a.scenarios} scenarios x {a.reps} reps x 2 arms, "
            f"{a.gradings} gradings per answer = {calls} calls (model and grader the same model)"
        )
        for adapter, (model_id, price) in PROVIDERS.items():
            plain, t0 = dollars(plan_tokens(root, config_text(adapter, model_id, price, False, a.reps, a.gradings)))
            cached_text = config_text(adapter, model_id, price, True, a.reps, a.gradings)
            cached, t1 = dollars(plan_tokens(root, cached_text))
            batched, _ = dollars(plan_tokens(root, cached_text, batch=True))
            worst = max(worst, batched / plain)
            print(
                f"  {adapter} {model_id} (${price.input}/${price.output} per MTok, cache write ${price.cache_write}, "
                f"read ${price.cache_read}):"
            )
            print(f"    without caching:        ${plain:8.2f}  1.00x  ({t0.input:,} in, {t0.output:,} out)")
            print(
                f"    with caching:           ${cached:8.2f}  {cached / plain:.2f}x  "
                f"({t1.cache_read:,} of the input read from the cache, {t1.cache_write:,} written)"
            )
            print(
                f"    with caching and batch: ${batched:8.2f}  {batched / plain:.2f}x  (batchDiscount {BATCH_DISCOUNT})"
            )
    verdict = "within" if worst <= TARGET else "over"
    print(f"goal: at most {TARGET:.2f}x of the uncached cost with caching and batch; worst {worst:.2f}x ({verdict})")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
