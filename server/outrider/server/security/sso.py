"""The console's sign-in through the company's IdP: an OpenID Connect relying party using the
authorization code flow with PKCE (S256), `state` and a `nonce` (the console's pages are
console_edge/sso.py).

- The request URIs and PKCE come from authlib's protocol helpers; every call to the IdP (token,
  userinfo) goes through the outbound guard (provider.py); the ID token is checked by this
  server's one verifier (tokens.py: issuer, audience = the console's client id, expiry,
  algorithm, key) and must carry the nonce this browser's attempt sent.
- The attempt (state, nonce, code verifier, the page to return to) lives in a signed cookie of
  the browser that started it for ATTEMPT_SECONDS: a callback without it, or with another
  state, is refused (login CSRF).
- RFC 9207: when the IdP sends `iss` with the code (or says it does), it must be the issuer.
- The person's claims (ID token, then userinfo for the same `sub`) become a principal through
  the claim mapping (claims.py); OUTRIDER_OIDC_ALLOWED_EMAIL_DOMAINS asks for an email, not
  marked unverified, in one of them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import quote

import httpx
from authlib.common.urls import add_params_to_uri
from authlib.oauth2.rfc6749.parameters import prepare_grant_uri, prepare_token_request
from authlib.oauth2.rfc7636 import create_s256_code_challenge

from outrider.server.core.errors import OutriderError, Unauthenticated
from outrider.server.core.paging import b64url, unb64url
from outrider.server.core.principals import Principal
from outrider.server.security.identity import Tokens
from outrider.server.security.provider import ProviderUnreachable

log = logging.getLogger(__name__)
ATTEMPT_SECONDS = 600
_ERROR_CODE = re.compile(r"^[a-z_]{1,64}$")


class SignInFailed(Unauthenticated):
    default_reason = "SIGN_IN_FAILED"


@dataclass(frozen=True)
class Attempt:
    state: str
    nonce: str
    verifier: str
    next_page: str
    started: int


@dataclass(frozen=True)
class SignedIn:
    principal: Principal
    id_token: str  # for the IdP's logout (id_token_hint)


class Attempts:
    """Sign-ins under way, each sealed (HMAC) into a cookie of the browser that started it."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def new(self, next_page: str) -> Attempt:
        token = secrets.token_urlsafe
        return Attempt(token(24), token(24), token(48), next_page, int(time.time()))

    def seal(self, attempt: Attempt) -> str:
        body = b64url(json.dumps(asdict(attempt), separators=(",", ":")).encode())
        return f"{body}.{b64url(self._mac(body))}"

    def open(self, cookie: str, state: str) -> Attempt:
        """The attempt `cookie` holds, if it is ours, recent and for this `state`."""
        body, _, mac = cookie.partition(".")
        try:
            if not hmac.compare_digest(unb64url(mac), self._mac(body)):
                raise ValueError("not ours")
            attempt = Attempt(**json.loads(unb64url(body)))
        except (ValueError, TypeError):
            raise SignInFailed("this sign-in was not started here; start again") from None
        if time.time() - attempt.started > ATTEMPT_SECONDS:
            raise SignInFailed("this sign-in took too long; start again")
        if not hmac.compare_digest(attempt.state.encode(), state.encode()):
            raise SignInFailed("this sign-in was not started here; start again")
        return attempt

    def _mac(self, body: str) -> bytes:
        return hmac.new(self._key, body.encode(), hashlib.sha256).digest()


