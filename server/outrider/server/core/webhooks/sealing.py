"""Endpoint credentials sealed at rest: signing secrets, and A2A push configs' Authorization and
token, are stored encrypted (AES-256-GCM under a key derived from the server's signing key,
bound to the endpoint's id), so a copy of the endpoints table alone signs nothing. They are
sealed when written (`endpoints.py`, `push_configs.py`) and opened only where they are used:
the attempt's rendering and a push config shown back to its owner. A value written before
sealing (no prefix) reads as it is."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from outrider.server.core.paging import b64url, unb64url
from outrider.server.core.storage.webhook_rows import Claimed, Credentials
from outrider.server.core.webhooks.egress import Outgoing
from outrider.server.core.webhooks.rendering import Renderer

PREFIX = "sealed1:"
_NONCE_BYTES = 12


class CredentialSeal:
    def __init__(self, key: bytes) -> None:
        self._aead = AESGCM(key)

    def seal(self, endpoint_id: str, credentials: Credentials) -> Credentials:
        """Every value sealed (those sealed already are kept: a rotation keeps the old ones)."""
        return self._each(credentials, lambda value: self._seal(endpoint_id, value))

    def open(self, endpoint_id: str, credentials: Credentials) -> Credentials:
        return self._each(credentials, lambda value: self._open(endpoint_id, value))

    def opens(self, endpoint_id: str, value: str) -> bool:
        """Whether a stored value opens with this key (one sealed under a former key does not)."""
        try:
            self._open(endpoint_id, value)
        except SealBroken:
            return False
        return True

    def opening(self, renderer: Renderer) -> Renderer:
        """`renderer`, given the claimed endpoint's credentials opened."""

        def render(claimed: Claimed, now: float) -> Outgoing:
            endpoint = claimed.endpoint
            opened = self.open(endpoint.id, endpoint.credentials)
            endpoint = dataclasses.replace(endpoint, credentials=opened)
            return renderer(dataclasses.replace(claimed, endpoint=endpoint), now)

        return render

    @staticmethod
    def _each(credentials: Credentials, change: Callable[[str], str]) -> Credentials:
        return Credentials(
            tuple((change(secret), until) for secret, until in credentials.secrets),
            change(credentials.authorization),
            change(credentials.token),
        )

    def _seal(self, endpoint_id: str, value: str) -> str:
        if not value or value.startswith(PREFIX):
            return value
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._aead.encrypt(nonce, value.encode(), endpoint_id.encode())
        return PREFIX + b64url(nonce + sealed)

    def _open(self, endpoint_id: str, value: str) -> str:
        if not value.startswith(PREFIX):
            return value
        raw = unb64url(value.removeprefix(PREFIX))
        nonce, sealed = raw[:_NONCE_BYTES], raw[_NONCE_BYTES:]
        try:
            opened = self._aead.decrypt(nonce, sealed, endpoint_id.encode())
        except InvalidTag:
            raise SealBroken(endpoint_id) from None
        return opened.decode()


class SealBroken(Exception):
    """A sealed credential does not open: the signing key changed since it was written (set
    OUTRIDER_PAGE_TOKEN_SECRET alike on every replica), or the row was altered."""

    def __init__(self, endpoint_id: str) -> None:
        super().__init__(
            f"the credentials of webhook endpoint {endpoint_id} do not open with this server's "
            "key (was the signing key changed?)"
        )
