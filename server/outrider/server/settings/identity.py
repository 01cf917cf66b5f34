"""Identity from the company's IdP, read from OUTRIDER_OIDC_* environment variables: which issuer
signs the access tokens every door accepts (security/tokens.py), how their claims become
principals (security/claims.py), and the console's OpenID Connect sign-in (console_edge)."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from outrider.server.units import parse_duration

# Asymmetric algorithms only: `none` and HMAC (whose "key" would be the IdP's public key) never.
ASYMMETRIC_ALGORITHMS = (
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA",
)  # fmt: skip
DOORS = ("grpc", "rest", "a2a", "console", "mcp")
_URL = re.compile(r"https?://[^/\s?#]+(/[^\s?#]*)?")


class OidcSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="OUTRIDER_OIDC_", frozen=True)

    issuer: str | None = Field(
        None,
        description="The IdP's issuer URL, compared exactly with every token's `iss`; unset: no "
        "token is accepted and the console signs in with keys only. Its keys come from the "
        "`jwks_uri` of <issuer>/.well-known/openid-configuration.",
    )
    jwks_url: str | None = Field(
        None, description="The IdP's JWKS URL, when it is not the one discovery names."
    )
    audience: str | None = Field(
        None,
        description="The `aud` an access token must carry on gRPC, REST, A2A and the console "
        "(one API identifier registered at the IdP); unset: OUTRIDER_PUBLIC_URL.",
    )
    audiences: dict[str, str] = Field(
        default_factory=dict,
        description='Per-door audiences as JSON, overriding the two defaults, e.g. {"grpc": '
        '"api://outrider-grpc"}; doors: grpc, rest, a2a, console, mcp. /mcp takes tokens for '
        "its own URL only (RFC 8707): OUTRIDER_PUBLIC_URL + /mcp unless set here.",
    )
    algorithms: Annotated[tuple[str, ...], NoDecode] = Field(
        ("RS256", "PS256", "ES256", "EdDSA"),
        description="Comma-separated signature algorithms accepted (asymmetric ones only; "
        "`none` and HS* are always refused).",
    )
    leeway: float = Field(
        30.0, ge=0, le=300, description="Seconds of clock skew allowed on `exp`, `nbf` and `iat`."
    )
    jwks_refresh: float = Field(
        10.0,
        ge=0,
        description="Seconds at least between two reads of the JWKS caused by a token naming an "
        "unknown `kid` (a rotation is picked up at once; random kids cannot make it read more).",
    )
    jwks_max_age: float = Field(
        "1h",
        gt=0,
        validate_default=True,
        description="Keys are read again after this long even without an unknown `kid`, so a "
        "key the IdP withdrew stops verifying (seconds, or 30m, 1h).",
    )
    network_allow: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        description="Comma-separated private or loopback networks (optionally :port) the IdP "
        "may be reached at; the outbound guard refuses them otherwise (browser runs are not "
        "given these).",
    )
    id_claim: str = Field(
        "sub", description="Claim naming the principal (recorded as created_by, resolved_by)."
    )
    tenant_claim: str = Field(
        "tenant",
        description="Claim naming the principal's tenant (a dotted path reaches into objects).",
    )
    scope_claim: str = Field(
        "scope",
        description="Claim of the scopes the IdP granted (space-separated or a list; `scp` "
        "is read too); values that are Outrider scopes count.",
    )
    groups_claim: str = Field(
        "groups",
        description="Claim whose values (groups, roles) OUTRIDER_OIDC_GROUP_SCOPES maps to "
        "scopes; a dotted path such as realm_access.roles reaches into objects.",
    )
    group_scopes: dict[str, list[str]] = Field(
        default_factory=dict,
        description='Group or role -> scopes as JSON, e.g. {"outrider-operators": ["runs.start", '
        '"runs.read", "interactions.answer", "runs.cancel"], "outrider-admins": ["admin"]}.',
    )
    mapping: Literal["strict", "default"] = Field(
        "strict",
        description="strict: a token or sign-in whose claims map to no scope, or that names no "
        "tenant, is refused. default: it gets OUTRIDER_OIDC_DEFAULT_SCOPES in "
        "OUTRIDER_OIDC_DEFAULT_TENANT.",
    )
    default_tenant: str = Field("default", description="The tenant of the default mode.")
    default_scopes: Annotated[tuple[str, ...], NoDecode] = Field(
        ("runs.read",), description="Comma-separated scopes of the default mode."
    )
    client_id: str | None = Field(
        None, description="The console's client id at the IdP; unset: no SSO sign-in."
    )
    client_secret: SecretStr | None = Field(
        None, description="The console's client secret (unset: a public client, PKCE only)."
    )
    scopes: str = Field(
        "openid email profile", description="Scopes the console asks for at sign-in."
    )
    redirect_url: str | None = Field(
        None,
        description="The console's callback registered at the IdP; unset: OUTRIDER_PUBLIC_URL + "
        "/console/sign-in/oidc/callback (or the address the browser reached).",
    )
    email_claim: str = Field("email", description="Claim holding the person's email address.")
    allowed_email_domains: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        description="Comma-separated email domains that may sign in to the console (a verified "
        "email in one of them is required); empty: any.",
    )
    key_sign_in: bool = Field(
        True,
        description="The console also signs in with an API key (a way in while the IdP is "
        "down); false: SSO only, and key sign-ins already made end.",
    )
    provider_name: str = Field(
        "your identity provider", description="Shown on the console's sign-in button."
    )

    @field_validator(
        "algorithms", "network_allow", "allowed_email_domains", "default_scopes", mode="before"
    )
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("jwks_max_age", mode="before")
    @classmethod
    def _duration(cls, value: object) -> object:
        return parse_duration(value)

    @field_validator("algorithms")
    @classmethod
    def _asymmetric(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        refused = [a for a in value if a not in ASYMMETRIC_ALGORITHMS]
        if refused or not value:
            raise ValueError(
                f"{refused or 'none'}: only asymmetric algorithms are accepted "
                f"({', '.join(ASYMMETRIC_ALGORITHMS)})"
            )
        return value

    @field_validator("audiences")
    @classmethod
    def _doors(cls, value: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(value) - set(DOORS))
        if unknown:
            raise ValueError(f"unknown doors {unknown}; doors: {', '.join(DOORS)}")
        return value

    @field_validator("issuer", "jwks_url", "redirect_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and not _URL.fullmatch(value):
            raise ValueError(f"{value!r} is not an http(s) URL")
        return value

    @field_validator("allowed_email_domains")
    @classmethod
    def _domains(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(d.lower().lstrip("@") for d in value)

    @model_validator(mode="after")
    def _sign_in_needs_an_issuer(self) -> OidcSettings:
        if self.client_id and not self.issuer:
            raise ValueError("OUTRIDER_OIDC_CLIENT_ID needs OUTRIDER_OIDC_ISSUER")
        if not self.key_sign_in and not self.client_id:
            raise ValueError(
                "OUTRIDER_OIDC_KEY_SIGN_IN=false leaves the console no way in: set "
                "OUTRIDER_OIDC_CLIENT_ID (and the issuer) too"
            )
        return self

    def audience_for(self, door: str, public_url: str | None) -> str | None:
        """The `aud` tokens must carry at `door`; None: that door takes no token."""
        if door in self.audiences:
            return self.audiences[door]
        if door == "mcp":
            return f"{public_url}/mcp" if public_url else None
        return self.audience or public_url
