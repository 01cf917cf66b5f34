"""Console sign-ins (called sessions in this module; not the Session resource of browser
sessions): a signed cookie instead of a key in every request.

A console sign-in is stateless (any replica that shares the signing key checks it) and names its
principal and the credential it signed in with, never the credential itself:

    <base64url JSON {sid, sub, crd, iat, exp[, ten, scp]}> "." <base64url HMAC-SHA256>

`crd` is a tag (an HMAC) of the key's hash or the certificate's common name. Every request
looks the principal up again through that tag, so removing or replacing the key in the key file
(then SIGHUP) ends its sessions at once, and changed scopes or tenant apply at once. A session
from a client certificate holds only while the connection presents that same certificate, so its
cookie is worthless without the certificate. A stolen key session cookie works until it expires
(OUTRIDER_CONSOLE_SESSION) or its key is revoked; it never reveals the key, and the API does not
accept it. CSRF tokens are an HMAC of the session id.

A sign-in through the company's IdP (`crd` "o:") carries the tenant and scopes its claims mapped
to (`ten`, `scp`), since no key file entry names them; it holds until it expires, while an
issuer is configured. With OUTRIDER_OIDC_KEY_SIGN_IN=false key sign-ins end at once.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass

from outrider.server.core.errors import Unauthenticated
from outrider.server.core.paging import b64url, unb64url
from outrider.server.core.principals import ANONYMOUS, Principal, Scope
from outrider.server.security.authn import Keyring
from outrider.server.security.keys import key_hash

_TAG_BYTES = 12
_CLOCK_SKEW = 60.0  # seconds a session may seem issued in the future (replica clocks)
_MAX_COOKIE_CHARS = 1024
_SIGNED_OUT = Unauthenticated("not signed in, or the session ended", reason="SESSION_INVALID")


@dataclass(frozen=True)
class Session:
    principal: Principal
    session_id: str
    expires: float  # epoch seconds
    by_certificate: bool = False
    through_idp: bool = False  # signed in through the company's IdP
    by_bearer: bool = False  # a request carrying its own credential: no cookie, no CSRF


@dataclass(frozen=True)
class _Claims:
    session_id: str
    subject: str
    credential: str
    issued: int
    expires: int
    tenant: str = ""  # of sign-ins through the IdP
    scopes: tuple[str, ...] = ()


class SessionSigner:
    """Makes and checks session cookies and their CSRF tokens with one key."""

    def __init__(self, key: bytes, lifetime: float, key_sign_in: bool = True) -> None:
        self._key = key
        self.lifetime = lifetime
        self.key_sign_in = key_sign_in  # False: keys no longer sign in, nor keep signed in

    # signing in

    def with_key(self, keyring: Keyring, key: str, now: float | None = None) -> tuple[str, Session]:
        """(cookie, session) for a valid API key; Unauthenticated otherwise."""
        principal = keyring.by_key(key) if keyring.enabled else ANONYMOUS
        if principal is None or (keyring.enabled and not self.key_sign_in):
            raise Unauthenticated("that API key is not valid", reason="KEY_INVALID")
        credential = "k:" + self._tag(key_hash(key)) if keyring.enabled else "a:"
        return self._issue(principal, credential, now)

    def with_certificate(
        self, keyring: Keyring, peer_name: str | None, now: float | None = None
    ) -> tuple[str, Session]:
        principal = keyring.by_certificate(peer_name) if peer_name else None
        if principal is None or peer_name is None:
            raise Unauthenticated(
                "this connection presents no client certificate mapped to a principal",
                reason="CERTIFICATE_NOT_MAPPED",
            )
        return self._issue(principal, "c:" + self._tag(peer_name), now)

    def with_identity(self, principal: Principal, now: float | None = None) -> tuple[str, Session]:
        """(cookie, session) of a person the IdP signed in, as their claims mapped them."""
        identity: dict[str, object] = {
            "ten": principal.tenant,
            "scp": sorted(s.value for s in principal.scopes),
        }
        return self._issue(principal, "o:", now, identity)

    def _issue(
        self,
        principal: Principal,
        credential: str,
        now: float | None,
        identity: dict[str, object] | None = None,
    ) -> tuple[str, Session]:
        issued = int(time.time() if now is None else now)
        session_id, expires = secrets.token_urlsafe(16), issued + int(self.lifetime)
        claims = {
            "sid": session_id,
            "sub": principal.id,
            "crd": credential,
            "iat": issued,
            "exp": expires,
            **(identity or {}),
        }
        body = b64url(json.dumps(claims, separators=(",", ":")).encode())
        cookie = f"{body}.{b64url(self._mac(body))}"
        kind = credential.partition(":")[0]
        return cookie, Session(principal, session_id, expires, kind == "c", kind == "o")

    # checking

    def verify(
        self, cookie: str, keyring: Keyring, peer_name: str | None, now: float | None = None
    ) -> Session:
        """The session of a cookie this server signed that has not expired and whose credential
        is still valid; Unauthenticated otherwise."""
        claims = self._claims(cookie)
        moment = time.time() if now is None else now
        if not claims.issued - _CLOCK_SKEW <= moment < claims.expires:
            raise _SIGNED_OUT
        principal = keyring.offering(self._principal(claims, keyring, peer_name))
        kind = claims.credential.partition(":")[0]
        return Session(principal, claims.session_id, claims.expires, kind == "c", kind == "o")

    def _claims(self, cookie: str) -> _Claims:
        body, dot, mac = cookie.partition(".")
        if not dot or len(cookie) > _MAX_COOKIE_CHARS or not cookie.isascii():
            raise _SIGNED_OUT
        try:
            if not hmac.compare_digest(unb64url(mac), self._mac(body)):
                raise _SIGNED_OUT
            claims = json.loads(unb64url(body))
        except ValueError:
            raise _SIGNED_OUT from None
        if not isinstance(claims, dict) or not _well_formed(claims):
            raise _SIGNED_OUT
        return _Claims(
            claims["sid"],
            claims["sub"],
            claims["crd"],
            claims["iat"],
            claims["exp"],
            str(claims.get("ten", "")),
            tuple(claims.get("scp", ())),
        )

    def _principal(self, claims: _Claims, keyring: Keyring, peer_name: str | None) -> Principal:
        subject, (kind, _, tag) = claims.subject, claims.credential.partition(":")
        if kind == "a" and not keyring.enabled:
            return ANONYMOUS
        if kind == "o" and keyring.tokens is not None and claims.tenant:
            known = {s.value for s in Scope}
            scopes = frozenset(Scope(s) for s in claims.scopes if s in known)
            return Principal(subject, claims.tenant, scopes)
        if kind == "k" and keyring.enabled and self.key_sign_in:
            for digest in keyring.key_hashes_of(subject):
                if hmac.compare_digest(self._tag(digest), tag):
                    principal = keyring.by_key_hash(digest)
                    if principal is not None:
                        return principal
        if kind == "c" and peer_name and hmac.compare_digest(self._tag(peer_name), tag):
            principal = keyring.by_certificate(peer_name)
            if principal is not None and principal.id == subject:
                return principal
        raise _SIGNED_OUT

    # CSRF

    def csrf_token(self, session: Session) -> str:
        return b64url(self._mac("csrf:" + session.session_id)[:16])

    def csrf_ok(self, session: Session, token: str) -> bool:
        return hmac.compare_digest(self.csrf_token(session).encode(), token.encode())

    def _tag(self, value: str) -> str:
        return b64url(self._mac("credential:" + value)[:_TAG_BYTES])

    def _mac(self, text: str) -> bytes:
        return hmac.new(self._key, text.encode(), hashlib.sha256).digest()


def _well_formed(claims: dict[str, object]) -> bool:
    texts = all(isinstance(claims.get(k), str) for k in ("sid", "sub", "crd"))
    scopes = claims.get("scp", [])
    if not isinstance(claims.get("ten", ""), str) or not isinstance(scopes, list):
        return False
    texts = texts and all(isinstance(s, str) for s in scopes)
    numbers = all(
        isinstance(claims.get(k), int) and not isinstance(claims.get(k), bool)
        for k in ("iat", "exp")
    )
    return texts and numbers
