"""Standard Webhooks signing with the reference `standardwebhooks` library: secrets in the
`whsec_` format, and the headers of one attempt (webhook-id, webhook-timestamp, and one `v1,`
signature per secret still signing, space-separated, so a receiver that knows either secret of a
rotation verifies)."""

from __future__ import annotations

import base64
import secrets
from datetime import UTC, datetime

from standardwebhooks.webhooks import Webhook

SECRET_PREFIX = "whsec_"
_SECRET_BYTES = 32  # the spec asks for 24 to 64 random bytes


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(_SECRET_BYTES)).decode()


def signing_secrets(stored: tuple[tuple[str, int], ...], now_us: int) -> list[str]:
    """The secrets that sign now: the newest, and those rotated out whose overlap lasts."""
    return [secret for secret, until in stored if until == 0 or until > now_us]


def standard_headers(message_id: str, body: bytes, keys: list[str], now: float) -> dict[str, str]:
    """The webhook-* headers of one attempt at `now` (Unix seconds)."""
    stamp = datetime.fromtimestamp(int(now), tz=UTC)
    text = body.decode()
    signatures = " ".join(Webhook(key).sign(message_id, stamp, text) for key in keys)
    headers = {"webhook-id": message_id, "webhook-timestamp": str(int(now))}
    if signatures:
        headers["webhook-signature"] = signatures
    return headers
