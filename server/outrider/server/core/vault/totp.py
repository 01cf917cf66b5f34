"""One-time codes by RFC 6238 (TOTP over RFC 4226's HOTP), computed when a field is filled, from a
seed given as base32 or as an otpauth://totp/ URI (its secret, digits, period and algorithm)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import struct
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

_ALGORITHMS = {"SHA1": hashlib.sha1, "SHA256": hashlib.sha256, "SHA512": hashlib.sha512}


class TotpSeedError(ValueError):
    """A TOTP seed that cannot be used; the message says why (never the seed)."""


@dataclass(frozen=True)
class TotpSeed:
    secret: bytes
    digits: int = 6
    period: int = 30
    algorithm: str = "SHA1"

    @classmethod
    def parse(cls, text: str) -> TotpSeed:
        text = text.strip()
        if text.lower().startswith("otpauth://"):
            return _from_uri(text)
        return cls(_base32(text))

    def step(self, at: float) -> int:
        return int(at // self.period)

    def code(self, step: int) -> str:
        digest = hmac.new(
            self.secret, struct.pack(">Q", step), _ALGORITHMS[self.algorithm]
        ).digest()
        offset = digest[-1] & 0x0F
        value = struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF
        return str(value % 10**self.digits).zfill(self.digits)

    def remaining(self, at: float) -> float:
        """Seconds the code of instant `at` stays valid."""
        return self.period - (at % self.period)

    def encoded(self) -> str:
        """The seed as an otpauth URI, for keeping it sealed in one string."""
        secret = base64.b32encode(self.secret).decode().rstrip("=")
        query = f"secret={secret}&digits={self.digits}&period={self.period}"
        return f"otpauth://totp/outrider?{query}&algorithm={self.algorithm}"


def _base32(text: str) -> bytes:
    cleaned = "".join(text.split()).upper().rstrip("=")
    try:
        secret = base64.b32decode(cleaned + "=" * (-len(cleaned) % 8))
    except (binascii.Error, ValueError):
        raise TotpSeedError("the TOTP seed is not base32 (A-Z, 2-7)") from None
    if len(secret) < 10:
        raise TotpSeedError("the TOTP seed is too short (RFC 4226 asks for 128 bits at least)")
    return secret


def _from_uri(text: str) -> TotpSeed:
    parts = urlsplit(text)
    if parts.netloc.lower() != "totp":
        raise TotpSeedError("only otpauth://totp/ URIs are TOTP seeds")
    query = {key.lower(): values[0] for key, values in parse_qs(parts.query).items()}
    if "secret" not in query:
        raise TotpSeedError("the otpauth URI has no secret")
    algorithm = query.get("algorithm", "SHA1").upper()
    if algorithm not in _ALGORITHMS:
        raise TotpSeedError(f"the otpauth URI's algorithm must be one of {sorted(_ALGORITHMS)}")
    try:
        digits, period = int(query.get("digits", "6")), int(query.get("period", "30"))
    except ValueError:
        raise TotpSeedError("the otpauth URI's digits and period must be numbers") from None
    if digits not in (6, 7, 8) or not 10 <= period <= 120:
        raise TotpSeedError("the otpauth URI's digits must be 6 to 8 and its period 10 to 120")
    return TotpSeed(_base32(query["secret"]), digits, period, algorithm)
