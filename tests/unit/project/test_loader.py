"""Loading a project: pairing skills with eval files, warnings, named skills, layout rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.errors import error_of as one_line_error
from tests.unit.project.placed import unplaced
from tests.unit.project.projectdir import ProjectDir, coded, judge

from skill_be.project.loader import load_project


def load(project: ProjectDir, names: tuple[str, ...] = ()) -> tuple[object, list[str]]:
    warnings: list[str] = []
    return load_project(project.config, names, warnings.append), warnings


def error_of(project: ProjectDir, monkeypatch: pytest.MonkeyPatch, names: tuple[str, ...] = ()) -> str:
    monkeypatch.chdir(project.root)
    warnings: list[str] = []
    message = one_line_error(lambda: load_project(project.config, names, warnings.append))
    assert warnings == []  # a config error is the only line
    return unplaced(message)


def test_skills_pair_with_eval_files_in_name_order(project: ProjectDir) -> None:
    project.skill("zeta", [judge()])
    project.skill("alpha", [judge("x"), judge("y")], md="---\nname: Alpha Money\n---\n```ts\nx\n```\n")
    project.skill("draft")  # no eval file
    project.write("skills/notes/README.md", "not a skill")
    project.write("evals/orphan.json", "not even json")  # an eval file without a skill is not read
    p, warnings = load(project)
    assert [s.name for s in p.skills] == ["alpha", "zeta"]  # type: ignore[attr-defined]
    assert p.all_names == ("alpha", "zeta")  # type: ignore[attr-defined]
    alpha = p.skills[0]  # type: ignore[attr-defined]
    assert alpha.doc.name == "Alpha Money" and alpha.dir == project.root / "skills" / "alpha"
    assert alpha.skill_md == project.root / "skills" / "alpha" / "SKILL.md"
    assert alpha.eval_path == project.root / "evals" / "alpha.json"
    assert [s.id for s in alpha.evals.scenarios] == ["x", "y"]
    assert alpha.doc.blocks[0].line == 5
    assert alpha.test_files == {} and alpha.package_list is None and not alpha.has_code_tests
    assert warnings[0] == 'warning: skill "draft" has no eval file'
    assert len(warnings) == 2 and warnings[1].endswith(
        "alpha/SKILL.md has no description in its front matter; "
        "agents choose a skill by it, so add `description: <what it teaches and when to use it>` between its --- lines"
    )


@pytest.mark.parametrize(
    ("md", "warned"),
    [
        ("", "is empty: the with-skill arm gets the template without a skill; write the skill"),
        ("  \n\n", "is empty"),
        ("# Money\nNo front matter.\n", "has no description in its front matter"),
        ("---\nname: m\ndescription: ''\n---\nx\n", "has no description"),
        ("---\ndescription: Teaches money.\n---\nx\n", None),  # no name: the folder names it, no warning
    ],
)
def test_skill_md_warnings(project: ProjectDir, md: str, warned: str | None) -> None:
    project.skill("money", [judge()], md=md)
    p, warnings = load(project)
    assert p.skills[0].doc.name == ("m" if "name: m" in md else "money")  # type: ignore[attr-defined]
    if warned is None:
        assert warnings == []
    else:
        assert len(warnings) == 1 and warned in warnings[0] and "skills/money/SKILL.md" in warnings[0]


def test_named_skills(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> None:
    project.skill("a", [judge()])
    project.skill("b", [judge()])
    project.skill("draft")
    p, warnings = load(project, ("b",))
    assert [s.name for s in p.skills] == ["b"]  # type: ignore[attr-defined]
    assert p.all_names == ("a", "b")  # type: ignore[attr-defined]
    assert warnings == []
    assert error_of(project, monkeypatch, ("c",)) == (
        'skill "c": no SKILL.md at skills/c/SKILL.md; name a skill that has one (skills: a, b, draft)'
    )
    assert error_of(project, monkeypatch, ("draft",)) == (
        'skill "draft": no eval file at evals/draft.json; write its scenarios there'
    )


def test_no_skill_with_both(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> None:
    assert error_of(project, monkeypatch) == (
        "skill-be.yaml: no skill has both a SKILL.md (in skills/<skill>/) and an eval file (in evals/<skill>.json); "
        "add a skill folder with a SKILL.md under skills"
    )
    project.skill("money")
    project.skill("cash")
    assert error_of(project, monkeypatch) == (
        "skill-be.yaml: no skill has both a SKILL.md (in skills/<skill>/) and an eval file (in evals/<skill>.json); "
        "write evals/cash.json, evals/money.json"
    )


@pytest.mark.parametrize(
    ("extra", "make", "expected"),
    [
        ("", "rm skills", "skill-be.yaml: skills: folder skills does not exist; create it or fix the path"),
        ("", "rm evals", "skill-be.yaml: evals: folder evals does not exist; create it or fix the path"),
        ("", "file skills", "skill-be.yaml: skills: folder skills is a file, not a folder; create it or fix the path"),
        ("tests: ./t\n", "", "skill-be.yaml: tests: folder t does not exist; create it or fix the path"),
        (
            "codeTests:\n  packages: ./p.json\n",
            "",
            "skill-be.yaml: codeTests.packages: package list p.json does not exist; create it or fix the path",
        ),
        (
            "codeTests:\n  packagesBySkill:\n    money: ./mp.json\n",
            "",
            "skill-be.yaml: codeTests.packagesBySkill.money: package list mp.json does not exist; create it or fix the path",
        ),
        (
            "codeTests:\n  packagesBySkill:\n    monye: ./p.json\n",
            "touch p.json",
            'skill-be.yaml: codeTests.packagesBySkill: "monye" names no skill in skills (no skills/monye/SKILL.md); '
            "fix the name or remove the entry",
        ),
    ],
)
def test_paths_that_do_not_exist(
    project: ProjectDir, monkeypatch: pytest.MonkeyPatch, extra: str, make: str, expected: str
) -> None:
    project.skill("money", [judge()])
    project.add_config(extra)
    if make == "rm skills":
        (project.root / "skills" / "money" / "SKILL.md").unlink()
        (project.root / "skills" / "money").rmdir()
        (project.root / "skills").rmdir()
    elif make == "rm evals":
        (project.root / "evals" / "money.json").unlink()
        (project.root / "evals").rmdir()
    elif make == "file skills":
        (project.root / "skills" / "money" / "SKILL.md").unlink()
        (project.root / "skills" / "money").rmdir()
        (project.root / "skills").rmdir()
        project.write("skills", "a file")
    elif make == "touch p.json":
        project.write("p.json", '{"npm": []}')
    assert error_of(project, monkeypatch) == expected


def test_a_bad_eval_file_stops_loading(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> None:
    project.skill("money", [judge()])
    project.write("evals/money.json", '{"scenarios": [}')
    assert error_of(project, monkeypatch).startswith("evals/money.json: invalid JSON (")


def test_a_bad_skill_md_stops_loading(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> None:
    project.skill("money", [judge()], md="---\nname: x\n")
    assert error_of(project, monkeypatch).startswith("skills/money/SKILL.md: the front matter")


def test_code_tests_are_found_with_their_package_list(project: ProjectDir) -> None:
    project.add_config("tests: ./skill-tests\n")
    project.skill("signup", [coded("new-signup"), judge("judged")])
    project.write("skill-tests/signup/new-signup.test.ts", "test('x', () => {})")
    project.write("skill-tests/signup/fakes.ts", "export const f = 1")
    project.write("skill-tests/signup/sub/deep.test.ts", "// a helper: only the top level names scenarios")
    project.write("skill-tests/_shared/clock.ts", "")
    p, _ = load(project)
    [signup] = p.skills  # type: ignore[attr-defined]
    assert dict(signup.test_files) == {"new-signup": project.root / "skill-tests/signup/new-signup.test.ts"}
    assert signup.has_code_tests and signup.package_list is None
    project.write("test-packages.json", '{"npm": []}')
    p, _ = load(project)
    assert p.skills[0].package_list == project.root / "test-packages.json"  # type: ignore[attr-defined]
    project.write("all.json", '{"npm": []}')
    project.add_config("codeTests:\n  packages: ./all.json\n")
    p, _ = load(project)
    assert p.skills[0].package_list == project.root / "all.json"  # type: ignore[attr-defined]
    project.write("lists/signup.json", '{"npm": []}')
    project.add_config("  packagesBySkill:\n    signup: lists/signup.json\n")
    p, _ = load(project)
    assert p.skills[0].package_list == project.root / "lists/signup.json"  # type: ignore[attr-defined]


def test_a_skill_without_output_has_no_package_list(project: ProjectDir) -> None:
    project.add_config("tests: ./skill-tests\n")
    project.skill("money", [judge()])
    project.write("skill-tests/.keep", "")
    project.write("test-packages.json", '{"npm": []}')
    p, _ = load(project)
    assert p.skills[0].package_list is None and not p.skills[0].has_code_tests  # type: ignore[attr-defined]


def test_layout_rules(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> None:
    project.skill("signup", [coded("new-signup"), judge("judged")])
    assert error_of(project, monkeypatch) == (
        'evals/signup.json: scenario "new-signup" has an output, but skill-be.yaml sets no "tests" folder; '
        "add tests: ./skill-tests and put its tests in skill-tests/signup/new-signup.test.ts"
    )
    project.add_config("tests: ./skill-tests\n")
    project.write("skill-tests/_shared/x.ts", "")
    assert error_of(project, monkeypatch) == (
        'evals/signup.json: scenario "new-signup" has an output but no test file; '
        "create skill-tests/signup/new-signup.test.ts"
    )
    project.write("skill-tests/signup/new-signup.test.ts", "")
    project.write("skill-tests/signup/judged.test.ts", "")
    assert error_of(project, monkeypatch) == (
        'skill-tests/signup/judged.test.ts: scenario "judged" has no "output" in evals/signup.json; '
        "add an output contract to the scenario, or remove the test file"
    )
    (project.root / "skill-tests/signup/judged.test.ts").unlink()
    project.write("skill-tests/signup/old-name.test.ts", "")
    assert error_of(project, monkeypatch) == (
        "skill-tests/signup/old-name.test.ts: names no scenario of evals/signup.json (its scenarios: new-signup, "
        "judged); rename it to <scenario id>.test.ts, or rename it without .test.ts to make it a helper"
    )
    (project.root / "skill-tests/signup/old-name.test.ts").unlink()
    load(project)


def test_layout_rules_apply_to_skills_not_selected(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the skills a command works on are loaded, so another skill's layout does not stop a named run."""
    project.skill("a", [judge()])
    project.skill("b", [coded()])
    p, _ = load(project, ("a",))
    assert [s.name for s in p.skills] == ["a"]  # type: ignore[attr-defined]
    assert error_of(project, monkeypatch).startswith('evals/b.json: scenario "t" has an output')


