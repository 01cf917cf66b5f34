"""Looking for a secret everywhere it could leak: in each of the encodings a browser, a URL or a
JSON encoder gives it."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote, quote_plus

from google.protobuf import json_format
from google.protobuf.message import Message


def forms_of(secret: str) -> set[str]:
    """The secret as written literally, percent-encoded (both hex cases, with and without `/`
    kept), and form-encoded with `+` for spaces."""
    encoded = {quote_plus(secret), quote(secret, safe=""), quote(secret)}
    lower = {_lower_hex(e) for e in encoded}
    return {secret} | encoded | lower


def _lower_hex(text: str) -> str:
    parts = text.split("%")
    return parts[0] + "".join("%" + p[:2].lower() + p[2:] for p in parts[1:])


def leaks_in_text(secret: str, text: str) -> list[str]:
    return sorted(form for form in forms_of(secret) if form in text)


def leaks_in_messages(secret: str, messages: Iterable[Message]) -> list[str]:
    text = "\n".join(json_format.MessageToJson(m, ensure_ascii=False) for m in messages)
    return leaks_in_text(secret, text)


def leaks_in_files(secret: str, root: Path) -> list[str]:
    """Files under `root` holding the secret in any form (as UTF-8 bytes)."""
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        hits = [form for form in forms_of(secret) if form.encode() in data]
        if hits:
            found.append(f"{path.relative_to(root)}: {hits}")
    return found
