"""One-time answer links: `/console/answer/<token>` answers one pending interaction in a web page
without an API key, so a notification (chat, email, an MCP client's URL elicitation) can carry it.

A token is the interaction id and an HMAC over it, with a key derived from the server's signing
key (shared by replicas): it names one interaction, cannot be forged or pointed at another, and
is the same for every caller shown it (nothing per link is stored). It is good while that
interaction is pending: once answered, expired or cancelled, every copy is refused, so it is
used once. Whoever holds it answers as the principal `answer-link` of the run's tenant, through
the same path as an API answer (checked once, relayed to the executing replica, values redacted
and never stored).

Callers allowed to answer (the `interactions.answer` scope, or admin) are shown the link: in
GetInteraction/ListInteractions (`Interaction.answer_url`) and, when they ask for it, on the
request events of their streams (set on a copy at delivery, never in the store).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable

from outrider.server.core import clock
from outrider.server.core.errors import FailedPrecondition, NotFound
from outrider.server.core.interactions.answers import Answers
from outrider.server.core.interactions.broker import InteractionBroker
from outrider.server.core.names import parse_interaction_name
from outrider.server.core.paging import b64url, unb64url
from outrider.server.core.principals import SYSTEM, Principal, Scope
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import run_event_pb2

CONSOLE_PATH = "/console"  # where the HTTP port serves the console, which serves the links
LINK_PATH = f"{CONSOLE_PATH}/answer/"
LINK_PRINCIPAL = "answer-link"
_MAC_BYTES = 16
_MAX_TOKEN_CHARS = 200
_INVALID = "this answer link is not valid; ask for a new one"


def without_token(path: str) -> str:
    """`path` for logs and spans: an answer link's token (the secret) replaced by "…"."""
    at = path.find(LINK_PATH)
    return path if at < 0 else path[: at + len(LINK_PATH)] + "…"


