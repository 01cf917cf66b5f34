"""The MCP client behind one tool call, as the watch needs it: what it can be asked, and the
request-scoped channel for progress and (on handshake-era sessions) elicitation requests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_types.version import MODERN_PROTOCOL_VERSIONS, is_version_at_least

from mcp import types
from mcp.server.context import ServerRequestContext

ElicitParams = types.ElicitRequestFormParams | types.ElicitRequestURLParams


@dataclass(frozen=True)
class Abilities:
    """`form`/`url`: elicitation modes the client declared; `titled`: it takes enums with titles;
    `push`: questions are sent as requests during the call (handshake era); otherwise they are
    returned as input requests and the call is retried with the answers (2026-07-28)."""

    form: bool = False
    url: bool = False
    titled: bool = False
    push: bool = False

    @property
    def asks(self) -> bool:
        return self.form or self.url


def abilities_of(ctx: ServerRequestContext[Any, Any]) -> Abilities:
    version = ctx.protocol_version
    modern = version in MODERN_PROTOCOL_VERSIONS
    push = not modern and ctx.session.can_send_request
    capabilities = ctx.session.client_capabilities
    declared = capabilities.elicitation if capabilities is not None else None
    if declared is None or not (modern or push):  # stateless handshake-era HTTP cannot ask
        return Abilities(titled=is_version_at_least(version, "2025-11-25"), push=push)
    url = declared.url is not None and is_version_at_least(version, "2025-11-25")
    # an empty elicitation capability means form mode (the spec's compatibility rule)
    form = declared.form is not None or declared.url is None
    return Abilities(form, url, is_version_at_least(version, "2025-11-25"), push)


class Peer:
    def __init__(self, ctx: ServerRequestContext[Any, Any]) -> None:
        self._ctx = ctx
        self.abilities = abilities_of(ctx)

    async def progress(self, value: float, message: str) -> None:
        """A no-op unless the call asked for progress (a progress token)."""
        await self._ctx.session.report_progress(value, None, message)

    async def elicit(self, params: ElicitParams) -> types.ElicitResult:
        """Asks now, on the call's own stream (handshake-era sessions only)."""
        session, related = self._ctx.session, self._ctx.request_id
        if isinstance(params, types.ElicitRequestURLParams):
            assert params.elicitation_id is not None
            return await session.elicit_url(
                params.message, params.url, params.elicitation_id, related
            )
        return await session.elicit_form(params.message, params.requested_schema, related)

    async def elicit_complete(self, elicitation_id: str) -> None:
        """Tells the client the page it was sent to has been answered (handshake era)."""
        await self._ctx.session.send_elicit_complete(elicitation_id, self._ctx.request_id)

    def cancel_requested(self) -> bool:
        """Whether the client sent notifications/cancelled for this call (as opposed to going
        away). The SDK keeps that flag on the call's dispatch context, which the low-level
        context does not expose; read it there (pinned SDK version, covered by a test)."""
        outbound = getattr(self._ctx.session, "_request_outbound", None)
        flag = getattr(outbound, "cancel_requested", None)
        return bool(flag is not None and flag.is_set())
