from __future__ import annotations

from skill_be.codetests.answer import AnswerCode, extract_code


def test_the_last_block_with_a_code_tag_wins() -> None:
    reply = "```ts\nexport const result = 1;\n```\ntext\n```js\nexport const result = 2;\n```\n```bash\nnpm test\n```"
    assert extract_code(reply) == AnswerCode(code="export const result = 2;", file_name="answer.js")


def test_tags_are_case_insensitive_and_may_carry_more_words() -> None:
    assert extract_code("```TypeScript title=handler.ts\nexport const result = 1;\n```") == AnswerCode(
        code="export const result = 1;", file_name="answer.ts"
    )
    assert extract_code("~~~javascript\nexport const result = 1;\n~~~") == AnswerCode(
        code="export const result = 1;", file_name="answer.js"
    )


def test_no_tagged_block_is_no_code() -> None:
    assert extract_code("Just words.") is None
    assert extract_code("```\nexport const result = 1;\n```") is None
    assert extract_code("```python\nresult = 1\n```") is None


def test_windows_line_ends_and_an_unclosed_block() -> None:
    assert extract_code("```ts\r\nexport const a = 1;\r\n```\r\n") == AnswerCode("export const a = 1;", "answer.ts")
    assert extract_code("```ts\nexport const a = 1;\n") == AnswerCode("export const a = 1;", "answer.ts")
