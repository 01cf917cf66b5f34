"""The company's IdP as this server sees it: its discovery document and its signing keys, both read
through the outbound guard (net/) and cached.

Keys are read again when a token names a `kid` the cache lacks (the IdP rotated), at most once per
OUTRIDER_OIDC_JWKS_REFRESH seconds so that made-up kids cannot make this server hammer the IdP,
and after OUTRIDER_OIDC_JWKS_MAX_AGE in any case, so a key the IdP withdrew stops verifying. A
failed read keeps the keys already known. Reads are asynchronous (httpx) and one at a time: the
event loop never waits on the network, and a burst of new tokens causes one read.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from outrider.server.net.guard import NetworkGuard
from outrider.server.net.transport import GuardedTransport
from outrider.server.settings.identity import ASYMMETRIC_ALGORITHMS, OidcSettings

log = logging.getLogger(__name__)
Jwk = Mapping[str, Any]
_TIMEOUT = httpx.Timeout(10.0)
_MAX_BYTES = 512 * 1024
_KEY_TYPES = frozenset({"RSA", "EC", "OKP"})  # never "oct": a shared secret is no public key


class ProviderUnreachable(Exception):
    """The IdP's document could not be read or was not what it should be (said in the log)."""


class IdentityProvider:
    """Reads the IdP's JSON documents (discovery, JWKS) through the outbound guard, never
    following redirects."""

    def __init__(self, settings: OidcSettings) -> None:
        assert settings.issuer, "no issuer configured"
        self.issuer = settings.issuer
        self._jwks_url = settings.jwks_url
        self._guard = NetworkGuard(settings.network_allow)
        self._metadata: dict[str, Any] | None = None
        self._lock = asyncio.Lock()

    def client(self) -> httpx.AsyncClient:
        """An HTTP client whose every request goes through the guard (token and userinfo calls
        of the console's sign-in use it too)."""
        return httpx.AsyncClient(
            transport=GuardedTransport(self._guard), timeout=_TIMEOUT, follow_redirects=False
        )

    async def document(self, url: str) -> dict[str, Any]:
        try:
            async with self.client() as http:
                response = await http.get(url, headers={"accept": "application/json"})
            if response.status_code != 200 or len(response.content) > _MAX_BYTES:
                raise ProviderUnreachable(f"{url} answered {response.status_code}")
            body = response.json()
        except (httpx.HTTPError, ValueError, OSError) as error:
            raise ProviderUnreachable(f"{url}: {type(error).__name__}: {error}") from None
        except Exception as error:  # the guard's refusal (BlockedDestination) among others
            raise ProviderUnreachable(f"{url}: {error}") from None
        if not isinstance(body, dict):
            raise ProviderUnreachable(f"{url} did not answer a JSON object")
        return body

    async def metadata(self) -> dict[str, Any]:
        """The discovery document (OpenID Connect Discovery), read once; its `issuer` must be
        exactly the configured one."""
        async with self._lock:
            if self._metadata is None:
                url = self.issuer.rstrip("/") + "/.well-known/openid-configuration"
                found = await self.document(url)
                if found.get("issuer") != self.issuer:
                    raise ProviderUnreachable(
                        f"{url} names the issuer {found.get('issuer')!r}, not {self.issuer!r}"
                    )
                self._metadata = found
            return self._metadata

    async def jwks_url(self) -> str:
        if self._jwks_url:
            return self._jwks_url
        url = (await self.metadata()).get("jwks_uri")
        if not isinstance(url, str):
            raise ProviderUnreachable("the discovery document names no jwks_uri")
        return url


class SigningKeys:
    """The IdP's public keys by `kid`, cached (see the module docstring)."""

    def __init__(
        self,
        provider: IdentityProvider,
        settings: OidcSettings,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._provider = provider
        self._min_interval = settings.jwks_refresh
        self._max_age = settings.jwks_max_age
        self._clock = clock
        self._keys: dict[str, Jwk] = {}
        self._read_at: float | None = None  # of the last read tried, successful or not
        self._fresh_at: float | None = None  # of the last successful read
        self._lock = asyncio.Lock()

    def cached(self, kid: str | None) -> Jwk | None:
        """The key `kid` names, from what is known now (never reads); a token without a kid
        matches the only key of a set of one."""
        if kid is None:
            return next(iter(self._keys.values())) if len(self._keys) == 1 else None
        return self._keys.get(kid)

    async def find(self, kid: str | None) -> Jwk | None:
        """The key `kid` names, reading the set again when it is old or lacks that key."""
        if self._stale():
            await self._read(force=True)
        key = self.cached(kid)
        if key is None and self._may_read_again():
            await self._read(force=False)
            key = self.cached(kid)
        return key

    def _stale(self) -> bool:
        return self._fresh_at is None or self._clock() - self._fresh_at > self._max_age

    def _may_read_again(self) -> bool:
        return self._read_at is None or self._clock() - self._read_at >= self._min_interval

    async def _read(self, force: bool) -> None:
        started = self._clock()
        async with self._lock:
            # another task read them while this one waited: that read serves both
            if self._read_at is not None and self._read_at >= started:
                return
            if not force and not self._may_read_again():
                return
            self._read_at = self._clock()
            try:
                url = await self._provider.jwks_url()
                document = await self._provider.document(url)
            except ProviderUnreachable as error:
                log.warning("the IdP's keys were not read (the known ones stay): %s", error)
                return
            self._keys = usable_keys(document)
            self._fresh_at = self._clock()
            log.info("read the IdP's signing keys: %s", ", ".join(self._keys) or "none")


def usable_keys(document: Mapping[str, Any]) -> dict[str, Jwk]:
    """The JWKS's public signing keys by kid (keys without one are named by their position)."""
    keys: dict[str, Jwk] = {}
    listed = document.get("keys")
    for index, key in enumerate(listed if isinstance(listed, list) else []):
        if not isinstance(key, dict) or key.get("kty") not in _KEY_TYPES:
            continue
        if key.get("use", "sig") != "sig" or key.get("alg", "RS256") not in ASYMMETRIC_ALGORITHMS:
            continue
        if any(part in key for part in ("d", "p", "q", "k")):  # private or secret material
            continue
        keys[str(key.get("kid", f"#{index}"))] = key
    return keys
