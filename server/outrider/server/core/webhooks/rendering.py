"""A delivery as the HTTP request of one attempt. Webhook endpoints get the Standard Webhooks
shape: a JSON body `{type, timestamp, data}` signed with every secret still signing. A question's
answer link is made at the attempt (it is never stored) and only for endpoints allowed to carry
links, when links are absolute (OUTRIDER_PUBLIC_URL) and something serves them (the console).
Other kinds of endpoint (A2A push) get the renderer their edge registers."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime

from outrider.server.core.storage.webhook_rows import Claimed
from outrider.server.core.webhooks.egress import Outgoing
from outrider.server.core.webhooks.notices import QUESTION_WAITING
from outrider.server.core.webhooks.signing import signing_secrets, standard_headers

USER_AGENT = "Outrider-Webhooks/1"
Renderer = Callable[[Claimed, float], Outgoing]  # (the claimed delivery, now in Unix seconds)
AnswerUrl = Callable[[str], str]  # an interaction's id -> its one-time answer link


def timestamp(create_us: int) -> str:
    """RFC 3339 in UTC, to the millisecond."""
    moment = datetime.fromtimestamp(create_us / 1_000_000, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class StandardRenderer:
    def __init__(self, answer_url: AnswerUrl | None) -> None:
        self._answer_url = answer_url

    def __call__(self, claimed: Claimed, now: float) -> Outgoing:
        message, endpoint = claimed.delivery.message, claimed.endpoint
        data = json.loads(message.data)
        if message.type == QUESTION_WAITING and endpoint.carry_links:
            link = self._link(str(data.get("interaction", "")))
            if link:
                data["answer_url"] = link
        payload = {"type": message.type, "timestamp": timestamp(message.create_us), "data": data}
        body = json.dumps(payload, separators=(",", ":")).encode()
        keys = signing_secrets(endpoint.credentials.secrets, int(now * 1_000_000))
        headers = {
            "content-type": "application/json",
            "user-agent": USER_AGENT,
            **standard_headers(message.id, body, keys, now),
        }
        return Outgoing(endpoint.url, headers, body)

    def _link(self, interaction: str) -> str:
        if self._answer_url is None or not interaction:
            return ""
        link = self._answer_url(interaction.removeprefix("interactions/"))
        return link if link.startswith(("http://", "https://")) else ""
