"""Fingerprints: what they cover, and that nothing else (machine, folder, order, line endings) moves them."""

from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path

from tests.unit.project.projectdir import ProjectDir, coded, judge

from skill_be.project.fingerprint import fingerprint, normalize, tree_files
from skill_be.project.loader import Project, load_project


def loaded(project: ProjectDir) -> Project:
    return load_project(project.config)


def fp(project: ProjectDir, skill: str) -> str:
    p = loaded(project)
    return p.legacy_fingerprint(next(s for s in p.skills if s.name == skill))  # version 1 (v2: test_fingerprint_v2.py)


def code_test_project(root: Path) -> ProjectDir:
    project = ProjectDir(root)
    project.add_config("tests: ./skill-tests\n")
    project.skill("signup", [coded("new-signup"), judge("judged")])
    project.skill("money", [judge()])
    project.write("skill-tests/signup/new-signup.test.ts", "import { f } from './fakes.js'\n")
    project.write("skill-tests/signup/fakes.ts", "export const f = 1\n")
    project.write("skill-tests/_shared/clock.ts", "export const now = () => 0\n")
    project.write("skill-tests/other/x.ts", "other skill\n")
    project.write("test-packages.json", '{"npm": []}\n')
    return project


def test_the_documented_algorithm(tmp_path: Path) -> None:
    """SHA-256 over `label NUL length NUL content` per file, in label order, after CRLF/CR become LF."""
    expected = hashlib.sha256()
    for label, content in (("SKILL.md", b"a\nb\n"), ("config", b"c\n"), ("eval", b"{}")):
        expected.update(label.encode() + b"\0" + str(len(content)).encode() + b"\0" + content)
    (tmp_path / "s").write_bytes(b"a\r\nb\r")
    (tmp_path / "e").write_bytes(b"{}")
    (tmp_path / "c").write_bytes(b"c\n")
    parts = [("eval", tmp_path / "e"), ("SKILL.md", tmp_path / "s"), ("config", tmp_path / "c")]
    assert fingerprint(parts) == expected.hexdigest()
    for _ in range(5):
        random.shuffle(parts)
        assert fingerprint(parts) == expected.hexdigest()


def test_normalize() -> None:
    assert normalize(b"a\r\nb\rc\n\r\n") == b"a\nb\nc\n\n"


def test_same_content_in_another_folder_gives_the_same_hash(tmp_path: Path) -> None:
    a = code_test_project(tmp_path / "one")
    b = code_test_project(tmp_path / "two" / "deeper")
    assert fp(a, "signup") == fp(b, "signup")
    assert fp(a, "money") == fp(b, "money")
    assert re.fullmatch(r"[0-9a-f]{64}", fp(a, "money")), fp(a, "money")  # SHA-256, lower-case hex


def test_creation_order_does_not_matter(tmp_path: Path) -> None:
    a = code_test_project(tmp_path / "a")
    b = ProjectDir(tmp_path / "b")
    # the same files, written in the opposite order
    for rel in reversed(sorted(p.relative_to(a.root).as_posix() for p in a.root.rglob("*") if p.is_file())):
        b.write(rel, (a.root / rel).read_bytes())
    assert fp(a, "signup") == fp(b, "signup")


def test_crlf_and_lf_give_the_same_hash(tmp_path: Path) -> None:
    a = code_test_project(tmp_path / "lf")
    b = code_test_project(tmp_path / "crlf")
    for path in b.root.rglob("*"):
        if path.is_file():
            path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert fp(a, "signup") == fp(b, "signup")
    assert fp(a, "money") == fp(b, "money")


def test_each_covered_file_changes_it(tmp_path: Path) -> None:
    project = code_test_project(tmp_path / "p")
    before = fp(project, "signup")
    seen = {before}
    for rel in (
        "skills/signup/SKILL.md",
        "evals/signup.json",
        "skill-be.yaml",
        "skill-tests/signup/new-signup.test.ts",
        "skill-tests/signup/fakes.ts",
        "skill-tests/_shared/clock.ts",
        "test-packages.json",
    ):
        path = project.root / rel
        original = path.read_bytes()
        path.write_bytes(original + (b" " if rel.endswith(".json") else b"# edit\n"))
        changed = fp(project, "signup")
        assert changed not in seen, rel
        seen.add(changed)
        path.write_bytes(original)
        assert fp(project, "signup") == before, rel


def test_new_renamed_and_removed_test_files_change_it(tmp_path: Path) -> None:
    project = code_test_project(tmp_path / "p")
    before = fp(project, "signup")
    helper = project.write("skill-tests/signup/more/helper.ts", "")
    added = fp(project, "signup")
    assert added != before
    helper.rename(helper.with_name("renamed.ts"))
    assert fp(project, "signup") not in (before, added)
    (helper.with_name("renamed.ts")).unlink()
    assert fp(project, "signup") == before


def test_what_is_not_covered(tmp_path: Path) -> None:
    project = code_test_project(tmp_path / "p")
    signup, money = fp(project, "signup"), fp(project, "money")
    project.write("skills/signup/notes.md", "not SKILL.md")
    project.write("skill-tests/other/x.ts", "another skill's tests")
    project.write("skill-tests/signup/.DS_Store", "dotfile")
    project.write("skill-tests/signup/node_modules/pkg/index.js", "installed")
    project.write("skill-be.result.json", "{}")
    project.write(".skill-be/results/run/x.md", "a run")
    assert (fp(project, "signup"), fp(project, "money")) == (signup, money)


def test_tests_shared_and_package_list_only_for_skills_with_code_tests(tmp_path: Path) -> None:
    project = code_test_project(tmp_path / "p")
    money = fp(project, "money")
    project.write("skill-tests/_shared/clock.ts", "changed\n")
    project.write("test-packages.json", '{"npm": ["x"]}\n')
    project.write("skill-tests/money/notes.ts", "a helper of a skill without output")
    assert fp(project, "money") == money


def test_the_package_list_a_skill_uses(tmp_path: Path) -> None:
    project = code_test_project(tmp_path / "p")
    project.write("lists/signup.json", '{"npm": []}\n')
    project.add_config("codeTests:\n  packagesBySkill:\n    signup: ./lists/signup.json\n")
    before = fp(project, "signup")
    project.write("test-packages.json", '{"npm": ["not used by signup now"]}\n')
    assert fp(project, "signup") == before
    project.write("lists/signup.json", '{"npm": ["y"]}\n')
    assert fp(project, "signup") != before


def test_a_skill_with_an_output_and_no_package_list(tmp_path: Path) -> None:
    project = code_test_project(tmp_path / "p")
    (project.root / "test-packages.json").unlink()
    without = fp(project, "signup")
    project.write("test-packages.json", '{"npm": []}\n')
    assert fp(project, "signup") != without


def test_tree_files_labels_and_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.ts").write_text("")
    (tmp_path / "a.ts").write_text("")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x").write_text("")
    assert [label for label, _ in tree_files(tmp_path, "tests")] == ["tests/a.ts", "tests/b/z.ts"]
    assert list(tree_files(tmp_path / "missing", "x")) == []
