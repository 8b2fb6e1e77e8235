"""skill-be.yaml: every key, its default and its validation."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project import where as v
from skill_be.project.files import read_text
from skill_be.project.where import Where
from skill_be.project.yamlfile import load_yaml

MAX_TIMEOUT = 2147483  # seconds: the longest a Node timer holds, kept for compatibility

DEFAULT_WITH_SKILL_TEMPLATE = """You have access to the following library. Use its APIs when writing the code.

--- LIBRARY DOCS ---
{{skill}}
--- END LIBRARY DOCS ---

Task: {{task}}"""

TOP_KEYS = (
    "skills", "evals", "model", "grader", "reps", "gradings", "concurrency", "timeoutSeconds",
    "results", "resultFile", "withSkillTemplate", "graderPrompt", "gate", "checks", "triage",
    "tests", "codeTests", "cache", "pricing",
)  # fmt: skip
GATE_KEYS = ("regressionOnCritical", "blockOnZero", "blockOnErrors", "rule", "margin", "inconclusive", "topUpReps")
CHECKS_KEYS = ("typecheck", "coverage")
TYPECHECK_KEYS = ("library", "preludes", "blocking", "command", "preset", "mypy")
COVERAGE_KEYS = ("entry", "ignore", "blocking", "command", "preset")
TRIAGE_KEYS = ("model",)
CODE_TESTS_KEYS = (
    "packages", "packagesBySkill", "testTimeoutSeconds", "answerTimeoutSeconds", "allow",
    "sandbox", "image", "memoryMb", "cpus", "pids",
)  # fmt: skip
REQUIRED = {
    "skills": "the folder with one folder per skill, each holding a SKILL.md",
    "evals": "the folder with one <skill>.json eval file per skill",
    "model": "the model under test: an entry with adapter and id, or a list of them",
    "grader": "the judge: an entry with adapter and id",
}
PRESETS = ("typescript", "python")
SANDBOXES = ("auto", "docker", "process")


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
    top_up_reps: int = 20  # the most reps --top-up may bring an inconclusive scenario to


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
    cache: bool = False  # the response cache (engine/cache.py); --cache and --no-cache override it
    pricing: Mapping[str, object] = MappingProxyType({})  # model id -> prices; engine/pricing.py validates it


def load_config(path: Path) -> Config:
    """Read and validate the config file; every problem is a ConfigError with one clear line."""
    name = shown(path)
    if not path.exists():
        raise ConfigError(f"{name}: config file not found; create it (see the README) or pass --config <path>")
    text = read_text(path, what="config file")
    data = load_yaml(text, name)
    if data is None:
        raise ConfigError(f"{name}: is empty; it needs at least skills, evals, model and grader")
    top = Where(name)
    m = v.mapping(data, top, TOP_KEYS)
    path = Path(os.path.normpath(path.absolute()))  # `a/../b` shown and compared as `b`
    root = path.parent

    def required(key: str) -> object:
        if key not in m:
            raise top.error(f'missing required key "{key}" ({REQUIRED[key]})')
        if m[key] is None:
            raise top.key(key).error(f"is empty; set it to {REQUIRED[key]}")
        return m[key]

    def folder(key: str) -> Path:
        return _resolve(root, v.string(required(key), top.key(key)))

    skills, evals = folder("skills"), folder("evals")
    models = _models(required("model"), top.key("model"))
    grader = adapter_entry(required("grader"), top.key("grader"))
    kw: dict[str, object] = {}
    for key, attr, maximum in (
        ("reps", "reps", None),
        ("gradings", "gradings", None),
        ("concurrency", "concurrency", None),
        ("timeoutSeconds", "timeout_seconds", MAX_TIMEOUT),
    ):
        if m.get(key) is not None:
            kw[attr] = v.positive_int(m[key], top.key(key), maximum)
    for key, attr in (("results", "results"), ("resultFile", "result_file")):
        kw[attr] = _resolve(root, v.string(m[key], top.key(key)) if m.get(key) is not None else None, attr)
    if m.get("withSkillTemplate") is not None:
        kw["with_skill_template"] = _template(m["withSkillTemplate"], top.key("withSkillTemplate"))
    if m.get("graderPrompt") is not None:
        kw["grader_prompt"] = v.string(m["graderPrompt"], top.key("graderPrompt"))
    if m.get("gate") is not None:
        kw["gate"] = _gate(m["gate"], top.key("gate"))
    if m.get("checks") is not None:
        kw["checks"] = _checks(m["checks"], top.key("checks"), root)
    if m.get("triage") is not None:
        t = v.mapping(m["triage"], top.key("triage"), TRIAGE_KEYS)
        if t.get("model") is not None:
            kw["triage_model"] = adapter_entry(t["model"], top.key("triage").key("model"))
    if m.get("tests") is not None:
        kw["tests"] = _resolve(root, v.string(m["tests"], top.key("tests")))
    if m.get("codeTests") is not None:
        kw["code_tests"] = _code_tests(m["codeTests"], top.key("codeTests"), root)
    if m.get("cache") is not None:
        kw["cache"] = v.boolean(m["cache"], top.key("cache"))
    if m.get("pricing") is not None:
        kw["pricing"] = m["pricing"]
    return Config(
        path=path, root=root, name=name, skills=skills, evals=evals, models=models,
        grader=grader, **kw,  # type: ignore[arg-type]
    )  # fmt: skip


_DEFAULT_PATHS = {"results": ".skill-be/results", "result_file": "skill-be.result.json"}


def _resolve(root: Path, value: str | None, default_key: str = "") -> Path:
    raw = value if value is not None else _DEFAULT_PATHS[default_key]
    return Path(os.path.normpath(root / os.path.expanduser(raw)))


def adapter_entry(value: object, where: Where) -> AdapterEntry:
    """An adapter entry accepts any key, but needs a non-empty `adapter` and `id`."""
    if not isinstance(value, dict):
        raise where.error(
            f"must be an entry with adapter and id (such as adapter: claude-cli and id: claude-sonnet-5-5 "
            f"on their own lines), not {v.type_name(value)}"
        )
    m = v.mapping(value, where)
    for key in ("adapter", "id"):
        if m.get(key) is None:
            raise where.error(f'missing required key "{key}" (an entry needs adapter and id)')
    adapter = v.string(m["adapter"], where.key("adapter"))
    ident = m["id"]
    if isinstance(ident, int | float) and not isinstance(ident, bool):
        ident = str(ident)  # `id: 4` in YAML is a label, not a number
    return AdapterEntry(adapter=adapter, id=v.string(ident, where.key("id")), settings=dict(m), where=where)


def _models(value: object, where: Where) -> tuple[AdapterEntry, ...]:
    if isinstance(value, list):
        if not value:
            raise where.error("must be an entry or a non-empty list of entries")
        return tuple(adapter_entry(item, where.index(i)) for i, item in enumerate(value))
    return (adapter_entry(value, where),)


def _template(value: object, where: Where) -> str:
    text = v.string(value, where)
    missing = [p for p in ("{{skill}}", "{{task}}") if p not in text]
    if missing:
        raise where.error(f"must contain {' and '.join(missing)}, where the skill text and the task go")
    return text


def _gate(value: object, where: Where) -> GateConfig:
    m = v.mapping(value, where, GATE_KEYS)
    return GateConfig(
        regression_on_critical=_bool(m, "regressionOnCritical", where, True),
        block_on_zero=_bool(m, "blockOnZero", where, True),
        block_on_errors=_bool(m, "blockOnErrors", where, True),
        rule=_choice(m, "rule", where, ("strict", "evidence"), "strict"),
        margin=_margin(m, where),
        inconclusive=_choice(m, "inconclusive", where, ("pass", "block"), "pass"),
        top_up_reps=20 if m.get("topUpReps") is None else v.positive_int(m["topUpReps"], where.key("topUpReps")),
    )


def _choice(m: Mapping[str, object], key: str, where: Where, choices: tuple[str, ...], default: str) -> str:
    if m.get(key) is None:
        return default
    value = v.string(m[key], where.key(key))
    if value not in choices:
        raise where.key(key).error(
            f'unknown value "{value}"{v.did_you_mean(value, choices)}; use {" or ".join(choices)}'
        )
    return value


def _margin(m: Mapping[str, object], where: Where) -> float:
    if m.get("margin") is None:
        return 30.0
    value = v.positive_number(m["margin"], where.key("margin"))
    if value > 100:
        raise where.key("margin").error(f"must be at most 100 percentage points, not {value:g}")
    return value


def _bool(m: Mapping[str, object], key: str, where: Where, default: bool) -> bool:
    return default if m.get(key) is None else v.boolean(m[key], where.key(key))


def _opt_str(m: Mapping[str, object], key: str, where: Where) -> str | None:
    return None if m.get(key) is None else v.string(m[key], where.key(key))


def _preset(m: Mapping[str, object], where: Where) -> str | None:
    preset = _opt_str(m, "preset", where)
    if preset is not None and preset not in PRESETS:
        raise where.key("preset").error(
            f'unknown preset "{preset}"{v.did_you_mean(preset, PRESETS)}; use typescript or python, '
            "or set command for another language"
        )
    return preset


def _checks(value: object, where: Where, root: Path) -> ChecksConfig:
    m = v.mapping(value, where, CHECKS_KEYS)
    typecheck: TypecheckConfig | bool | None = None
    coverage: CoverageConfig | None = None
    tw = where.key("typecheck")
    t = m.get("typecheck")
    if t is False:
        typecheck = False
    elif t is True:
        typecheck = True  # the default preset, switched on explicitly
    elif t is not None:
        if not isinstance(t, dict):
            raise tw.error(f"must be false (off) or a mapping of settings, not {v.type_name(t)}")
        tm = v.mapping(t, tw, TYPECHECK_KEYS)
        preludes = {k: _resolve(root, p) for k, p in v.string_map(tm.get("preludes") or {}, tw.key("preludes")).items()}
        typecheck = TypecheckConfig(
            preset=_preset(tm, tw),
            library=_opt_str(tm, "library", tw),
            preludes=preludes,
            blocking=_bool(tm, "blocking", tw, True),
            command=_opt_str(tm, "command", tw),
            mypy=_bool(tm, "mypy", tw, False),
        )
        if typecheck.command and typecheck.preset:
            raise tw.error("set either preset or command, not both: command replaces the preset")
    cw = where.key("coverage")
    c = m.get("coverage")
    if c is not None and c is not False:
        if not isinstance(c, dict):
            raise cw.error(f"must be false (off) or a mapping of settings with entry or command, not {v.type_name(c)}")
        cm = v.mapping(c, cw, COVERAGE_KEYS)
        coverage = CoverageConfig(
            preset=_preset(cm, cw),
            entry=_opt_str(cm, "entry", cw),
            ignore=v.string_list(cm.get("ignore") or [], cw.key("ignore")),
            blocking=_bool(cm, "blocking", cw, False),
            command=_opt_str(cm, "command", cw),
        )
        if coverage.command and coverage.preset:
            raise cw.error("set either preset or command, not both: command replaces the preset")
        if not coverage.command and not coverage.entry:
            raise cw.error('missing required key "entry" (the library entry whose API must be covered), or set command')
    return ChecksConfig(typecheck=typecheck, coverage=coverage)


def _code_tests(value: object, where: Where, root: Path) -> CodeTestsConfig:
    m = v.mapping(value, where, CODE_TESTS_KEYS)
    kw: dict[str, object] = {}
    if m.get("packages") is not None:
        kw["packages"] = _resolve(root, v.string(m["packages"], where.key("packages")))
    if m.get("packagesBySkill") is not None:
        kw["packages_by_skill"] = {
            k: _resolve(root, p) for k, p in v.string_map(m["packagesBySkill"], where.key("packagesBySkill")).items()
        }
    for key, attr, maximum in (
        ("testTimeoutSeconds", "test_timeout_seconds", MAX_TIMEOUT),
        ("answerTimeoutSeconds", "answer_timeout_seconds", MAX_TIMEOUT),
        ("memoryMb", "memory_mb", 1 << 20),
        ("pids", "pids", 1 << 16),
    ):
        if m.get(key) is not None:
            kw[attr] = v.positive_int(m[key], where.key(key), maximum)
    if m.get("cpus") is not None:
        kw["cpus"] = v.positive_number(m["cpus"], where.key("cpus"))
    if m.get("allow") is not None:
        kw["allow"] = v.string_list(m["allow"], where.key("allow"))
    if m.get("sandbox") is not None:
        sandbox = v.string(m["sandbox"], where.key("sandbox"))
        if sandbox not in SANDBOXES:
            raise where.key("sandbox").error(
                f'unknown sandbox "{sandbox}"{v.did_you_mean(sandbox, SANDBOXES)}; use auto, docker or process'
            )
        kw["sandbox"] = sandbox
    if m.get("image") is not None:
        kw["image"] = v.string(m["image"], where.key("image"))
    return CodeTestsConfig(**kw)  # type: ignore[arg-type]


def check_named(config: Config) -> None:
    """Raise when a folder or file the config names does not exist (or is the wrong kind of thing)."""
    folders = [("skills", config.skills), ("evals", config.evals)]
    if config.tests is not None:
        folders.append(("tests", config.tests))
    for key, p in folders:
        if not p.is_dir():
            what = "is a file, not a folder" if p.exists() else "does not exist"
            raise ConfigError(f"{config.name}: {key}: folder {shown(p)} {what}; create it or fix the path")
    lists = [("codeTests.packages", config.code_tests.packages)]
    lists += [(f"codeTests.packagesBySkill.{k}", p) for k, p in config.code_tests.packages_by_skill.items()]
    for key, lp in lists:
        if lp is not None and not lp.is_file():
            what = "is a folder, not a file" if lp.exists() else "does not exist"
            raise ConfigError(f"{config.name}: {key}: package list {shown(lp)} {what}; create it or fix the path")
