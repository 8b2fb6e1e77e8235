"""The `gemini` adapter without a network: its settings, the request it builds and how it reads replies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skill_be.adapters.base import CallError
from skill_be.adapters.choice import Offered
from skill_be.adapters.credentials import Redactor
from skill_be.adapters.gemini_api import function_names, parts
from skill_be.adapters.registry import AdapterEnv, AdapterRegistry
from skill_be.errors import ConfigError
from skill_be.project.attachments import TAKEN_BY, Attachment, refusal
from skill_be.project.config import AdapterEntry
from skill_be.project.families import family
from skill_be.project.where import Where


def make(tmp_path: Path, model: str = "gemini-2.5-flash", **settings: object) -> Any:
    entry = AdapterEntry(
        "gemini", model, {"adapter": "gemini", "id": model, **settings}, Where("skill-be.yaml", "model")
    )
    env = AdapterEnv(root=tmp_path, environ={"GEMINI_API_KEY": "g-key-1234"}, redactor=Redactor(), label=model)
    return AdapterRegistry().create(entry, env)


def reply(parts: list[dict[str, Any]], finish: str = "STOP", **usage: int) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish}],
        "usageMetadata": usage,
    }


def test_registered_with_its_defaults(tmp_path: Path) -> None:
    assert "gemini" in AdapterRegistry().names
    a = make(tmp_path)
    assert a.url == "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
    assert a.key_env == "GEMINI_API_KEY" and a.key() == "g-key-1234"
    assert a.describe()["credential"] == "key from GEMINI_API_KEY"


def test_base_url_with_or_without_v1beta_and_a_models_prefix(tmp_path: Path) -> None:
    want = "http://127.0.0.1:9/v1beta/models/gemini-x:generateContent"
    assert make(tmp_path, "gemini-x", baseUrl="http://127.0.0.1:9/").url == want
    assert make(tmp_path, "gemini-x", baseUrl="http://127.0.0.1:9/v1beta").url == want
    assert make(tmp_path, "models/gemini-x", baseUrl="http://127.0.0.1:9").url == want


def test_unknown_keys_and_bad_values_are_refused(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError, match=r'^skill-be.yaml: model: unknown key "apiKeyENV" \(did you mean "apiKeyEnv"\?\)'
    ):
        make(tmp_path, apiKeyENV="X")
    with pytest.raises(ConfigError, match=r"model\.temperature: must be a number from 0 to 2, not 2\.5"):
        make(tmp_path, temperature=2.5)
    with pytest.raises(ConfigError, match=r"model\.baseUrl: must be an http:// or https:// URL"):
        make(tmp_path, baseUrl="generativelanguage.googleapis.com")
    assert make(tmp_path, temperature=2).temperature == 2.0  # Gemini takes 0 to 2, as OpenAI does


def test_the_one_shot_request(tmp_path: Path) -> None:
    assert make(tmp_path).request("Say hello.") == {"contents": [{"role": "user", "parts": [{"text": "Say hello."}]}]}
    body = make(tmp_path, maxTokens=300, temperature=0.2).request("Say hello.")
    assert body["generationConfig"] == {"temperature": 0.2, "maxOutputTokens": 300}


def test_the_trigger_request_declares_one_function_per_skill(tmp_path: Path) -> None:
    offered = [Offered("duration", "Use for durations."), Offered("money", "Use for money.")]
    names = function_names(offered)
    body = make(tmp_path, maxTokens=50).trigger_request(
        "add two timeouts", names, {o.name: o.description for o in offered}
    )
    assert body == {
        "contents": [{"role": "user", "parts": [{"text": "add two timeouts"}]}],
        "tools": [{"functionDeclarations": [
            {"name": "duration", "description": "Use for durations."},
            {"name": "money", "description": "Use for money."},
        ]}],
        "generationConfig": {"maxOutputTokens": 50},
    }  # fmt: skip


def test_function_names_start_with_a_letter_or_underscore_and_stay_apart() -> None:
    names = function_names([Offered("1password", ""), Offered("_1password", ""), Offered("my skill", "")])
    assert names == {"_1password": "1password", "_1password_2": "_1password", "my_skill": "my skill"}


def test_reading_an_answer_its_usage_and_finish_reason(tmp_path: Path) -> None:
    a = make(tmp_path)
    data = reply(
        [{"text": "planning...", "thought": True}, {"text": "Hello "}, {"text": "there."}],
        promptTokenCount=120, candidatesTokenCount=8, thoughtsTokenCount=30, cachedContentTokenCount=100,
    )  # fmt: skip
    answer = a.read(data)
    assert answer.text == "Hello there."  # the thought part is not the answer
    assert (answer.usage.input_tokens, answer.usage.output_tokens) == (120, 38)  # cached ones are in the 120
    assert answer.meta == {"stop_reason": "STOP", "cached_input_tokens": 100}
    plain = a.read({"candidates": [{"content": {"parts": [{"text": "Hi"}]}}]})
    assert plain.usage is None and plain.meta == {}


def test_a_truncated_answer_is_kept_and_says_so(tmp_path: Path) -> None:
    # As the anthropic adapter keeps a max_tokens answer: the text is the answer, its stop reason recorded.
    answer = make(tmp_path).read(reply([{"text": "A long ans"}], "MAX_TOKENS"))
    assert answer.text == "A long ans" and answer.meta["stop_reason"] == "MAX_TOKENS"


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"candidates": [{"finishReason": "SAFETY"}]}, "gemini: the answer is empty (finish reason: SAFETY)"),
        (reply([{"text": "  "}], "RECITATION"), "gemini: the answer is empty (finish reason: RECITATION)"),
        (reply([{"text": "secret plan", "thought": True}], "MAX_TOKENS"), "(finish reason: MAX_TOKENS)"),
        ({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}}, "the prompt was blocked (block reason: PROHIBITED_CONTENT)"),
        ({"candidates": []}, "gemini: the response has no candidates"),
        ([1, 2], "gemini: the response is not a JSON object"),
    ],
)  # fmt: skip
def test_a_reply_with_no_answer_is_a_failed_call(tmp_path: Path, data: object, words: str) -> None:
    with pytest.raises(CallError) as info:
        make(tmp_path).read(data)
    assert words in str(info.value)


def test_reading_a_trigger_choice(tmp_path: Path) -> None:
    a = make(tmp_path)
    names = {"duration": "duration", "_1x": "1x"}
    called = reply([{"text": "Let me load it."}, {"functionCall": {"name": "_1x", "args": {}}}],
                   promptTokenCount=50, candidatesTokenCount=9)  # fmt: skip
    choice = a.read_choice(called, names)
    assert (choice.name, choice.reply) == ("1x", "functionCall _1x")
    assert choice.usage is not None and (choice.usage.input_tokens, choice.usage.output_tokens) == (50, 9)
    # control: the same reply in text only, naming the skill, is no choice
    said = a.read_choice(reply([{"text": "I would use the duration skill."}]), names)
    assert (said.name, said.reply) == (None, "no function call")
    with pytest.raises(CallError, match="the reply calls a function that was not offered: 'rm_rf'"):
        a.read_choice(reply([{"functionCall": {"name": "rm_rf"}}]), names)
    with pytest.raises(CallError, match="block reason: SAFETY"):
        a.read_choice({"promptFeedback": {"blockReason": "SAFETY"}}, names)


def test_attachments_become_inline_data_and_a_gif_is_refused() -> None:
    png = Attachment("chart.png", "image/png", b"\x89PNG")
    assert parts("Read it.", [png]) == [
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}},
        {"text": "Read it."},
    ]
    gif = Attachment("a.gif", "image/gif", b"GIF89a", where="evals/x.json:3:5: scenarios[0].attachments[0]")
    with pytest.raises(CallError, match=r"a\.gif: the gemini adapter cannot send image/gif"):
        parts("Read it.", [gif])
    assert refusal("gemini", "gemini-2.5-flash", gif) is not None  # refused before any call
    assert refusal("gemini", "gemini-2.5-flash", Attachment("d.pdf", "application/pdf", b"%PDF-")) is None
    assert "application/pdf" in TAKEN_BY["gemini"]


def test_the_family_is_google_by_id_and_by_adapter() -> None:
    where = Where("skill-be.yaml", "model")
    assert family(AdapterEntry("gemini", "gemini-2.5-pro", {}, where)) == "Google"
    assert family(AdapterEntry("gemini", "my-tuned-model", {}, where)) == "Google"  # the adapter speaks to Google
    assert family(AdapterEntry("openai", "my-tuned-model", {}, where)) is None  # control: a local id says nothing
