"""skill-be.yaml: every key, its default and its validation."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.files import read_text
from skill_be.project.places import Places
from skill_be.project.rules import DEFAULT_RESULT_FILE, DEFAULT_RESULTS, MAX_TIMEOUT, PRESETS, REQUIRED, SANDBOXES
from skill_be.project.triggers import DEFAULT_TRIGGER_TURNS, TriggerGate, trigger_gate
from skill_be.project.where import Where
from skill_be.project.yamlfile import load_yaml

__all__ = ["MAX_TIMEOUT", "PRESETS", "REQUIRED", "SANDBOXES"]

if TYPE_CHECKING:
    from pydantic import BaseModel

DEFAULT_WITH_SKILL_TEMPLATE = """You have access to the following library. Use its APIs when writing the code.

--- LIBRARY DOCS ---
{{skill}}
--- END LIBRARY DOCS ---

Task: {{task}}"""


class AdapterEntry(NamedTuple):
    """One `model`, `grader` or `triage.model` entry: `adapter`, `id` and the adapter's own settings."""

    adapter: str
    id: str
    settings: Mapping[str, object]
    where: Where


class GateConfig(NamedTuple):
    regression_on_critical: bool = True
    block_on_zero: bool = True
    block_on_errors: bool = True
    rule: str = "strict"  # strict (the reference's) | evidence (weighs the intervals)
    margin: float = 30.0  # percentage points: a harm this large is what `evidence` must rule out
    inconclusive: str = "pass"  # pass | block: what an inconclusive line or scenario does to the verdict
    top_up_reps: int = 40  # the most reps --top-up may bring an inconclusive scenario to
    trigger: TriggerGate | None = None  # gate.trigger (project/trigger_models.py); None: reported, never blocking
    min_delta: float | None = None  # percentage points the overall effect must reach (engine/gate.py)
    previous: str = "warn"  # block | warn | off: a critical scenario worse than at the base branch
    max_error_share: float = 0.5  # engine/health.py: more outputs than this share errored is ERROR
    error_verdict: bool = True  # False: the reference's behaviour, errors block (NOT READY), never ERROR
    models: tuple[str, ...] = ()  # gate.models: the model labels that must hold; () every model (engine/across.py)


class TypecheckConfig(NamedTuple):
    preset: str | None
    library: str | None
    preludes: Mapping[str, Path]
    blocking: bool
    command: str | None
    mypy: bool


class CoverageConfig(NamedTuple):
    preset: str | None
    entry: str | None
    ignore: tuple[str, ...]
    blocking: bool
    command: str | None


class ChecksConfig(NamedTuple):
    """`typecheck` is None when the key is absent (the check picks its default), False when turned off."""

    typecheck: TypecheckConfig | bool | None = None
    coverage: CoverageConfig | None = None


class CodeTestsConfig(NamedTuple):
    packages: Path | None = None
    packages_by_skill: Mapping[str, Path] = MappingProxyType({})
    test_timeout_seconds: int = 10
    answer_timeout_seconds: int = 60
    allow: tuple[str, ...] = ()
    sandbox: str = "auto"
    image: str | None = None
    memory_mb: int = 512
    cpus: float = 1.0
    pids: int = 128


class Price(NamedTuple):
    """One model's prices (`pricing:`), US dollars per million tokens. The prompt cache's prices
    (`cacheWrite`, `cacheRead`) are the input price where the config names none."""

    input: float
    output: float
    cache_write: float | None = None
    cache_read: float | None = None
    batch_discount: float = 0.5  # the share taken off every price in batch mode (`batchDiscount`)

    def batched(self) -> Price:
        """The batch price: every price less the batch discount."""
        keep = 1 - self.batch_discount
        write, read = self.cache_write, self.cache_read
        return Price(
            self.input * keep,
            self.output * keep,
            None if write is None else write * keep,
            None if read is None else read * keep,
            self.batch_discount,
        )

    def dollars(self, tokens_in: int, tokens_out: int, written: int = 0, read: int = 0) -> float:
        """The cost of `tokens_in` input tokens (`written` and `read` of them the prompt cache's) and
        `tokens_out` output tokens."""
        write_price = self.input if self.cache_write is None else self.cache_write
        read_price = self.input if self.cache_read is None else self.cache_read
        plain = tokens_in - written - read
        return (plain * self.input + written * write_price + read * read_price + tokens_out * self.output) / 1e6


