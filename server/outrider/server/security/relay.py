"""Relay credentials: how one replica vouches, to another, for the caller it authenticated.

A replica that receives a cancel or an answer for a run another replica executes forwards the
call there, with the caller's principal in a token signed by a key derived from the cluster
secret (OUTRIDER_CLUSTER_SECRET) that every replica shares. A token is good for one call: its
method, its request and its receiving replica, once, within LIFETIME. The receiving replica
serves the call as that principal, and never relays it again.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass

from google.protobuf.message import Message

from outrider.server.core.errors import PermissionDenied, Unauthenticated
from outrider.server.core.paging import b64url, unb64url
from outrider.server.core.principals import Principal, parse_scopes

RELAY_HEADER = "x-outrider-relay"
LIFETIME = 30.0  # seconds a token is accepted after it was made (replica clocks roughly agree)


class RelayKey:
    """Signs and checks relay tokens with a key derived from the cluster secret. A token is
    bound to its method, its request (a digest of its bytes), the replica it is for and a time;
    the receiving side remembers the tokens it accepted while they are valid, so a copy of one
    (captured on a network without TLS) cannot be used again, nor elsewhere."""

    def __init__(self, cluster_secret: str) -> None:
        self._key = hmac.new(cluster_secret.encode(), b"outrider relay v1", hashlib.sha256).digest()
        self._seen: dict[str, float] = {}  # token id -> when it stops being valid

    def sign(
        self,
        principal: Principal,
        call: RelayedCall,
        now: float | None = None,
    ) -> str:
        claims = {
            "sub": principal.id,
            "ten": principal.tenant,
            "scp": sorted(scope.value for scope in principal.scopes),
            "mdl": principal.models,
            "mth": call.method,
            "req": _digest(call.request),
            "aud": call.audience,
            "jti": secrets.token_urlsafe(12),
            "iat": time.time() if now is None else now,
        }
        body = b64url(json.dumps(claims, separators=(",", ":")).encode())
        return f"{body}.{b64url(self._mac(body))}"

    def verify(self, token: str, call: RelayedCall, now: float | None = None) -> Principal:
        """The relayed principal, or Unauthenticated (forged, stale, or used before) or
        PermissionDenied (made for another method, request or replica)."""
        body, _, mac = token.partition(".")
        if not hmac.compare_digest(b64url(self._mac(body)).encode(), mac.encode()):
            raise Unauthenticated("relay token: bad signature", reason="RELAY_TOKEN_INVALID")
        claims = json.loads(unb64url(body))
        moment = time.time() if now is None else now
        if not -LIFETIME < moment - float(claims["iat"]) < LIFETIME:
            raise Unauthenticated("relay token: expired", reason="RELAY_TOKEN_EXPIRED")
        made_for = (claims["mth"], claims["req"], claims["aud"])
        if made_for != (call.method, _digest(call.request), call.audience):
            raise PermissionDenied(
                f"relay token made for another call ({claims['mth']} to {claims['aud']})",
                reason="RELAY_TOKEN_MISDIRECTED",
            )
        self._remember(str(claims["jti"]), moment)
        scopes = parse_scopes(list(claims["scp"]), "relay token")
        models = claims.get("mdl")
        offered = None if models is None else tuple((str(n), str(s)) for n, s in models)
        return Principal(
            str(claims["sub"]), str(claims["ten"]), scopes, relayed=True, models=offered
        )

    def _remember(self, token_id: str, now: float) -> None:
        for old in [k for k, until in self._seen.items() if until < now]:
            del self._seen[old]
        if token_id in self._seen:
            raise Unauthenticated("relay token: already used", reason="RELAY_TOKEN_REPLAYED")
        self._seen[token_id] = now + 2 * LIFETIME

    def _mac(self, body: str) -> bytes:
        return hmac.new(self._key, body.encode(), hashlib.sha256).digest()


@dataclass(frozen=True)
class RelayedCall:
    """What a relay token is for: the method, its request's bytes, the receiving replica."""

    method: str
    request: bytes
    audience: str


def request_bytes(request: Message) -> bytes:
    """A request's bytes as both sides compute them (deterministic map order)."""
    return request.SerializeToString(deterministic=True)


def _digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()
