"""The one verifier of the IdP's JSON Web Tokens, for every door (gRPC, REST, A2A, MCP, the console)
and for the console's ID tokens.

A token passes when its header names an allowed asymmetric algorithm (never `none`, never HMAC:
a token "signed" with the IdP's public key as an HMAC secret is refused before any key is
touched) that fits the key its `kid` names; its signature verifies with that key from the IdP's
JWKS; `iss` is exactly the configured issuer; `aud` holds the audience of the door it came to;
and `exp` (required), `nbf` and `iat` hold, with OUTRIDER_OIDC_LEEWAY seconds of skew.

Refusals say only that the token is not valid (or expired) and never why in detail; the reason
goes to this server's log at INFO, without the token.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import jwt

from outrider.server.core.errors import Unauthenticated
from outrider.server.core.paging import unb64url
from outrider.server.security.provider import Jwk, SigningKeys
from outrider.server.settings.identity import OidcSettings

log = logging.getLogger(__name__)
TOKEN_INVALID = "TOKEN_INVALID"
TOKEN_EXPIRED = "TOKEN_EXPIRED"
_FAMILIES = {"RSA": ("RS", "PS"), "EC": ("ES",), "OKP": ("EdDSA",)}
_CURVES = {"ES256": "P-256", "ES384": "P-384", "ES512": "P-521", "EdDSA": "Ed25519"}
_MAX_TOKEN_CHARS = 16 * 1024
_MAX_PARSED = 64


class TokenRefused(Unauthenticated):
    default_reason = TOKEN_INVALID


def _refused(why: str) -> TokenRefused:
    log.info("access token refused: %s", why)
    return TokenRefused("the access token is not valid")


def looks_like_jwt(credential: str) -> bool:
    """Three dot-separated parts: a JWS in compact form (API keys have no dots)."""
    return credential.count(".") == 2


class TokenVerifier:
    def __init__(self, settings: OidcSettings, keys: SigningKeys) -> None:
        assert settings.issuer, "no issuer configured"
        self.issuer = settings.issuer
        self._algorithms = frozenset(settings.algorithms)
        self._leeway = settings.leeway
        self._keys = keys
        self._parsed: dict[tuple[str, str, str], jwt.PyJWK] = {}  # a key object costs ~0.1 ms

    async def verify(self, token: str, audience: str, nonce: str | None = None) -> dict[str, Any]:
        """The token's claims; reads the IdP's keys again when it names an unknown one."""
        algorithm, kid = self._header(token)
        key = await self._keys.find(kid)
        return self._checked(token, algorithm, key, audience, nonce)

    def verify_cached(self, token: str, audience: str) -> dict[str, Any]:
        """The same checks with the keys known now (for streams checking their caller again:
        a key the IdP withdrew ends them)."""
        algorithm, kid = self._header(token)
        return self._checked(token, algorithm, self._keys.cached(kid), audience, None)

    def _header(self, token: str) -> tuple[str, str | None]:
        if len(token) > _MAX_TOKEN_CHARS or not looks_like_jwt(token):
            raise _refused("not a compact JWS")
        try:
            header = json.loads(unb64url(token.partition(".")[0]))
        except ValueError:
            raise _refused("an unreadable header") from None
        if not isinstance(header, dict):
            raise _refused("an unreadable header")
        algorithm, kid = header.get("alg"), header.get("kid")
        if algorithm not in self._algorithms:
            raise _refused(f"algorithm {str(algorithm)[:20]!r} is not allowed")
        if kid is not None and not isinstance(kid, str):
            raise _refused("a kid that is not a string")
        return str(algorithm), kid

    def _checked(
        self, token: str, algorithm: str, key: Jwk | None, audience: str, nonce: str | None
    ) -> dict[str, Any]:
        if key is None:
            raise _refused("its kid names none of the IdP's keys")
        if not _fits(algorithm, key):
            raise _refused(f"algorithm {algorithm} does not fit a {key.get('kty')} key")
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                self._parsed_key(key, algorithm),
                algorithms=[algorithm],
                audience=audience,
                issuer=self.issuer,
                leeway=self._leeway,
                options={"require": ["exp", "iss", "aud"], "strict_aud": False},
            )
        except jwt.ExpiredSignatureError:
            log.info("access token refused: expired")
            raise TokenRefused("the access token expired", TOKEN_EXPIRED) from None
        except (jwt.PyJWTError, ValueError, TypeError) as error:
            raise _refused(f"{type(error).__name__}: {error}") from None
        if nonce is not None and claims.get("nonce") != nonce:
            raise _refused("its nonce is not the one this sign-in sent")
        return claims

    def _parsed_key(self, key: Jwk, algorithm: str) -> jwt.PyJWK:
        """The JWK as PyJWT's key object for `algorithm`, made once per key and algorithm (the
        key's material is part of the name, so a kid reused for another key is another)."""
        name = (algorithm, str(key.get("kid")), str(key.get("n") or key.get("x")))
        parsed = self._parsed.get(name)
        if parsed is None:
            if len(self._parsed) >= _MAX_PARSED:
                self._parsed.clear()  # keys rotated many times: start again
            parsed = self._parsed[name] = jwt.PyJWK(dict(key), algorithm=algorithm)
        return parsed


def _fits(algorithm: str, key: Jwk) -> bool:
    """The algorithm belongs to the key's type (and curve), and to the key's own `alg` if any."""
    if key.get("alg") not in (None, algorithm):
        return False
    families = _FAMILIES.get(str(key.get("kty")), ())
    if not algorithm.startswith(families):
        return False
    curve = _CURVES.get(algorithm)
    return curve is None or key.get("crv") == curve