def _price(p: Mapping[str, Any]) -> Price:
    write, read = p.get("cacheWrite"), p.get("cacheRead")
    return Price(
        float(p["input"]),
        float(p["output"]),
        None if write is None else float(write),
        None if read is None else float(read),
        float(p.get("batchDiscount", 0.5)),
    )


class Config(NamedTuple):
    path: Path  # absolute
    root: Path  # the config file's directory; relative paths resolve against it
    name: str  # the config file as shown to the user
    skills: Path
    evals: Path
    models: tuple[AdapterEntry, ...]
    grader: AdapterEntry
    reps: int = 3
    gradings: int = 3
    concurrency: int = 4
    timeout_seconds: int = 120
    results: Path = Path(".skill-be/results")
    result_file: Path = Path("skill-be.result.json")
    with_skill_template: str = DEFAULT_WITH_SKILL_TEMPLATE
    grader_prompt: str | None = None
    gate: GateConfig = GateConfig()
    checks: ChecksConfig = ChecksConfig()
    triage_model: AdapterEntry | None = None
    tests: Path | None = None
    code_tests: CodeTestsConfig = CodeTestsConfig()
    places: Places | None = None  # where each key is in the file, for errors found after loading

    def where(self, *keys: str | int) -> Where:
        """A key path of this config, for an error found later (a missing folder, a bad check setting)."""
        w = Where(self.name, places=self.places)
        for k in keys:
            w = w.index(k) if isinstance(k, int) else w.key(k)
        return w

    cache: bool = (
        False  # the response cache (engine/cache.py, results/response_cache.py); --cache and --no-cache override it
    )
    pricing: Mapping[str, Price] = MappingProxyType({})  # model id -> prices (validated by the config model)
    batch: bool = False  # batch mode (adapters/batch.py, wiring/batch.py); run --batch turns it on too
    batch_poll_seconds: float = 30.0  # batchPollSeconds: the first wait between two polls of a batch
    neighbours: tuple[Path, ...] | None = None  # trigger evals; None: every other skill of the project
    trigger_turns: int = DEFAULT_TRIGGER_TURNS
    against: str | None = None  # compare.against: the previous arm's commit (wiring/previous.py)
    grader_template: str = "code"  # grader.template: code (the reference's rules) | generic | evidence
    # grader.evidence: None (no quotes asked), reported (quotes shown) or required (a YES without one is NO)
    grader_evidence: str | None = None
    grader_max_split: float = 0.2  # grader.maxSplitShare: a line whose gradings split on more answers is flagged
    more_graders: tuple[AdapterEntry, ...] = ()  # `grader` as a list: the judges after the first
    pairwise: bool = False  # compare.pairwise: a blind A/B of each rep's answers (engine/pairwise.py)
    pairwise_gate: bool = False  # compare.pairwiseGate: it feeds the gate (commands/run.py pairwise_judge)

    @property
    def graders(self) -> tuple[AdapterEntry, ...]:
        """Every judge: each answer is graded `gradings` times by each; the majority over all decides."""
        return (self.grader, *self.more_graders)


# The keys read as they are (the config model validated them): the file's name -> Config's field.
PLAIN_KEYS = (("reps", "reps"), ("gradings", "gradings"), ("concurrency", "concurrency"),
              ("timeoutSeconds", "timeout_seconds"), ("graderPrompt", "grader_prompt"),
              ("withSkillTemplate", "with_skill_template"), ("cache", "cache"), ("batch", "batch"),
              ("batchPollSeconds", "batch_poll_seconds"))  # fmt: skip


