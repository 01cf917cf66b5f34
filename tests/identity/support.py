"""A real server (both edges, the ScriptAgent) taking tokens of the test IdP (idp.py) beside a key
file, with people of two tenants and services that get tokens by client credentials."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from outrider.server.settings.identity import OidcSettings
from tests.identity.idp import Idp, running_idp
from tests.rest.support import RestCase, start_rest
from tests.security.tenants import CALLER, Keys
from tests.support.ports import free_port

API = "api://outrider"
CONSOLE_CLIENT = "outrider-console"
SECRET = "console-secret-of-the-identity-tests"
OPERATORS = "outrider-operators"
PEOPLE = {
    "alice": {"tenant": "alpha", "groups": [OPERATORS], "email": "alice@example.com"},
    "bob": {"tenant": "beta", "groups": [OPERATORS], "email": "bob@example.com"},
    "mallory": {"tenant": "alpha", "groups": ["visitors"], "email": "mallory@example.com"},
    "eve": {"tenant": "alpha", "groups": [OPERATORS], "email": "eve@elsewhere.example"},
}
# client id -> (tenant, scopes it may be granted)
SERVICES = {
    "billing-service": ("billing", "runs.start runs.read runs.cancel interactions.answer"),
    "billing-reader": ("billing", "runs.read"),
}


@dataclass
class IdentityCase:
    idp: Idp
    case: RestCase
    keys: Keys  # a key principal beside the tokens: keys keep working

    @property
    def origin(self) -> str:
        return self.case.origin

    @property
    def mcp_url(self) -> str:
        return f"{self.origin}/mcp"

    @property
    def grpc_target(self) -> str:
        return f"127.0.0.1:{self.case.grpc.port}"

    def service_token(self, client_id: str = "billing-service", resource: str = API) -> str:
        return self.idp.client_credentials(client_id, resource, SERVICES[client_id][1])


def idp_config(origin: str) -> dict[str, Any]:
    console = {
        "client_id": CONSOLE_CLIENT,
        "client_secret": SECRET,
        "redirect_uris": [f"{origin}/console/sign-in/oidc/callback"],
        "post_logout_redirect_uris": [f"{origin}/console/sign-in"],
        "grant_types": ["authorization_code"],
        "response_types": ["code"],
    }
    services = [
        {
            "client_id": client_id,
            "client_secret": f"{client_id}-secret-of-the-identity-tests",
            "grant_types": ["client_credentials"],
            "response_types": [],
            "redirect_uris": [],
            "tenant": tenant,
        }
        for client_id, (tenant, _) in SERVICES.items()
    ]
    return {
        "resources": [API, f"{origin}/mcp"],
        "clients": [console, *services],
        "accounts": PEOPLE,
    }


def oidc_settings(idp: Idp, **overrides: Any) -> OidcSettings:
    return OidcSettings(
        issuer=idp.issuer,
        audience=API,
        network_allow=(f"127.0.0.1:{idp.port}",),
        group_scopes={OPERATORS: CALLER},
        jwks_refresh=0.0,  # tests rotate keys and send unknown kids one after another
        client_id=CONSOLE_CLIENT,
        client_secret=SECRET,
        scopes="openid email",
        allowed_email_domains=("example.com",),
        provider_name="the test IdP",
        **overrides,
    )


@asynccontextmanager
async def identity_server(folder: Path, **overrides: Any) -> AsyncIterator[IdentityCase]:
    """The IdP, then the server on a port chosen first (the IdP knows its console's callback
    and its MCP resource by URL)."""
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    async with AsyncExitStack() as stack:
        idp = stack.enter_context(running_idp(folder, idp_config(origin)))
        keys = Keys(folder / "keys.toml")
        keys.add("ops-key", "alpha", CALLER)
        case = await start_rest(
            folder / "data",
            rest_port=port,
            public_url=origin,
            keys_file=keys.file,
            oidc=oidc_settings(idp, **overrides),
        )
        stack.push_async_callback(case.stop)
        yield IdentityCase(idp, case, keys)
