"""The agent card: who Outrider is to other agents, its two skills, where it listens (JSON-RPC,
protocol 1.0 and 0.3 on the same URL), and how callers authenticate, the same ways as on every
other edge: an API key as a bearer token, or, under mutual TLS, a mapped client certificate."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from a2a.types import a2a_pb2 as a2a

from outrider.server.a2a_edge.inbound import BROWSE, RESEARCH
from outrider.server.security.access import A2A_RPC_PATH
from outrider.server.security.authn import Keyring
from outrider.server.settings import Settings

RPC_PATH = A2A_RPC_PATH
INPUT_MODES = ["text/plain", "application/json"]
OUTPUT_MODES = ["text/plain", "text/markdown", "application/json", "image/png", "image/jpeg"]

_BROWSE = a2a.AgentSkill(
    id=BROWSE,
    name="Browse the web",
    description=(
        "A browser agent in a real Chromium: opens a page, reads it, clicks, types, fills and "
        "submits forms, and answers. It asks for form data it lacks and for approval before "
        "actions it may not take on its own (input-required). Send the task as text, and as "
        "data any of url, data, guardrails, maxIterations, trustedHostnames."
    ),
    tags=["browser", "web automation", "forms"],
    examples=[
        "Find the price of the Red Mug at https://shop.example.com/",
        "Sign me up for the newsletter at https://example.com/news",
    ],
    input_modes=INPUT_MODES,
    output_modes=["text/plain", "image/png", "image/jpeg"],
)
_RESEARCH = a2a.AgentSkill(
    id=RESEARCH,
    name="Research a question",
    description=(
        "A web research agent: plans, searches, reads and cross-checks pages, and writes a "
        "Markdown report citing only pages it read, with the claims each supports. Send the "
        "question as text, and as data optionally mode (fast, balanced, deep, max, ultra)."
    ),
    tags=["research", "web search", "citations"],
    examples=["How do green and black tea differ in caffeine?"],
    input_modes=INPUT_MODES,
    output_modes=["text/markdown", "application/json"],
)


def agent_card(settings: Settings, keyring: Keyring, base_url: str) -> a2a.AgentCard:
    url = base_url.rstrip("/") + RPC_PATH
    card = a2a.AgentCard(
        name="Outrider",
        description=(
            "Runs AI browser agents and web research agents and reports every step. Tasks "
            "outlive connections: follow one again with tasks/resubscribe."
        ),
        supported_interfaces=[
            a2a.AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0"),
            a2a.AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="0.3"),
        ],
        version=_version(),
        capabilities=a2a.AgentCapabilities(
            streaming=True, push_notifications=True, extended_agent_card=False
        ),
        default_input_modes=INPUT_MODES,
        default_output_modes=OUTPUT_MODES,
        skills=[_BROWSE, _RESEARCH],
    )
    if keyring.enabled:
        _add_security(card, mutual_tls=settings.tls_client_ca is not None)
    if keyring.tokens is not None:
        _add_openid_connect(card, keyring.tokens.issuer)
    return card


def _add_security(card: a2a.AgentCard, mutual_tls: bool) -> None:
    card.security_schemes["bearer"].http_auth_security_scheme.CopyFrom(
        a2a.HTTPAuthSecurityScheme(
            scheme="Bearer",
            description="An Outrider API key (OUTRIDER_API_KEYS or the key file)",
        )
    )
    card.security_requirements.add().schemes["bearer"].SetInParent()
    if mutual_tls:
        card.security_schemes[
            "mtls"
        ].mtls_security_scheme.description = "A client certificate the key file maps to a principal"
        card.security_requirements.add().schemes["mtls"].SetInParent()


def _add_openid_connect(card: a2a.AgentCard, issuer: str) -> None:
    """Access tokens of the company's IdP (OAuth 2 client credentials for agents), found through
    its OpenID Connect discovery document; the scopes are those a task needs."""
    scheme = card.security_schemes["oidc"].open_id_connect_security_scheme
    scheme.open_id_connect_url = issuer.rstrip("/") + "/.well-known/openid-configuration"
    scheme.description = (
        "An access token of the IdP for Outrider's API audience, with the Outrider scopes a "
        "task needs (runs.read, runs.start; runs.cancel, interactions.answer to cancel, answer)"
    )
    requirement = card.security_requirements.add().schemes["oidc"]
    requirement.list.extend(["runs.read", "runs.start"])


def _version() -> str:
    try:
        return version("outrider")
    except PackageNotFoundError:  # running from a source tree
        return "0"
