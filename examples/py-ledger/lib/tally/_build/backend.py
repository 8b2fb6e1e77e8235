"""A PEP 517 build backend that needs only the standard library: the wheel of the `tally` package."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

NAME, VERSION = "tally", "1.0.0"
ROOT = Path(__file__).resolve().parent.parent
DIST_INFO = f"{NAME}-{VERSION}.dist-info"
METADATA = f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
WHEEL = "Wheel-Version: 1.0\nGenerator: tally-backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(wheel_directory: str, config_settings: object = None, metadata_directory: object = None) -> str:
    files = {f"{NAME}/{p.name}": p.read_bytes() for p in sorted((ROOT / NAME).glob("*.py"))}
    files[f"{DIST_INFO}/METADATA"] = METADATA.encode()
    files[f"{DIST_INFO}/WHEEL"] = WHEEL.encode()
    record = [_record_line(name, data) for name, data in files.items()] + [f"{DIST_INFO}/RECORD,,"]
    files[f"{DIST_INFO}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = f"{NAME}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(Path(wheel_directory) / wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return wheel


def build_sdist(sdist_directory: str, config_settings: object = None) -> str:
    raise NotImplementedError("tally ships as a wheel only")
