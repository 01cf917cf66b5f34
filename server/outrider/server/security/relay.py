"""Relay credentials: how one replica vouches, to another, for the caller it authenticated.

A replica that receives a cancel or an answer for a run another replica executes forwards the
call there, with the caller's principal in a token signed by a key derived from the cluster
secret (OUTRIDER_CLUSTER_SECRET) that every replica shares. The token names the method it was
made for and expires after a short time, so a copy cannot be used on another method or later.
The receiving replica serves the call as that principal, and never relays it again.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

from outrider.server.core.errors import PermissionDenied, Unauthenticated
from outrider.server.core.principals import Principal, parse_scopes

RELAY_HEADER = "x-outrider-relay"
LIFETIME = 30.0  # seconds a token is accepted after it was made (replica clocks roughly agree)


class RelayKey:
    """Signs and checks relay tokens with a key derived from the cluster secret."""

    def __init__(self, cluster_secret: str) -> None:
        self._key = hmac.new(cluster_secret.encode(), b"outrider relay v1", hashlib.sha256).digest()

    def sign(self, principal: Principal, method: str, now: float | None = None) -> str:
        claims = {
            "sub": principal.id,
            "ten": principal.tenant,
            "scp": sorted(scope.value for scope in principal.scopes),
            "mth": method,
            "iat": time.time() if now is None else now,
        }
        body = _b64(json.dumps(claims, separators=(",", ":")).encode())
        return f"{body}.{_b64(self._mac(body))}"

    def verify(self, token: str, method: str, now: float | None = None) -> Principal:
        """The relayed principal, or Unauthenticated (a forged, stale or misdirected token)."""
        body, _, mac = token.partition(".")
        if not hmac.compare_digest(_b64(self._mac(body)).encode(), mac.encode()):
            raise Unauthenticated("relay token: bad signature", reason="RELAY_TOKEN_INVALID")
        claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        age = (time.time() if now is None else now) - float(claims["iat"])
        if not -LIFETIME < age < LIFETIME:
            raise Unauthenticated("relay token: expired", reason="RELAY_TOKEN_EXPIRED")
        if claims["mth"] != method:
            raise PermissionDenied(
                f"relay token made for {claims['mth']}, not {method}",
                reason="RELAY_TOKEN_MISDIRECTED",
            )
        scopes = parse_scopes(list(claims["scp"]), "relay token")
        return Principal(str(claims["sub"]), str(claims["ten"]), scopes, relayed=True)

    def _mac(self, body: str) -> bytes:
        return hmac.new(self._key, body.encode(), hashlib.sha256).digest()


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