def load_config(path: Path) -> Config:
    """Read and validate the config file; every problem is a ConfigError with one clear line."""
    name = shown(path)
    if not path.exists():
        raise ConfigError(f"{name}: config file not found; create it (see the README) or pass --config <path>")
    text = read_text(path, what="config file")
    data = load_yaml(text, name)
    if data is None:
        raise ConfigError(f"{name}: is empty; it needs at least skills, evals, model and grader")
    from skill_be.project.validation import checked, raise_found

    places = Places(text, "yaml")
    d = checked("config", _model, data, name, places, many=True)
    path = Path(os.path.normpath(path.absolute()))  # `a/../b` shown and compared as `b`
    root = path.parent
    top = Where(name, places=places)
    many = isinstance(d["model"], list)
    entries = d["model"] if many else [d["model"]]
    kw: dict[str, Any] = {attr: d[key] for key, attr in PLAIN_KEYS if key in d}  # the keys the file sets
    if d.get("pricing"):
        kw["pricing"] = {m: _price(p) for m, p in d["pricing"].items()}
    kw["results"] = _resolve(root, d.get("results", DEFAULT_RESULTS))
    kw["result_file"] = _resolve(root, d.get("resultFile", DEFAULT_RESULT_FILE))
    if "tests" in d:
        kw["tests"] = _resolve(root, d["tests"])
    if "gate" in d:
        kw["gate"] = _gate(d["gate"])
    if "checks" in d:
        kw["checks"] = _checks(d["checks"], root)
    if "codeTests" in d:
        kw["code_tests"] = _code_tests(d["codeTests"], root)
    if isinstance(d.get("compare"), dict):
        kw.update(_compare(d["compare"]))
    if "neighbours" in d:
        kw["neighbours"] = tuple(_resolve(root, p) for p in d["neighbours"])
    if "triggerTurns" in d:
        kw["trigger_turns"] = d["triggerTurns"]
    if d.get("triage", {}).get("model") is not None:
        kw["triage_model"] = _entry(d["triage"]["model"], top.key("triage").key("model"))
    found: list[str] = []  # the mistakes the checks after the model find, reported together
    grader = _graders(d["grader"], top.key("grader"), kw, found)
    models = tuple(_entry(e, top.key("model").index(i) if many else top.key("model")) for i, e in enumerate(entries))
    _known_models(kw.get("gate", GateConfig()), models, top.key("gate").key("models"), found)
    raise_found(found)
    return Config(
        path=path,
        root=root,
        name=name,
        skills=_resolve(root, d["skills"]),
        evals=_resolve(root, d["evals"]),
        models=models,
        grader=grader,
        places=places,
        **kw,
    )


def _compare(d: Mapping[str, Any]) -> dict[str, Any]:
    """compare: the previous arm's commit (against) and the blind A/B (pairwise, pairwiseGate)."""
    kw: dict[str, Any] = {}
    if d.get("against"):
        kw["against"] = str(d["against"])
    if d.get("pairwise") or d.get("pairwiseGate"):
        kw["pairwise"] = True  # pairwiseGate implies the comparison
        kw["pairwise_gate"] = bool(d.get("pairwiseGate"))
    return kw


def _known_models(gate: GateConfig, models: Sequence[AdapterEntry], where: Where, found: list[str]) -> None:
    """gate.models names models under test by their labels (the id, or adapter:id when two share one)."""
    ids = [e.id for e in models]
    labels = [f"{e.adapter}:{e.id}" if ids.count(e.id) > 1 else e.id for e in models]
    for i, name in enumerate(gate.models):
        if name not in labels:
            found.append(
                str(
                    where.index(i).error(
                        f'"{name}" is not a model under test; name one of: {", ".join(labels)} (or leave '
                        "gate.models out: every model must hold)"
                    )
                )
            )


def _model() -> type[BaseModel]:
    from skill_be.project.models import ConfigModel

    return ConfigModel


def _resolve(root: Path, value: str) -> Path:
    return Path(os.path.normpath(root / os.path.expanduser(value)))


def _label(value: object) -> str:
    return value if isinstance(value, str) else str(value)  # `id: 4` in YAML is a label, not a number


def _entry(d: Mapping[str, Any], where: Where) -> AdapterEntry:
    settings = {**d, "id": _label(d["id"])}
    return AdapterEntry(adapter=d["adapter"], id=settings["id"], settings=settings, where=where)


GRADER_TEMPLATES = ("code", "generic", "evidence")
EVIDENCE_MODES = ("reported", "required")
GRADER_KEYS = ("template", "evidence", "maxSplitShare")  # skill-be's keys of a grader entry, not the adapter's


