"""The webhooks room as the process sees it: the outbox runs and questions report to, the
endpoints and A2A push configs callers manage, the renderers by kind of endpoint (edges add
theirs, as the A2A edge does for push), and this replica's delivery worker."""

from __future__ import annotations

from outrider.server.core import paging
from outrider.server.core.storage import Store
from outrider.server.core.storage.webhook_rows import WEBHOOK
from outrider.server.core.webhooks.dispatcher import Dispatcher, DispatchSettings
from outrider.server.core.webhooks.egress import Egress
from outrider.server.core.webhooks.endpoints import WebhookEndpoints
from outrider.server.core.webhooks.outbox import Outbox
from outrider.server.core.webhooks.push_configs import PushConfigs
from outrider.server.core.webhooks.rendering import AnswerUrl, Renderer, StandardRenderer
from outrider.server.core.webhooks.schedule import Policy
from outrider.server.core.webhooks.sealing import CredentialSeal
from outrider.server.settings.webhooks import WebhookSettings


class Webhooks:
    def __init__(
        self,
        store: Store,
        outbox: Outbox,
        egress: Egress,
        tokens: paging.PageTokens,
        settings: WebhookSettings,
        answer_url: AnswerUrl | None,
        seal: CredentialSeal,
    ) -> None:
        self._settings = settings
        self._seal = seal
        self.outbox = outbox
        self.endpoints = WebhookEndpoints(store, egress, tokens, settings.https_only, seal)
        self.push_configs = PushConfigs(store, egress, seal)
        # webhook endpoints get the standard shape, with answer links made by `answer_url`;
        # every renderer is given the endpoint's credentials opened
        self._renderers: dict[str, Renderer] = {WEBHOOK: seal.opening(StandardRenderer(answer_url))}
        policy = Policy(settings.retry_schedule, settings.disable_after)
        dispatch = DispatchSettings(
            policy, settings.concurrency, settings.poll_interval, settings.lease, settings.retention
        )
        self.dispatcher = Dispatcher(store, egress, self._renderers, dispatch)
        outbox.on_commit(self.dispatcher.wake)

    def render(self, kind: str, renderer: Renderer) -> None:
        """Deliveries to endpoints of `kind` are rendered by `renderer` (an edge's shape)."""
        self._renderers[kind] = self._seal.opening(renderer)

    def start(self) -> None:
        if self._settings.deliver:
            self.dispatcher.start()

    async def stop(self) -> None:
        await self.dispatcher.stop()
