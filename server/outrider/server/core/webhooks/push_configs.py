"""A2A push notification configs: endpoints that follow one task (run) and receive its state
changes in the A2A shape (rendered by the A2A edge), through the same outbox, dispatcher and
egress guard as webhooks. A config belongs to its run: the caller needs to read the run (another
tenant's run does not exist for it), and it goes when the run's tenant deletes it."""

from __future__ import annotations

import dataclasses

from outrider.server.core import clock
from outrider.server.core.errors import InvalidArgument, NotFound
from outrider.server.core.names import new_id, run_name
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.storage import Store
from outrider.server.core.storage.webhook_rows import A2A, Credentials, EndpointRow
from outrider.server.core.webhooks.checks import check_url
from outrider.server.core.webhooks.egress import Egress
from outrider.server.core.webhooks.notices import RUN_TYPES
from outrider.server.core.webhooks.sealing import CredentialSeal

MAX_CONFIG_ID = 256
MAX_CREDENTIALS = 4096
MAX_CONFIGS_PER_RUN = 16


@dataclasses.dataclass(frozen=True)
class PushTarget:
    """What a client asks to be pushed to: its config's id ("" for a new one), the URL, and the
    Authorization header value and notification token to send with every push."""

    config_id: str
    url: str
    authorization: str = ""
    token: str = ""


class PushConfigs:
    def __init__(self, store: Store, egress: Egress, seal: CredentialSeal) -> None:
        self._store = store
        self._egress = egress
        self._seal = seal

    async def set(self, run_id: str, target: PushTarget, principal: Principal) -> EndpointRow:
        """Creates the config, or replaces the one of the same id."""
        tenant = self._owned_run(run_id, principal)
        config_id = target.config_id or new_id()
        _check(config_id, target)
        await check_url(target.url, self._egress, False, "url")
        existing = self._existing(run_id, config_id)
        if existing is None and len(self.list_configs(run_id, principal)) >= MAX_CONFIGS_PER_RUN:
            raise InvalidArgument.single("id", f"a task has at most {MAX_CONFIGS_PER_RUN} configs")
        now, endpoint_id = clock.now_us(), existing.id if existing else new_id()
        credentials = Credentials((), target.authorization, target.token)
        row = EndpointRow(
            endpoint_id,
            tenant,
            target.url,
            RUN_TYPES,
            f"A2A push for {run_name(run_id)}",
            create_us=existing.create_us if existing else now,
            update_us=now,
            credentials=credentials,
            kind=A2A,
            run_id=run_id,
            config_id=config_id,
        )
        sealed = self._seal.seal(endpoint_id, credentials)
        self._store.save_endpoint(dataclasses.replace(row, credentials=sealed))
        await self._store.committed()
        return row

    def get(self, run_id: str, config_id: str, principal: Principal) -> EndpointRow:
        self._owned_run(run_id, principal)
        row = self._existing(run_id, config_id)
        if row is None:
            raise NotFound(f"task {run_id} has no push notification config {config_id!r}")
        return self._opened(row)

    def list_configs(self, run_id: str, principal: Principal) -> list[EndpointRow]:
        self._owned_run(run_id, principal)
        rows = self._store.list_endpoints(None, A2A, run_id, None, MAX_CONFIGS_PER_RUN + 1)
        return [self._opened(row) for row in rows]

    async def delete(self, run_id: str, config_id: str, principal: Principal) -> None:
        """Idempotent: deleting a config that is gone already succeeds."""
        self._owned_run(run_id, principal)
        row = self._existing(run_id, config_id)
        if row is not None:
            self._store.delete_endpoint(row.id)
            await self._store.committed()

    def _opened(self, row: EndpointRow) -> EndpointRow:
        """The row as its owner set it: its credentials opened."""
        return dataclasses.replace(row, credentials=self._seal.open(row.id, row.credentials))

    def _existing(self, run_id: str, config_id: str) -> EndpointRow | None:
        rows = self._store.list_endpoints(None, A2A, run_id, None, MAX_CONFIGS_PER_RUN + 1)
        return next((row for row in rows if row.config_id == config_id), None)

    def _owned_run(self, run_id: str, principal: Principal) -> str:
        principal.require(Scope.RUNS_READ)
        tenant = self._store.run_tenant(run_id)
        if tenant is None or not principal.sees(tenant):
            raise NotFound(f"task {run_id} does not exist")
        return tenant


def _check(config_id: str, target: PushTarget) -> None:
    if len(config_id) > MAX_CONFIG_ID or not config_id.isprintable():
        raise InvalidArgument.single("id", f"must be 1 to {MAX_CONFIG_ID} printable characters")
    for field, value in (
        ("authentication.credentials", target.authorization),
        ("token", target.token),
    ):
        if len(value) > MAX_CREDENTIALS or not value.isprintable():
            raise InvalidArgument.single(
                field, f"must be at most {MAX_CREDENTIALS} printable characters"
            )