def test_loading_writes_nothing(project: ProjectDir) -> None:
    project.skill("a", [judge()])
    before = sorted(p.relative_to(project.root) for p in project.root.rglob("*"))
    load(project)
    assert sorted(p.relative_to(project.root) for p in project.root.rglob("*")) == before


def test_loading_from_another_directory(project: ProjectDir, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project.skill("a", [judge()])
    monkeypatch.chdir(tmp_path)
    p = load_project(Path("project/skill-be.yaml"))
    assert p.skills[0].skill_md == project.root / "skills" / "a" / "SKILL.md"


def test_an_eval_file_whose_skill_folder_is_missing_is_a_warning_naming_it(project: ProjectDir) -> None:
    project.skill("money", [judge()])
    project.write("evals/monye.json", '{"scenarios": [{"id": "x", "prompt": "p", "criteria": ["c"]}]}')
    project.write("evals/package.json", '{"name": "not an eval file"}')  # the control: shares the folder, no warning
    p, warnings = load(project)
    assert [s.name for s in p.skills] == ["money"]  # type: ignore[attr-defined]
    (warned,) = [w for w in warnings if "names no skill" in w]  # paths are shown from the working folder
    assert warned.startswith("warning: ") and "evals/monye.json names no skill (no " in warned
    assert warned.endswith(
        "skills/monye/SKILL.md); it is not run: rename it after its skill's folder, or add that folder"
    )
