"""Where code tests live, and the layout rules checked before anything runs."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.config import Config
from skill_be.project.evals import EvalFile
from skill_be.project.where import Where

TEST_SUFFIX = ".test.ts"
PY_TEST_PREFIX = "test_"  # a Python scenario's tests: test_<scenario id>.py
PY_SUFFIX = ".py"
SHARED = "_shared"
DEFAULT_PACKAGE_LIST = "test-packages.json"


def test_file_name(scenario_id: str, language: str) -> str:
    """The file that holds a scenario's tests: `<id>.test.ts`, or `test_<id>.py` for Python."""
    return f"{PY_TEST_PREFIX}{scenario_id}{PY_SUFFIX}" if language == "python" else f"{scenario_id}{TEST_SUFFIX}"


def _found(folder: Path, python: bool) -> dict[str, Path]:
    """Scenario id to each test file in `folder`: `*.test.ts`, and `test_*.py` when the skill has a
    Python scenario (otherwise such a file is a helper, as it always was)."""
    found: dict[str, Path] = {}
    if folder.is_dir():
        for p in sorted(folder.iterdir()):
            if p.is_file() and p.name.endswith(TEST_SUFFIX):
                found[p.name[: -len(TEST_SUFFIX)]] = p
            elif python and p.is_file() and p.name.startswith(PY_TEST_PREFIX) and p.name.endswith(PY_SUFFIX):
                sid = p.name[len(PY_TEST_PREFIX) : -len(PY_SUFFIX)]
                if sid in found:
                    raise ConfigError(
                        f'{shown(p)}: scenario "{sid}" also has {shown(found[sid])}; keep the one its language needs'
                    )
                found[sid] = p
    return found


def test_files(config: Config, skill: str, evals: EvalFile) -> dict[str, Path]:
    """Scenario id to its test file, after checking the reference's layout rules."""
    with_output = [s for s in evals.scenarios if s.output is not None]
    if config.tests is None:
        if with_output:
            s = with_output[0]
            raise ConfigError(
                f'{evals.at(s.id, "output")}: scenario "{s.id}" has an output, but {config.name} sets no "tests" folder; '
                "add tests: ./skill-tests and put its tests in skill-tests/"
                f"{skill}/{test_file_name(s.id, s.language)}"
            )
        return {}
    folder = config.tests / skill
    found = _found(folder, any(s.language == "python" for s in with_output))
    for sid, path in found.items():
        scenario = evals.scenario(sid)
        python = path.name.endswith(PY_SUFFIX)
        if scenario is None:
            ids = ", ".join(s.id for s in evals.scenarios)
            pattern, affix = (
                (f"{PY_TEST_PREFIX}<scenario id>{PY_SUFFIX}", f"the {PY_TEST_PREFIX} prefix")
                if python
                else (
                    f"<scenario id>{TEST_SUFFIX}",
                    TEST_SUFFIX,
                )
            )
            raise ConfigError(
                f"{shown(path)}: names no scenario of {shown(evals.path)} (its scenarios: {ids}); "
                f"rename it to {pattern}, or rename it without {affix} to make it a helper"
            )
        if scenario.output is None:
            raise ConfigError(
                f'{shown(path)}: scenario "{sid}" has no "output" in {shown(evals.path)}; '
                "add an output contract to the scenario, or remove the test file"
            )
        if python != (scenario.language == "python"):
            raise ConfigError(
                f'{shown(path)}: scenario "{sid}" is written in {_language_name(scenario.language)} '
                f"(output.language), so its tests go in {shown(folder / test_file_name(sid, scenario.language))}"
            )
    for s in with_output:
        if s.id not in found:
            raise ConfigError(
                f'{evals.at(s.id, "output")}: scenario "{s.id}" has an output but no test file; '
                f"create {shown(folder / test_file_name(s.id, s.language))}"
            )
    return found


def _language_name(language: str) -> str:
    return "Python" if language == "python" else "TypeScript"


def package_list(config: Config, skill: str) -> Path | None:
    """The package list a skill with code tests uses: by skill, the default, test-packages.json, or none."""
    by_skill: Mapping[str, Path] = config.code_tests.packages_by_skill
    if skill in by_skill:
        return _existing(by_skill[skill], config.where("codeTests", "packagesBySkill", skill))
    if config.code_tests.packages is not None:
        return _existing(config.code_tests.packages, config.where("codeTests", "packages"))
    beside = config.root / DEFAULT_PACKAGE_LIST
    return beside if beside.is_file() else None


def _existing(path: Path, where: Where) -> Path:
    if not path.is_file():
        raise where.error(f"package list {shown(path)} does not exist; create it or fix the path")
    return path
