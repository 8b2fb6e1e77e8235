from __future__ import annotations

import pytest

from skill_be.engine.verdicts import Unparseable, majority, parse_verdicts, reasoning


def test_plain_block() -> None:
    assert parse_verdicts("VERDICTS:\n1: YES\n2: NO\n", 2) == [True, False]


def test_only_the_last_block_counts_and_decoys_before_it_do_not() -> None:
    reply = "Thinking: 1: NO because...\nVERDICTS:\n1: NO\n2: NO\n\nWait, let me redo.\n\n**Verdicts:**\n1: yes\n2: Yes"
    assert parse_verdicts(reply, 2) == [True, True]


@pytest.mark.parametrize(
    "reply",
    [
        "**VERDICTS:**\n- **1: YES**\n- 2: NO",
        "verdicts:\n```\n1: YES\n2: NO\n```",
        "## Verdicts:\n1. YES\n2) NO",
        "VERDICTS: 1: YES, 2: NO",
    ],
)
def test_markdown_around_the_block_and_any_case(reply: str) -> None:
    assert parse_verdicts(reply, 2) == [True, False]


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("1: YES\n2: NO", "no VERDICTS: line"),
        ("VERDICTS:\n1: YES", "no verdict for criterion 2"),
        ("VERDICTS:\n1: YES\n1: NO\n2: YES", "criterion 1 appears twice"),
        ("VERDICTS:\n1: YES\n2: NO\n3: YES", "criterion 3 is out of range (1-2)"),
        ("VERDICTS:\n0: YES\n1: YES\n2: NO", "criterion 0 is out of range (1-2)"),
        ("VERDICTS:\n1: MAYBE\n2: NO", "no verdict for criterion 1"),
    ],
)
def test_unparseable_replies(reply: str, why: str) -> None:
    with pytest.raises(Unparseable, match=why.replace("(", r"\(").replace(")", r"\)")):
        parse_verdicts(reply, 2)


def test_prose_after_the_block_ends_it() -> None:
    assert parse_verdicts("VERDICTS:\n1: YES\n2: NO\nThat is all. 3: YES", 2) == [True, False]


def test_majority_needs_more_than_half_and_a_tie_is_no() -> None:
    v = majority([[True, True, False], [False, True, False]], 3)
    assert v.verdicts == [False, True, False]
    assert v.ties == [1]
    v3 = majority([[True], [True], [False]], 1)
    assert v3.verdicts == [True] and v3.ties == []


def test_reasoning_is_what_comes_before_the_last_block() -> None:
    assert reasoning("It uses allocate.\nVERDICTS:\n1: YES") == "It uses allocate."


def test_a_reason_after_a_verdict_on_its_line_is_allowed() -> None:
    assert parse_verdicts("VERDICTS:\n1: YES — uses allocate\n2: NO (floats)", 2) == [True, False]