def _grader(d: Mapping[str, Any], where: Where, kw: dict[str, Any], found: list[str]) -> AdapterEntry:
    """The grader entry; its `template`, `evidence` and `maxSplitShare` keys are skill-be's (the
    grader's rules, the quotes it gives, how often its gradings may split), not the adapter's."""
    entry = _entry(d, where)
    s = entry.settings
    template = s.get("template", "code")
    if template not in GRADER_TEMPLATES:
        found.append(
            str(
                where.key("template").error(
                    "must be code (the built-in rules for code), generic (for skills not about code) or evidence "
                    f"(generic, with a quote per verdict), not {template!r}"
                )
            )
        )
    if "template" in s:
        kw["grader_template"] = template
    evidence = s.get("evidence", "reported" if template == "evidence" else None)
    if evidence is not None and evidence not in EVIDENCE_MODES:
        found.append(
            str(
                where.key("evidence").error(
                    "must be reported (quotes shown) or required (a YES without a found quote counts as NO), "
                    f"not {evidence!r}"
                )
            )
        )
    kw["grader_evidence"] = evidence
    if "maxSplitShare" in s:
        share = s["maxSplitShare"]
        if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1:
            found.append(
                str(where.key("maxSplitShare").error(f"must be a share from 0 to 1, such as 0.2, not {share!r}"))
            )
        else:
            kw["grader_max_split"] = float(share)
    return entry._replace(settings={k: v for k, v in s.items() if k not in GRADER_KEYS})


def _graders(
    d: Mapping[str, Any] | list[Mapping[str, Any]], where: Where, kw: dict[str, Any], found: list[str]
) -> AdapterEntry:
    """The first judge (with skill-be's grader keys); `grader` as a list puts the others in kw."""
    if not isinstance(d, list):
        return _grader(d, where, kw, found)
    kw["more_graders"] = tuple(_more_grader(j, where.index(i), found) for i, j in enumerate(d) if i)
    return _grader(d[0], where.index(0), kw, found)


def _more_grader(d: Mapping[str, Any], where: Where, found: list[str]) -> AdapterEntry:
    """A second (third, ...) judge: an adapter entry; skill-be's grader keys go on the first one."""
    found += [
        str(where.key(k).error("goes on the first grader entry, which sets it for every judge"))
        for k in GRADER_KEYS
        if k in d
    ]
    return _entry(d, where)


def _gate(d: Mapping[str, Any]) -> GateConfig:
    keys = {"regressionOnCritical": "regression_on_critical", "blockOnZero": "block_on_zero",
            "blockOnErrors": "block_on_errors", "rule": "rule", "inconclusive": "inconclusive",
            "topUpReps": "top_up_reps", "previous": "previous", "errorVerdict": "error_verdict"}  # fmt: skip
    kw: dict[str, Any] = {attr: d[key] for key, attr in keys.items() if key in d}
    if kw.get("previous") is False:  # YAML's bare `off` (project/models.py GateModel._off)
        kw["previous"] = "off"
    if "margin" in d:
        kw["margin"] = float(d["margin"])
    if d.get("trigger"):
        kw["trigger"] = trigger_gate(d["trigger"])
    if d.get("minDelta") is not None:
        kw["min_delta"] = float(d["minDelta"])
    if "maxErrorShare" in d:
        kw["max_error_share"] = float(d["maxErrorShare"])
    if d.get("models"):
        kw["models"] = tuple(str(m) for m in d["models"])
    return GateConfig(**kw)


def _checks(d: Mapping[str, Any], root: Path) -> ChecksConfig:
    typecheck: TypecheckConfig | bool | None
    t = d.get("typecheck")
    if t is None or isinstance(t, bool):
        typecheck = t  # None: the check picks its default; True: the default preset, switched on explicitly
    else:
        typecheck = TypecheckConfig(
            preset=t.get("preset"),
            library=t.get("library"),
            preludes={k: _resolve(root, p) for k, p in t.get("preludes", {}).items()},
            blocking=t.get("blocking", True),
            command=t.get("command"),
            mypy=t.get("mypy", False),
        )
    c = d.get("coverage")
    coverage = None
    if c is not None and c is not False:
        coverage = CoverageConfig(
            preset=c.get("preset"),
            entry=c.get("entry"),
            ignore=tuple(c.get("ignore", ())),
            blocking=c.get("blocking", False),
            command=c.get("command"),
        )
    return ChecksConfig(typecheck=typecheck, coverage=coverage)


