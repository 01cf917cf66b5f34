"""The IdP's access tokens as principals, per door: the verifier (tokens.py) checks a token for the
audience of the door it came to, and the claim mapping (claims.py) makes its principal.

Doors and their audiences (OUTRIDER_OIDC_AUDIENCE / _AUDIENCES): gRPC, REST, A2A and the console
take the API's audience; /mcp only tokens issued for its own URL (RFC 8707), so a token for the
API is refused there and an MCP token on the API, and no token passes through to another.
"""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import Any

from outrider.server.core.principals import Principal
from outrider.server.security.claims import ClaimMapping
from outrider.server.security.provider import IdentityProvider, SigningKeys
from outrider.server.security.tokens import TokenRefused, TokenVerifier
from outrider.server.settings import Settings

log = logging.getLogger(__name__)


class Door(StrEnum):
    GRPC = "grpc"
    REST = "rest"
    A2A = "a2a"
    CONSOLE = "console"
    MCP = "mcp"


class Tokens:
    def __init__(self, settings: Settings) -> None:
        oidc = settings.oidc
        self.settings = oidc
        self.provider = IdentityProvider(oidc)
        self.verifier = TokenVerifier(oidc, SigningKeys(self.provider, oidc))
        self.mapping = ClaimMapping(oidc)
        self._audiences = {door: oidc.audience_for(door, settings.public_url) for door in Door}
        if oidc.client_id and oidc.client_id in self._audiences.values():
            # an ID token of the console (its audience is the client id) is no access token
            raise ValueError("OUTRIDER_OIDC_CLIENT_ID may not be the audience of a door")
        closed = [door.value for door, audience in self._audiences.items() if audience is None]
        if closed:
            log.warning(
                "no audience for %s (set OUTRIDER_OIDC_AUDIENCE, OUTRIDER_PUBLIC_URL or "
                "OUTRIDER_OIDC_AUDIENCES): those doors take keys but no access tokens",
                ", ".join(closed),
            )

    @property
    def issuer(self) -> str:
        return self.verifier.issuer

    def audience(self, door: Door) -> str | None:
        return self._audiences[door]

    async def principal(self, token: str, door: Door) -> Principal:
        """The principal of a token sent to `door` (the IdP's keys read again if it names a new
        one); TokenRefused, or PermissionDenied when its claims map to nothing."""
        return self.mapping.principal(await self.verifier.verify(token, self._audience(door)))

    def principal_cached(self, token: str, door: Door) -> Principal:
        """The same with the keys known now (a stream checking its caller again)."""
        return self.mapping.principal(self.verifier.verify_cached(token, self._audience(door)))

    async def id_token_claims(self, token: str, client_id: str, nonce: str) -> dict[str, Any]:
        """The claims of an ID token the console's sign-in received (audience: its client)."""
        return await self.verifier.verify(token, client_id, nonce)

    def _audience(self, door: Door) -> str:
        audience = self._audiences[door]
        if audience is None:
            raise TokenRefused(f"this server takes no access tokens on {door.value}")
        return audience
