"""/mcp as an OAuth 2.1 resource server (the MCP authorization spec), when an issuer is configured:
its Protected Resource Metadata (RFC 9728) names the IdP as the authorization server, and every
401 and 403 of /mcp points there (`WWW-Authenticate: Bearer resource_metadata="…"`), so an MCP
client that gets a bare 401 finds the IdP, signs the person in and comes back with a token for
this resource (RFC 8707). Outrider is no authorization server: it only checks tokens.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from outrider.server.security.access import MCP_SCOPES
from outrider.server.security.authn import Keyring
from outrider.server.security.identity import Door

WELL_KNOWN = "/.well-known/oauth-protected-resource"
_MAX_AGE = 300  # seconds


@dataclass(frozen=True)
class ProtectedResource:
    resource: str  # this MCP server's URL: the audience its tokens must carry
    issuer: str

    @property
    def metadata_path(self) -> str:
        """RFC 9728 section 3.1: the well-known name goes between the host and the path."""
        return WELL_KNOWN + urlsplit(self.resource).path

    @property
    def metadata_url(self) -> str:
        parts = urlsplit(self.resource)
        return f"{parts.scheme}://{parts.netloc}{self.metadata_path}"

    def document(self) -> dict[str, object]:
        return {
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "scopes_supported": list(MCP_SCOPES),
            "bearer_methods_supported": ["header"],
            "resource_name": "Outrider",
        }

    def routes(self) -> list[BaseRoute]:
        """The metadata at its RFC 9728 path and, for clients that try it, at the root's."""

        async def metadata(request: Request) -> Response:
            headers = {"Cache-Control": f"public, max-age={_MAX_AGE}"}
            return JSONResponse(self.document(), headers=headers)

        paths = dict.fromkeys((self.metadata_path, WELL_KNOWN + "/mcp", WELL_KNOWN))
        return [Route(path, metadata, methods=["GET"]) for path in paths]

    def challenge(self, error: str | None, scopes: Iterable[str]) -> bytes:
        """A Bearer challenge (RFC 6750 section 3) naming the metadata and the scopes to ask
        for; `error` only when a token was sent."""
        parts = [f'resource_metadata="{self.metadata_url}"', f'scope="{" ".join(scopes)}"']
        if error:
            parts.insert(0, f'error="{error}"')
        return ("Bearer " + ", ".join(parts)).encode()


def protected_resource(keyring: Keyring) -> ProtectedResource | None:
    """/mcp's resource, when it takes the IdP's tokens (an issuer and its URL are known)."""
    tokens = keyring.tokens
    audience = tokens.audience(Door.MCP) if tokens is not None else None
    if tokens is None or audience is None:
        return None
    return ProtectedResource(audience, tokens.issuer)