class RelyingParty:
    def __init__(self, tokens: Tokens) -> None:
        settings = tokens.settings
        assert settings.client_id, "no client id configured"
        self._tokens = tokens
        self._client_id = settings.client_id
        self._secret = settings.client_secret.get_secret_value() if settings.client_secret else ""
        self._scopes = settings.scopes
        self._email_claim = settings.email_claim
        self._domains = settings.allowed_email_domains

    async def authorization_url(self, attempt: Attempt, redirect_uri: str) -> str:
        endpoint = await self._endpoint("authorization_endpoint")
        return str(
            prepare_grant_uri(
                endpoint,
                self._client_id,
                "code",
                redirect_uri,
                self._scopes,
                attempt.state,
                nonce=attempt.nonce,
                code_challenge=create_s256_code_challenge(attempt.verifier),
                code_challenge_method="S256",
            )
        )

    async def sign_in(
        self, answer: Mapping[str, str], attempt: Attempt, redirect_uri: str
    ) -> SignedIn:
        """The person the IdP's answer (the callback's query) names; SignInFailed, or
        PermissionDenied when their claims map to no access."""
        error = answer.get("error", "")
        if error:
            code = error if _ERROR_CODE.match(error) else "error"
            raise SignInFailed(f"the identity provider did not sign you in ({code})")
        await self._check_issuer(answer.get("iss"))
        tokens = await self._redeem(answer.get("code", ""), attempt, redirect_uri)
        id_token = str(tokens.get("id_token", ""))
        claims = await self._tokens.id_token_claims(id_token, self._client_id, attempt.nonce)
        claims = await self._with_userinfo(claims, str(tokens.get("access_token", "")))
        self._check_email(claims)
        return SignedIn(self._tokens.mapping.principal(claims), id_token)

    async def end_session_url(self, id_token: str, after: str) -> str | None:
        """Where the browser ends the IdP's session too (RP-initiated logout), if it offers it."""
        try:
            endpoint = (await self._tokens.provider.metadata()).get("end_session_endpoint")
        except ProviderUnreachable:
            return None
        if not isinstance(endpoint, str):
            return None
        hint = [("id_token_hint", id_token)] if id_token else []
        params = [("client_id", self._client_id), ("post_logout_redirect_uri", after), *hint]
        return str(add_params_to_uri(endpoint, params))

    async def _metadata(self) -> dict[str, Any]:
        try:
            return await self._tokens.provider.metadata()
        except ProviderUnreachable as error:
            log.warning("console sign-in: the IdP cannot be reached: %s", error)
            raise SignInFailed("the identity provider cannot be reached now") from None

    async def _endpoint(self, name: str) -> str:
        found = (await self._metadata()).get(name)
        if not isinstance(found, str):
            raise SignInFailed(f"the identity provider names no {name}")
        return found

    async def _check_issuer(self, iss: str | None) -> None:
        metadata = await self._metadata()
        expected = metadata.get("authorization_response_iss_parameter_supported") is True
        if (iss is not None or expected) and iss != self._tokens.issuer:
            raise SignInFailed("the answer came from another identity provider")

    async def _redeem(self, code: str, attempt: Attempt, redirect_uri: str) -> dict[str, Any]:
        """The token endpoint's answer for `code` (client_secret_basic, or a public client)."""
        endpoint = await self._endpoint("token_endpoint")
        public = {} if self._secret else {"client_id": self._client_id}
        body = prepare_token_request(
            "authorization_code",
            code=code,
            redirect_uri=redirect_uri,
            code_verifier=attempt.verifier,
            **public,
        )
        headers = {"content-type": "application/x-www-form-urlencoded"}
        if self._secret:
            headers["authorization"] = _client_secret_basic(self._client_id, self._secret)
        try:
            async with self._tokens.provider.client() as http:
                answer = await http.post(endpoint, content=body, headers=headers)
            tokens = answer.json()
        except (httpx.HTTPError, OutriderError, ValueError) as error:
            log.warning("console sign-in: the token endpoint failed: %s", error)
            raise SignInFailed("the identity provider cannot be reached now") from None
        if answer.status_code != 200 or not isinstance(tokens, dict):
            log.warning("console sign-in: the token endpoint answered %s", answer.status_code)
            raise SignInFailed("the identity provider did not confirm the sign-in")
        return tokens

    async def _with_userinfo(self, claims: dict[str, Any], access_token: str) -> dict[str, Any]:
        """The ID token's claims and, where the IdP keeps them there, the userinfo's (for the
        same subject; the ID token's win)."""
        endpoint = (await self._metadata()).get("userinfo_endpoint")
        if not isinstance(endpoint, str) or not access_token:
            return claims
        headers = {"authorization": f"Bearer {access_token}", "accept": "application/json"}
        try:
            async with self._tokens.provider.client() as http:
                answer = await http.get(endpoint, headers=headers)
            info = answer.json() if answer.status_code == 200 else {}
        except (httpx.HTTPError, OutriderError, ValueError) as error:
            log.warning(
                "console sign-in: userinfo not read (the ID token's claims stand): %s", error
            )
            return claims
        if not isinstance(info, dict) or info.get("sub") != claims.get("sub"):
            return claims
        return info | claims

    def _check_email(self, claims: dict[str, Any]) -> None:
        if not self._domains:
            return
        email = claims.get(self._email_claim)
        domain = email.rpartition("@")[2].lower() if isinstance(email, str) else ""
        if domain not in self._domains or claims.get("email_verified") is False:
            raise SignInFailed(
                "your account's email address is not in a domain allowed to use this console"
            )


def _client_secret_basic(client_id: str, secret: str) -> str:
    """RFC 6749 section 2.3.1: both parts form-encoded, then HTTP Basic."""
    pair = f"{quote(client_id, safe='')}:{quote(secret, safe='')}"
    return "Basic " + base64.b64encode(pair.encode()).decode()
