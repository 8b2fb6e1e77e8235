"""A scenario's `attachments`: files beside the eval file that the model gets as they are, not as text.

A one-shot scenario attaches PDFs and images, which the HTTP adapters that take them send as content
(Anthropic: document and image blocks; OpenAI: image parts; Gemini: inlineData parts); every other
adapter refuses such a scenario before the first call (`refusal`). An agent scenario may attach any file: it is copied into
the workspace under its name, like a `workspace.from` file. Text belongs in the prompt.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

MAX_BYTES = 20 * 1024 * 1024  # one attached file: the providers' own limits are about this size
PDF = "application/pdf"
IMAGES = ("image/png", "image/jpeg", "image/gif", "image/webp")
OCTETS = "application/octet-stream"  # any other file
# What each HTTP adapter sends as content; any other adapter takes none.
TAKEN_BY = {
    "anthropic": frozenset((PDF, *IMAGES)),
    "openai": frozenset(IMAGES),
    "gemini": frozenset((PDF, "image/png", "image/jpeg", "image/webp")),  # the API takes no GIF
}


@dataclass(frozen=True)
class Attachment:
    name: str  # as written (evals.json: relative to the skill folder; else to the eval file)
    media_type: str  # application/pdf, image/png, ..., or application/octet-stream
    data: bytes = b""
    where: str = ""  # `file:line:col: key path`, for a refusal after loading
    path: Path | None = None  # the file, for the fingerprint

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def kind(self) -> str:
        """How messages name it: a PDF, a PNG image, a file."""
        if self.media_type == PDF:
            return "a PDF"
        if self.media_type in IMAGES:
            return f"a {self.media_type.removeprefix('image/').upper()} image"
        return "a file"


def media_type(data: bytes) -> str:
    """The type from the file's first bytes (its name can lie)."""
    if data.startswith(b"%PDF-"):
        return PDF
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return OCTETS


def is_text(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def read_one(full: Path, shown_name: str) -> tuple[Attachment | None, str | None]:
    """The attachment at `full`, or the words of why it cannot be one."""
    try:
        size = full.stat().st_size
        if size > MAX_BYTES:
            return None, f'"{shown_name}" is {size} bytes; attach a file of at most {MAX_BYTES} bytes'
        data = full.read_bytes()
    except FileNotFoundError:
        return None, f'"{shown_name}" does not exist beside the eval file; create it or fix the path'
    except IsADirectoryError:
        return None, f'"{shown_name}" is a folder; attach files one by one'
    except OSError as e:
        return None, f'"{shown_name}" cannot be read ({e.strerror or e})'
    return Attachment(shown_name, media_type(data), data, path=full), None


AGENT_FIX = "use mode: agent to give the agent the file in its workspace"


def one_shot_problem(a: Attachment, agent_fix: str = AGENT_FIX) -> str | None:
    """Why a one-shot scenario cannot attach `a`, or None."""
    if a.media_type == PDF or a.media_type in IMAGES:
        return None
    return (
        f'"{a.name}" is not UTF-8 text, a PDF or an image (PNG, JPEG, GIF, WEBP), the files a model takes as '
        f"content; attach a text export of it, or {agent_fix}"
    )


def first_refusal(skills: Sequence[Any], models: Sequence[Any]) -> str | None:
    """The first one-shot attachment a model under test cannot take (`skills`: the project's, `models`:
    the config's entries), as its one line; None when every model takes every attachment."""
    for skill in skills:
        for sc in skill.evals.scenarios:
            for a in sc.attachments if sc.agent is None else ():
                for entry in models:
                    line = refusal(str(entry.adapter), str(entry.id), a)
                    if line is not None:
                        return line
    return None


def refusal(adapter: str, model: str, a: Attachment) -> str | None:
    """The one line that refuses a one-shot scenario's attachment on this model's adapter, or None."""
    if a.media_type in TAKEN_BY.get(adapter, frozenset()):
        return None
    takers = [k for k, kinds in TAKEN_BY.items() if a.media_type in kinds]
    fix = f"run it on the {' or '.join(takers)} adapter" if takers else "put its text in the prompt"
    return (
        f"{a.where}: {a.kind} is attached, which the model {model} (adapter {adapter}) cannot take as content; "
        f"{fix}, or remove the attachment"
    )
