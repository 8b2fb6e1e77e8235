"""The TypeScript typecheck preset and coverage preset, run through the real Node helper."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from skill_be.checks import validate_checks
from skill_be.checks.runner import Collected, collect
from skill_be.errors import ConfigError
from skill_be.project.loader import load_project

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "checks"

RULES_TYPECHECK = (
    "typecheck: 8 problem(s)",
    '  - skill "basics", SKILL.md line 18: error TS2554: Expected 2 arguments, but got 3.',
    '  - skill "basics", SKILL.md line 24: error TS2554: Expected 1 arguments, but got 2.',
    "  - skill \"basics\", SKILL.md line 25: error TS2339: Property 'minus' does not exist on type 'Weight'.",
    "  - skill \"basics\", SKILL.md line 26: error TS2345: Argument of type 'string' is not assignable to "
    "parameter of type 'number'.",
    "  - skill \"basics\", SKILL.md line 27: error TS2341: Property 'unit' is private and only accessible "
    "within class 'Weight'.",
    '  - skill "basics", SKILL.md line 50: error TS2362: The left-hand side of an arithmetic operation must be '
    "of type 'any', 'number', 'bigint' or an enum type.",
    '  - skill "basics", SKILL.md line 71: error TS2554: Expected 1 arguments, but got 2.',
    "  - skill \"store\", SKILL.md line 9: error TS2345: Argument of type 'Weight' is not assignable to "
    "parameter of type 'number'.",
)


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> tuple[Collected, list[str], Path]:
    root = tmp_path_factory.mktemp("rules") / "rules"
    shutil.copytree(FIXTURES / "rules", root)
    warnings: list[str] = []
    project = load_project(root / "skill-be.yaml")
    return collect(project, warnings.append), warnings, root


def test_every_rule_of_the_preset_with_exact_skill_md_lines(rules: tuple[Collected, list[str], Path]) -> None:
    # Lines 18 (an alias carried over from an earlier block), 24-27 (library exports in scope),
    # 50 (arithmetic on a value, not a call), 71 (import by the package.json name), store line 9
    # (its prelude's global). Lines 33-43 hold only tolerated errors (TS2304, TS2552, TS2584,
    # TS18046, call / call, a DOM global); the skip block, the js block and the block that does not
    # parse add nothing; `db` at basics line 76 is unknown there, since the prelude is the store skill's.
    collected, _, _ = rules
    typecheck = collected.outcomes[0]
    assert typecheck.lines == RULES_TYPECHECK
    assert typecheck.blocks is True
    assert typecheck.blocker == "the typecheck"


def test_problems_carry_file_and_line(rules: tuple[Collected, list[str], Path]) -> None:
    collected, _, root = rules
    first = collected.outcomes[0].problems[0]
    assert first.file == root / "skills" / "basics" / "SKILL.md"
    assert first.line == 18
    assert first.skill == "basics"
    assert first.message == "error TS2554: Expected 2 arguments, but got 3."
    assert [p.line for p in collected.outcomes[0].problems] == [18, 24, 25, 26, 27, 50, 71, 9]


def test_a_block_that_does_not_parse_is_skipped_with_a_warning(rules: tuple[Collected, list[str], Path]) -> None:
    _, warnings, _ = rules
    assert warnings == [
        'warning: skill "basics", SKILL.md line 60: the typecheck skips a block that does not parse '
        '(Invalid character.); write "skip" after its language to skip it on purpose'
    ]


def test_coverage_reads_exports_and_public_class_members_with_ignore(
    rules: tuple[Collected, list[str], Path],
) -> None:
    # Weight.unit is private, describe protected, #secret a private name; MAX_GRAMS is ignored;
    # Weight.grams and Weight.of are covered by the member names alone.
    collected, _, _ = rules
    coverage = collected.outcomes[1]
    assert coverage.lines == (
        "coverage: 2 API name(s) not mentioned in any SKILL.md or eval file, not blocking: Unit, Weight.plus",
    )
    assert coverage.blocks is False
    assert collected.coverage_names is not None
    assert sorted(collected.coverage_names) == sorted(
        ["Unit", "Weight", "Weight.grams", "Weight.of", "Weight.plus", "total", "MAX_GRAMS"]
    )


def test_coverage_blocking_and_a_mention_in_an_eval_string(copy_fixture: Callable[[str], Path]) -> None:
    root = copy_fixture("rules")
    config = root / "skill-be.yaml"
    config.write_text(config.read_text().replace("ignore: [MAX_GRAMS]", "ignore: [MAX_GRAMS]\n    blocking: true"))
    data = json.loads((root / "evals" / "store.json").read_text())
    data["scenarios"][0]["criteria"] = ["Adds them with plus"]
    (root / "evals" / "store.json").write_text(json.dumps(data))
    outcomes = collect(load_project(config), lambda _: None).outcomes
    assert outcomes[1].lines == ("coverage: 1 API name(s) not mentioned in any SKILL.md or eval file: Unit",)
    assert outcomes[1].blocks is True
    assert outcomes[1].blocker == "the coverage check"


def test_the_reference_example_passes_and_its_two_mistakes_fail_at_their_lines(
    copy_fixture: Callable[[str], Path],
) -> None:
    root = copy_fixture("tiny-money")
    project = load_project(root / "skill-be.yaml")
    outcomes = collect(project, lambda _: None).outcomes
    assert [o.lines for o in outcomes] == [
        ("typecheck: passed (1 skill(s))",),
        ("coverage: every API name is mentioned",),
    ]
    md = root / "skills" / "money" / "SKILL.md"
    text = md.read_text()
    md.write_text(text.replace("allocate([1, 1, 1])", "allocate(1, 1, 1)"))
    outcomes = collect(load_project(root / "skill-be.yaml"), lambda _: None).outcomes
    assert outcomes[0].lines == (
        "typecheck: 1 problem(s)",
        '  - skill "money", SKILL.md line 52: error TS2554: Expected 1 arguments, but got 3.',
    )
    md.write_text(
        text.replace("import { Money } from 'tiny-money';\n\nconst [alice", "const x = Money.from(1);\nconst [alice")
    )
    outcomes = collect(load_project(root / "skill-be.yaml"), lambda _: None).outcomes
    assert outcomes[0].lines == (
        "typecheck: 1 problem(s)",
        "  - skill \"money\", SKILL.md line 50: error TS2339: Property 'from' does not exist on type 'typeof Money'.",
    )


def test_library_as_a_package_name_from_node_modules(make_project: Callable[..., Path]) -> None:
    config = make_project(
        "checks:\n  typecheck:\n    library: boxes\n    blocking: false\n",
        skills={"demo": "# Demo\n\n```ts\nconst b = box(1);\nconst c = box('x');\n```\n"},
        files={
            "node_modules/boxes/package.json": '{"name": "boxes", "types": "index.d.ts"}',
            "node_modules/boxes/index.d.ts": "export declare function box(n: number): { n: number };\n",
        },
    )
    outcomes = collect(load_project(config), lambda _: None).outcomes
    assert outcomes[0].lines == (
        "typecheck: 1 problem(s), not blocking",
        "  - skill \"demo\", SKILL.md line 5: error TS2345: Argument of type 'string' is not assignable to "
        "parameter of type 'number'.",
    )
    assert outcomes[0].blocks is False


def test_default_typecheck_is_on_with_a_project_typescript_and_off_without(
    make_project: Callable[..., Path], our_typescript: Path
) -> None:
    skills = {"demo": "# Demo\n\nText.\n\n```ts\nconst n: number = 'x';\n```\n"}
    config = make_project("", skills=skills)
    assert [o.lines for o in collect(load_project(config), lambda _: None).outcomes] == [
        ("typecheck: off",),
        ("coverage: off",),
    ]
    (config.parent / "node_modules").mkdir()
    os.symlink(our_typescript, config.parent / "node_modules" / "typescript")
    outcomes = collect(load_project(config), lambda _: None).outcomes
    assert outcomes[0].lines == (
        "typecheck: 1 problem(s)",
        "  - skill \"demo\", SKILL.md line 6: error TS2322: Type 'string' is not assignable to type 'number'.",
    )
    assert outcomes[0].blocks is True
    config.write_text(config.read_text() + "checks:\n  typecheck: false\n")
    assert collect(load_project(config), lambda _: None).outcomes[0].lines == ("typecheck: off",)


def test_a_prelude_with_imports_carries_its_imports_and_exports(make_project: Callable[..., Path]) -> None:
    config = make_project(
        "checks:\n  typecheck:\n    library: ./lib.ts\n    preludes:\n      demo: ./prelude.ts\n",
        skills={"demo": "# Demo\n\n```ts\nconst s: string = makeBox();\nconst t: Box = { n: 1 };\n```\n"},
        files={
            "lib.ts": "export interface Box { n: number }\n",
            "prelude.ts": "import type { Box } from './lib';\nexport declare function makeBox(): Box;\n",
        },
    )
    outcomes = collect(load_project(config), lambda _: None).outcomes
    assert outcomes[0].lines == (
        "typecheck: 1 problem(s)",
        "  - skill \"demo\", SKILL.md line 4: error TS2322: Type 'Box' is not assignable to type 'string'.",
    )


@pytest.mark.parametrize(
    ("checks", "files", "expected"),
    [
        (
            "checks:\n  typecheck:\n    library: ./lib/missing.ts\n",
            {},
            "skill-be.yaml: checks.typecheck.library: ",
        ),
        (
            "checks:\n  typecheck:\n    library: not-installed\n",
            {},
            'skill-be.yaml: checks.typecheck.library: package "not-installed" is not installed in node_modules',
        ),
        (
            "checks:\n  typecheck:\n    preludes:\n      demo: ./typecheck/demo.ts\n",
            {},
            "skill-be.yaml: checks.typecheck.preludes.demo: prelude ",
        ),
        (
            "checks:\n  typecheck:\n    preludes:\n      nope: ./p.ts\n",
            {"p.ts": "declare const x: number;\n"},
            'skill-be.yaml: checks.typecheck.preludes: "nope" names no skill',
        ),
        (
            "checks:\n  coverage:\n    entry: ./lib/none.ts\n",
            {},
            "skill-be.yaml: checks.coverage.entry: ",
        ),
        (
            "checks:\n  typecheck:\n    command: no-such-checker --strict\n",
            {},
            'skill-be.yaml: checks.typecheck.command: cannot start "no-such-checker" (not found)',
        ),
    ],
)
def test_a_bad_check_setting_is_a_config_error(
    make_project: Callable[..., Path],
    checks: str,
    files: dict[str, str],
    expected: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = make_project(checks, files=files)
    monkeypatch.chdir(config.parent)
    with pytest.raises(ConfigError) as e:
        validate_checks(load_project(config), lambda _: None)
    placed = re.match(r"^skill-be\.yaml:\d+:\d+: ", str(e.value))  # the setting's line and column
    assert placed, str(e.value)
    assert str(e.value).replace(placed.group(0), "skill-be.yaml: ", 1).startswith(expected)
    assert "\n" not in str(e.value)


def test_without_node_a_typescript_check_is_a_config_error(
    make_project: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = make_project("checks:\n  typecheck: true\n")
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(ConfigError) as e:
        validate_checks(load_project(config), lambda _: None)
    assert "Node.js 20 or newer" in str(e.value)