class AnswerLinks:
    """Issues and checks answer links; `base` is the public URL ("" for paths), `enabled` false
    when nothing serves the link page (no console), and then no link is issued."""

    def __init__(
        self,
        key: bytes,
        base: str,
        enabled: bool,
        broker: InteractionBroker,
        answers: Answers,
        tenant_of_run: Callable[[str], str | None],
    ) -> None:
        self._key = key
        self._base = base.rstrip("/")
        self.enabled = enabled
        self._broker = broker
        self._answers = answers
        self._tenant_of_run = tenant_of_run

    # issuing

    def token(self, interaction_id: str) -> str:
        return f"{b64url(interaction_id.encode())}.{b64url(self._mac(interaction_id))}"

    def url(self, interaction_id: str) -> str:
        return f"{self._base}{LINK_PATH}{self.token(interaction_id)}"

    def shown_to(self, principal: Principal) -> bool:
        """Whether `principal` may be given links: it could answer with its own key anyway."""
        return self.enabled and (
            principal.is_admin or Scope.INTERACTIONS_ANSWER in principal.scopes
        )

    def with_link(self, interaction: ip.Interaction, principal: Principal) -> ip.Interaction:
        """`interaction`, with its link when it is pending and `principal` may see it (a copy)."""
        if interaction.state != ip.INTERACTION_STATE_PENDING or not self.shown_to(principal):
            return interaction
        shown = ip.Interaction()
        shown.CopyFrom(interaction)
        shown.answer_url = self.url(interaction.name.removeprefix("interactions/"))
        return shown

    def held_refs(self, interaction: ip.Interaction) -> frozenset[str]:
        """The fields of a form whose values were already given (a part held by this replica,
        from an MCP client's form): the link's page asks only for the others."""
        return self._broker.held_refs(interaction.name.removeprefix("interactions/"))

    def get(self, interaction_id: str, principal: Principal) -> ip.Interaction:
        """GetInteraction: the interaction (the principal's tenant only), with its link."""
        return self.with_link(self._broker.get(interaction_id, principal), principal)

    def on_events(
        self, batch: list[run_event_pb2.RunEvent], principal: Principal
    ) -> list[run_event_pb2.RunEvent]:
        """The batch with links on the request events of interactions still pending (copies of
        those events; the others are the log's own objects, unchanged)."""
        if not self.shown_to(principal):
            return batch
        return [self._linked(event) for event in batch]

    def _linked(self, event: run_event_pb2.RunEvent) -> run_event_pb2.RunEvent:
        request = _request_of(event)
        if request is None:
            return event
        interaction_id = (
            request.approval_id
            if isinstance(request, run_event_pb2.ApprovalRequested)
            else request.request_id
        )
        if not interaction_id or not self._broker.is_pending(interaction_id):
            return event
        linked = run_event_pb2.RunEvent()
        linked.CopyFrom(event)
        copy = _request_of(linked)
        assert copy is not None
        copy.answer_url = self.url(interaction_id)
        return linked

    # answering

    def open(self, token: str) -> ip.Interaction:
        """The pending interaction the token names: NotFound for a token this server did not
        issue, FailedPrecondition (with the reason) once the interaction is no longer pending."""
        interaction = self._broker.get(self._interaction_id(token), SYSTEM)
        expired = clock.now_us() >= interaction.expire_time.ToMicroseconds()
        if interaction.state != ip.INTERACTION_STATE_PENDING or expired:
            raise FailedPrecondition(*_closed(interaction, expired))
        return interaction

    async def submit_input(
        self, token: str, values: list[tuple[str, str]], cancelled: bool
    ) -> ip.Interaction:
        interaction = self.open(token)
        interaction_id = interaction.name.removeprefix("interactions/")
        principal = self._principal(interaction)
        return await self._answers.submit_input(interaction_id, values, cancelled, principal)

    async def decide_approval(self, token: str, answer: tuple[int, int, str]) -> ip.Interaction:
        interaction = self.open(token)
        interaction_id = interaction.name.removeprefix("interactions/")
        principal = self._principal(interaction)
        return await self._answers.decide_approval(interaction_id, answer, principal)

    def _principal(self, interaction: ip.Interaction) -> Principal:
        """Who answers through a link: nobody's key, only this tenant's answer scope."""
        tenant = self._tenant_of_run(interaction.run.removeprefix("runs/"))
        if tenant is None:
            raise NotFound(_INVALID)
        return Principal(LINK_PRINCIPAL, tenant, frozenset({Scope.INTERACTIONS_ANSWER}))

    def _interaction_id(self, token: str) -> str:
        body, dot, mac = token.partition(".")
        if not dot or len(token) > _MAX_TOKEN_CHARS or not token.isascii():
            raise NotFound(_INVALID)
        try:
            interaction_id = unb64url(body).decode("ascii")
            signed = hmac.compare_digest(unb64url(mac), self._mac(interaction_id))
        except ValueError:  # bad base64 (binascii.Error) or bytes that are not ASCII
            raise NotFound(_INVALID) from None
        if not signed:
            raise NotFound(_INVALID)
        return parse_interaction_name(interaction_id, "token")

    def _mac(self, interaction_id: str) -> bytes:
        digest = hmac.new(self._key, interaction_id.encode(), hashlib.sha256).digest()
        return digest[:_MAC_BYTES]


_LinkedRequest = (
    ae.InteractiveFormDataRequest | ae.InteractiveFormDataError | run_event_pb2.ApprovalRequested
)


def _request_of(event: run_event_pb2.RunEvent) -> _LinkedRequest | None:
    """The message of a request event that can carry a link, or None."""
    arm = event.WhichOneof("payload")
    if arm == "approval_requested":
        return event.approval_requested
    if arm == "automate":
        inner = event.automate.WhichOneof("event")
        if inner in ("interactive_form_data_request", "interactive_form_data_error"):
            request: _LinkedRequest = getattr(event.automate, inner)
            return request
    return None


def _closed(interaction: ip.Interaction, expired: bool) -> tuple[str, str]:
    """The message and reason that refuse a link to an interaction no longer pending."""
    if interaction.state == ip.INTERACTION_STATE_RESOLVED:
        by = interaction.resolved_by or "someone"
        return (
            f"This question was already answered (by {by}); an answer link works once.",
            "INTERACTION_ALREADY_RESOLVED",
        )
    if expired or interaction.state == ip.INTERACTION_STATE_EXPIRED:
        return "This question expired before anyone answered it.", "INTERACTION_EXPIRED"
    return "The run ended before this question was answered.", "INTERACTION_CANCELLED"
