"""The prompt block for adapters without native tools, reading their reply, and tool names."""

from __future__ import annotations

import pytest

from skill_be.adapters.base import CallError
from skill_be.adapters.choice import Offered, choice_prompt, read_choice, tool_names
from skill_be.agents.skills import with_description

OFFERED = [Offered("duration", "Use for lengths of time."), Offered("money", "Use for amounts.")]


def test_the_block_carries_every_name_and_description_and_the_query() -> None:
    p = choice_prompt("add two timeouts", OFFERED)
    assert "<name>duration</name>\n<description>Use for lengths of time.</description>" in p
    assert "<name>money</name>\n<description>Use for amounts.</description>" in p
    assert "<user_request>\nadd two timeouts\n</user_request>" in p


@pytest.mark.parametrize(
    ("reply", "chosen"),
    [("duration", "duration"), ("`money`\nbecause...", "money"), ("\n  None.", None), ("DURATION", "duration")],
)
def test_the_first_line_names_the_choice(reply: str, chosen: str | None) -> None:
    assert read_choice(reply, OFFERED) == chosen


def test_a_reply_naming_no_offered_skill_is_an_error_not_a_miss() -> None:
    with pytest.raises(CallError, match="names no offered skill"):
        read_choice("I would use the duration skill", OFFERED)


def test_tool_names_the_apis_accept() -> None:
    names = tool_names([Offered("duration", ""), Offered("my skill!", ""), Offered("my_skill_", "")])
    assert names == {"duration": "duration", "my_skill_": "my skill!", "my_skill__2": "my_skill_"}


def test_a_proposed_description_replaces_the_front_matter_line() -> None:
    md = "---\nname: d\ndescription: >\n  old text\n  more\nversion: 1\n---\n# Body\ndescription: not me\n"
    out = with_description(md, 'new "text"')
    assert out == '---\nname: d\ndescription: "new \\"text\\""\nversion: 1\n---\n# Body\ndescription: not me\n'
