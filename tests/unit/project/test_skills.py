"""SKILL.md: front matter and fenced code blocks with their exact line numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.errors import error_of as one_line_error
from tests.unit.project.placed import unplaced

from skill_be.errors import ConfigError
from skill_be.project.skills import code_blocks, inline_code, parse_skill_md, read_skill_md


def parse(text: str, folder: str = "money"):  # type: ignore[no-untyped-def]
    return parse_skill_md(text, "skills/money/SKILL.md", folder)


def error_of(text: str) -> str:
    return unplaced(one_line_error(lambda: parse(text)))


def test_front_matter_fields() -> None:
    doc = parse("---\nname: tiny-money\ndescription: Money in cents.\nversion: 1.2\n---\n# Money\n")
    assert (doc.name, doc.description, doc.version) == ("tiny-money", "Money in cents.", "1.2")
    assert doc.text.startswith("---\nname: tiny-money")  # the whole file is what {{skill}} becomes


def test_name_falls_back_to_the_folder() -> None:
    assert parse("# Money\n", folder="cash").name == "cash"
    assert parse("---\ndescription: d\n---\n", folder="cash").name == "cash"
    assert parse("---\n---\nbody\n", folder="cash").name == "cash"
    doc = parse("no front matter", folder="cash")
    assert (doc.description, doc.version) == (None, None)


def test_front_matter_with_crlf_and_dots_closer() -> None:
    doc = parse("---\r\nname: crlf\r\n...\r\n```ts\r\nx\r\n```\r\n")
    assert doc.name == "crlf"
    assert [(b.lang, b.code, b.line) for b in doc.blocks] == [("ts", "x", 5)]


def test_a_dashes_line_later_is_not_front_matter() -> None:
    doc = parse("# Title\n---\nname: nope\n---\n")
    assert doc.name == "money"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "---\nname: x\n",
            'skills/money/SKILL.md: the front matter opened with "---" is never closed; add a "---" line after it',
        ),
        (
            "---\n- a\n- b\n---\n",
            "skills/money/SKILL.md: front matter: must be a mapping of keys to values (name, description, ...), not a list",
        ),
        (
            "---\njust text\n---\n",
            "skills/money/SKILL.md: front matter: must be a mapping of keys to values (name, description, ...), not a string",
        ),
        (
            "---\nname: [a, b]\n---\n",
            'skills/money/SKILL.md: front matter: name: must be a string, not a list; write it as text, such as name: "..."',
        ),
        (
            "---\nname: x\ndescription: 3\n---\n",
            'skills/money/SKILL.md: front matter: description: must be a string, not a number; write it as text, such as description: "..."',
        ),
        (
            "---\nname: x\ndescription: a: b\n---\n",
            "skills/money/SKILL.md: front matter: invalid YAML (mapping values are not allowed in this context); fix the syntax there",
        ),
        (
            "---\nname: a\nname: b\n---\n",
            'skills/money/SKILL.md: front matter: key "name" is written twice in one mapping (first at line 2); keep one of them',
        ),
    ],
)
def test_bad_front_matter(text: str, expected: str) -> None:
    assert error_of(text) == expected


def test_blocks_language_skip_and_lines() -> None:
    text = (
        "---\n"  # 1
        "name: money\n"  # 2
        "---\n"  # 3
        "# Money\n"  # 4
        "```ts\n"  # 5
        "const a = 1;\n"  # 6
        "const b = 2;\n"  # 7
        "```\n"  # 8
        "\n"  # 9
        "~~~TypeScript skip\n"  # 10
        "async x => …\n"  # 11
        "~~~\n"  # 12
        "```\n"  # 13
        "plain\n"  # 14
        "```\n"  # 15
        "````md\n"  # 16
        "```ts\n"  # 17
        "inner\n"  # 18
        "```\n"  # 19
        "````\n"  # 20
        "```python title=x skip\n"  # 21
        "print(1)\n"  # 22
        "```\n"  # 23
    )
    blocks = parse(text).blocks
    assert [(b.lang, b.skip, b.code, b.line, b.fence_line) for b in blocks] == [
        ("ts", False, "const a = 1;\nconst b = 2;", 6, 5),
        ("typescript", True, "async x => …", 11, 10),
        ("", False, "plain", 14, 13),
        ("md", False, "```ts\ninner\n```", 17, 16),
        ("python", True, "print(1)", 22, 21),
    ]
    assert [b.end_line for b in blocks] == [8, 12, 15, 20, 23]


def test_skip_only_counts_after_the_language() -> None:
    blocks = code_blocks("```skip\nx\n```\n```ts\ty skip\nz\n```\n")
    assert [(b.lang, b.skip) for b in blocks] == [("skip", False), ("ts", True)]


def test_indented_fences() -> None:
    text = "- item\n\n   ```ts\n   const a = 1;\n     indented more\n   ```\n\n    ```ts\n    not a fence\n    ```\n"
    blocks = code_blocks(text)
    assert [(b.lang, b.code, b.line) for b in blocks] == [("ts", "const a = 1;\n  indented more", 4)]


def test_closing_fence_rules() -> None:
    # a closing fence needs the opening character, at least as many of them, and nothing after
    text = "~~~ts\n```\n~~\n~~~ x\n~~~~\nafter\n"
    [block] = code_blocks(text)
    assert block.code == "```\n~~\n~~~ x"
    assert block.end_line == 5


def test_backtick_fence_info_cannot_hold_a_backtick() -> None:
    # not an opening fence: the closing-looking line below it opens a block that runs to the end
    [block] = code_blocks("```ts `x`\ncode\n```\n")
    assert (block.lang, block.code, block.fence_line, block.end_line) == ("", "", 3, 4)
    [block] = code_blocks("~~~ts `x`\ncode\n~~~\n")
    assert block.lang == "ts"


def test_unclosed_fence_runs_to_the_end() -> None:
    [block] = code_blocks("# t\n```ts\nconst a = 1;\n\nconst b = 2;\n")
    assert (block.code, block.line, block.end_line) == ("const a = 1;\n\nconst b = 2;", 3, 6)
    [block] = code_blocks("```ts\nx")
    assert block.code == "x"


def test_fences_in_front_matter_are_not_blocks() -> None:
    text = "---\ndescription: |\n  ```ts\n  no\n  ```\n---\n```js\nyes\n```\n"
    assert [(b.lang, b.code, b.line) for b in parse(text).blocks] == [("js", "yes", 8)]


def test_inline_code_outside_blocks() -> None:
    text = "---\nname: `x`\n---\nUse `allocate` and ``a ` b``.\n```ts\nconst `no` = 1\n```\nthen `format`\n"
    assert inline_code(text) == ["allocate", "a ` b", "format"]


def test_read_skill_md_uses_the_folder_and_bom(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "skills" / "cash"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_bytes(b"\xef\xbb\xbf---\ndescription: d\n---\n```ts\nx\n```\n")
    doc = read_skill_md(folder / "SKILL.md")
    assert (doc.name, doc.description, doc.blocks[0].line) == ("cash", "d", 5)
    (folder / "SKILL.md").write_bytes(b"# caf\xe9\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as e:
        read_skill_md(folder / "SKILL.md")
    assert str(e.value) == "skills/cash/SKILL.md:1: not valid UTF-8 (byte 0xe9); save the file as UTF-8"
