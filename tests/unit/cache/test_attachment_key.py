"""The response cache keys a generation on the bytes of the files attached to its prompt: another
attachment is another call; a prompt without attachments keeps the key it always had."""

from __future__ import annotations

from skill_be.engine.cache import CachedCalls, generation_key
from skill_be.engine.calls import CallTag
from skill_be.project.attachments import Attachment
from skill_be.project.identity import digest


def test_a_plain_prompt_keeps_its_key() -> None:
    old = digest({"v": 1, "kind": "generation", "adapter": "a", "prompt": "p", "arm": "baseline", "rep": 1})
    assert generation_key("a", "p", "baseline", 1) == old


def test_the_attached_bytes_are_part_of_the_key() -> None:
    calls = CachedCalls(None, {})  # type: ignore[arg-type]
    adapter = object()
    calls.identities = {id(adapter): "a"}
    one = Attachment("x.pdf", "application/pdf", b"%PDF-1 one")
    two = Attachment("x.pdf", "application/pdf", b"%PDF-1 two")

    def key(*files: Attachment) -> str | None:
        return calls.key(adapter, "p", CallTag("generate", "s", 1, "baseline", attachments=files), "skill")

    assert key(one) != key(two) != key()
    assert key(one) == key(Attachment("other-name.pdf", "application/pdf", b"%PDF-1 one"))  # the bytes decide
