"""The evals.json corpus (tests/corpus/evals_json/): variants of `<skill>/evals/evals.json` as the
documented formats have authors write them (skill-creator's first prompts without assertions, the
agentskills.io guide's shape, `expectations`, object and `{"text"}` assertions, both keys, PDFs and
images, keys of other harnesses). Every file is read; what a file holds that skill-be does not read is
a warning naming it, never dropped silently; what is malformed is still one line with its place."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from skill_be.errors import ConfigError
from skill_be.project.agentskills import read
from skill_be.project.evals import load_evals_json

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "evals_json"
CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())

# case -> (scenarios, graded scenarios, criteria, deterministic assertions, attachment types, keys warned about)
EXPECTED: dict[str, tuple[int, int, int, int, tuple[str, ...], tuple[str, ...]]] = {
    "attaches-skill-md": (1, 1, 1, 0, (), ("own SKILL.md",)),
    "both-keys": (1, 1, 2, 0, (), ("written twice",)),
    "creator-assertions": (1, 1, 2, 0, (), ()),
    "creator-start": (2, 0, 0, 0, (), ("2 cases are not graded: no assertions",)),
    "empty-assertions": (1, 0, 0, 0, (), ("1 case is not graded: no assertions",)),
    "expectations-key": (1, 1, 2, 0, (), ()),
    "extra-keys": (2, 2, 2, 0, (), ('"version"', '"description"', '"tags"')),
    "guide-shape": (2, 2, 3, 0, (), ()),
    "image-attachment": (1, 1, 1, 0, ("image/png",), ()),
    "mixed": (2, 1, 1, 0, (), ("1 case is not graded",)),
    "named-cases": (2, 2, 2, 0, (), ('"name"', '"expected_behavior"')),
    "no-ids": (2, 2, 2, 0, (), ()),
    "object-assertions": (1, 1, 1, 3, (), ()),
    "pdf-attachment": (1, 1, 1, 0, ("application/pdf",), ()),
    "prompts-only": (2, 0, 0, 0, (), ("2 cases are not graded",)),
    "text-objects": (1, 1, 2, 0, (), ('"category"', '"passed"')),
}


def test_the_corpus_is_the_table() -> None:
    assert sorted(EXPECTED) == CASES and len(CASES) >= 15


@pytest.mark.parametrize("name", CASES)
def test_every_file_of_the_corpus_is_read(name: str) -> None:
    skill = CORPUS / name
    evals = load_evals_json(skill / "evals" / "evals.json", skill)
    n, graded, criteria, checks, kinds, warned = EXPECTED[name]
    cases = json.loads((skill / "evals" / "evals.json").read_text(encoding="utf-8"))["evals"]
    assert len(evals.scenarios) == n == len(cases)
    assert sum(sc.graded for sc in evals.scenarios) == graded
    assert sum(len(sc.criteria) for sc in evals.scenarios) == criteria
    assert sum(len(sc.assertions) for sc in evals.scenarios) == checks
    assert tuple(a.media_type for sc in evals.scenarios for a in sc.attachments) == kinds
    for case, sc in zip(cases, evals.scenarios, strict=True):
        assert sc.prompt.startswith(case["prompt"])  # the task itself, files after it
    assert len(evals.notes) == len(warned), evals.notes
    for words, note in zip(warned, evals.notes, strict=True):
        assert note.startswith(f"warning: {skill.as_posix()}") or note.startswith("warning: "), note
        assert words in note, note


def test_a_text_file_is_in_the_prompt_and_a_pdf_is_attached_with_its_name() -> None:
    (guide,) = load_evals_json(CORPUS / "guide-shape" / "evals" / "evals.json", CORPUS / "guide-shape").scenarios[:1]
    assert "File `evals/files/notes.md`:\n```\n# Stand-up" in guide.prompt
    pdf = CORPUS / "pdf-attachment"
    (sc,) = load_evals_json(pdf / "evals" / "evals.json", pdf).scenarios
    assert sc.prompt.endswith("File `evals/files/invoice.pdf` is attached.")
    (a,) = sc.attachments
    assert a.name == "evals/files/invoice.pdf" and a.data == (pdf / "evals" / "files" / "invoice.pdf").read_bytes()
    assert a.where.endswith("evals.json:9:9: evals[0].files[0]"), a.where  # as the evals.json writes it


def test_assertions_and_expectations_are_both_kept() -> None:
    (sc,) = load_evals_json(CORPUS / "both-keys" / "evals" / "evals.json", CORPUS / "both-keys").scenarios
    assert sc.criteria == ("Explains what undefined is", "Gives one concrete fix")


def test_a_case_without_assertions_is_run_for_review_with_its_expected_output() -> None:
    first, _ = load_evals_json(CORPUS / "creator-start" / "evals" / "evals.json", CORPUS / "creator-start").scenarios
    assert (first.graded, first.scored, first.budget) == (False, (), None)
    assert first.judge_context == "Three bullet points with the total units and the best region."


def test_the_converted_paths_are_relative_to_where_the_file_is_written(tmp_path: Path) -> None:
    skill = CORPUS / "pdf-attachment"
    data = read(skill / "evals" / "evals.json", skill, base=tmp_path / "evals").data
    (sc,) = data["scenarios"]
    written = Path(tmp_path / "evals" / sc["attachments"][0]).resolve()
    assert written == (skill / "evals" / "files" / "invoice.pdf").resolve()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda e: e["evals"][0].update(files=["evals/files/data.bin"]), "is not UTF-8 text, a PDF or an image"),
        (lambda e: e["evals"][0].update(assertions=[{"type": "contains"}]), 'an object with "type"'),
        (lambda e: e["evals"][0].update(assertions=[{"text": ""}]), "evals[0].assertions[0]: must be a string"),
        (lambda e: e["evals"][0].update(expectations="one"), "evals[0].expectations: must be a list, not a string"),
    ],
)
def test_what_does_not_follow_the_format_is_one_line_with_its_place(tmp_path: Path, edit: object, message: str) -> None:
    skill = tmp_path / "pdf-attachment"
    shutil.copytree(CORPUS / "pdf-attachment", skill)
    (skill / "evals" / "files" / "data.bin").write_bytes(b"\x00\x01\xfe\xff not text")
    path = skill / "evals" / "evals.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)  # type: ignore[operator]
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_evals_json(path, skill)
    (line,) = str(e.value).splitlines()
    assert line.split(":")[1].isdigit() and message in line, line
