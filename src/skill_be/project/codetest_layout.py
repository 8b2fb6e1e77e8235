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
SHARED = "_shared"
DEFAULT_PACKAGE_LIST = "test-packages.json"


def test_files(config: Config, skill: str, evals: EvalFile) -> dict[str, Path]:
    """Scenario id to its test file, after checking the reference's layout rules."""
    with_output = [s for s in evals.scenarios if s.output is not None]
    if config.tests is None:
        if with_output:
            s = with_output[0]
            raise ConfigError(
                f'{evals.at(s.id, "output")}: scenario "{s.id}" has an output, but {config.name} sets no "tests" folder; '
                "add tests: ./skill-tests and put its tests in skill-tests/"
                f"{skill}/{s.id}{TEST_SUFFIX}"
            )
        return {}
    folder = config.tests / skill
    found: dict[str, Path] = {}
    if folder.is_dir():
        for p in sorted(folder.iterdir()):
            if p.is_file() and p.name.endswith(TEST_SUFFIX):
                found[p.name[: -len(TEST_SUFFIX)]] = p
    for sid, path in found.items():
        scenario = evals.scenario(sid)
        if scenario is None:
            ids = ", ".join(s.id for s in evals.scenarios)
            raise ConfigError(
                f"{shown(path)}: names no scenario of {shown(evals.path)} (its scenarios: {ids}); "
                f"rename it to <scenario id>{TEST_SUFFIX}, or rename it without {TEST_SUFFIX} to make it a helper"
            )
        if scenario.output is None:
            raise ConfigError(
                f'{shown(path)}: scenario "{sid}" has no "output" in {shown(evals.path)}; '
                "add an output contract to the scenario, or remove the test file"
            )
    for s in with_output:
        if s.id not in found:
            raise ConfigError(
                f'{evals.at(s.id, "output")}: scenario "{s.id}" has an output but no test file; '
                f"create {shown(folder / (s.id + TEST_SUFFIX))}"
            )
    return found


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
