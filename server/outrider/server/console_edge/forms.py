"""Form bodies (application/x-www-form-urlencoded, what browsers and htmx send), read with a
size limit. Values may be secrets (a password typed into an answer form): they are handed to the
core and never logged or echoed."""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.requests import Request

from outrider.server.core.errors import InvalidArgument

MAX_FORM_BYTES = 256 * 1024  # an answer form's fields (10,000 characters each) and its names


class Form:
    """The fields of one submitted form, in order; a name may repeat (checkbox groups)."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self.pairs = pairs

    def get(self, name: str, default: str = "") -> str:
        return next((value for key, value in self.pairs if key == name), default)

    def all(self, name: str) -> list[str]:
        return [value for key, value in self.pairs if key == name]

    def with_prefix(self, prefix: str) -> list[tuple[str, str]]:
        """(name without the prefix, value) for every field whose name starts with it."""
        return [
            (key.removeprefix(prefix), value) for key, value in self.pairs if key.startswith(prefix)
        ]


async def read_form(request: Request) -> Form:
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/x-www-form-urlencoded":
        raise InvalidArgument.single("body", "must be a form (application/x-www-form-urlencoded)")
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_FORM_BYTES:
            raise InvalidArgument.single("body", f"must be at most {MAX_FORM_BYTES:,} bytes")
    try:
        text = bytes(raw).decode("utf-8")
        pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=False, max_num_fields=500)
    except (UnicodeDecodeError, ValueError):
        raise InvalidArgument.single("body", "is not a readable form") from None
    return Form(pairs)