def _code_tests(d: Mapping[str, Any], root: Path) -> CodeTestsConfig:
    keys = {"testTimeoutSeconds": "test_timeout_seconds", "answerTimeoutSeconds": "answer_timeout_seconds",
            "sandbox": "sandbox", "image": "image", "memoryMb": "memory_mb", "pids": "pids"}  # fmt: skip
    kw: dict[str, Any] = {attr: d[key] for key, attr in keys.items() if key in d}
    if "packages" in d:
        kw["packages"] = _resolve(root, d["packages"])
    if "packagesBySkill" in d:
        kw["packages_by_skill"] = {k: _resolve(root, p) for k, p in d["packagesBySkill"].items()}
    if "allow" in d:
        kw["allow"] = tuple(d["allow"])
    if "cpus" in d:
        kw["cpus"] = float(d["cpus"])
    return CodeTestsConfig(**kw)


def named_mistakes(config: Config) -> list[str]:
    """A line for each folder or file the config names that does not exist (or is the wrong kind of thing)."""
    ct = config.code_tests
    return _named(config.where(), config.skills, config.evals, config.tests, ct.packages, ct.packages_by_skill)


def named_mistakes_of_file(path: Path) -> list[str]:
    """`named_mistakes` for a config its model refused: each folder or file whose key holds a usable
    value (a non-empty string) is checked, the others are left to the model's own lines, so that one
    run lists both."""
    name = shown(path)
    text = read_text(path, what="config file")
    data = load_yaml(text, name)
    if not isinstance(data, dict):
        return []
    root = Path(os.path.normpath(path.absolute())).parent

    def usable(value: object) -> Path | None:
        return _resolve(root, value) if isinstance(value, str) and value.strip() else None

    raw = data.get("codeTests")
    code_tests: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
    by_skill = code_tests.get("packagesBySkill")
    packages = (
        {k: p for k, v in by_skill.items() if isinstance(k, str) and (p := usable(v))}
        if isinstance(by_skill, dict)
        else {}
    )
    skills, evals = usable(data.get("skills")), usable(data.get("evals"))
    top = Where(name, places=Places(text, "yaml"))
    return _named(top, skills, evals, usable(data.get("tests")), usable(code_tests.get("packages")), packages)


def _named(
    top: Where,
    skills: Path | None,
    evals: Path | None,
    tests: Path | None,
    packages: Path | None,
    by_skill: Mapping[str, Path],
) -> list[str]:
    """The folders and package lists checked, each one that is known (None: its key is the model's mistake)."""
    found: list[str] = []
    folders = [(key, p) for key, p in (("skills", skills), ("evals", evals), ("tests", tests)) if p is not None]
    for key, p in folders:
        if key == "evals" and not p.exists() and (skills is None or any(skills.glob("*/evals/evals.json"))):
            continue  # the skills keep evals/evals.json files (convert creates it), or skills is a mistake itself
        if not p.is_dir():
            what = "is a file, not a folder" if p.exists() else "does not exist"
            found.append(str(top.key(key).error(f"folder {shown(p)} {what}; create it or fix the path")))
    lists: list[tuple[tuple[str, ...], Path | None]] = [(("codeTests", "packages"), packages)]
    lists += [(("codeTests", "packagesBySkill", k), p) for k, p in by_skill.items()]
    for keys, lp in lists:
        if lp is not None and not lp.is_file():
            what = "is a folder, not a file" if lp.exists() else "does not exist"
            w = top
            for k in keys:
                w = w.key(k)
            found.append(str(w.error(f"package list {shown(lp)} {what}; create it or fix the path")))
    if skills is not None and skills.is_dir():
        found += _unknown_package_skills(top, skills, by_skill)
    return found


def _unknown_package_skills(top: Where, skills: Path, by_skill: Mapping[str, Path]) -> list[str]:
    """A line for each codeTests.packagesBySkill entry that names no skill folder."""
    w = top.key("codeTests").key("packagesBySkill")
    return [
        str(
            Where(w.file, w.path, (*w.loc, name), w.places).error(
                f'"{name}" names no skill in {shown(skills)} '
                f"(no {shown(skills / name / 'SKILL.md')}); fix the name or remove the entry"
            )
        )
        for name in by_skill
        if not (skills / name / "SKILL.md").is_file()
    ]
