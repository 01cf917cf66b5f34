"""Two tenants with two keys each (plus an admin), a key file for them, and a server with both
edges that reads it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from outrider.client.keys import append_key
from outrider.server.core.principals import CALLER_SCOPES
from outrider.v1 import interaction_service_pb2_grpc, run_service_pb2_grpc
from tests.rest.support import RestCase, start_rest

CALLER = sorted(scope.value for scope in CALLER_SCOPES)  # every scope but admin


@dataclass
class Keys:
    """key of each principal id; `tenant_of` maps principal ids to tenants."""

    file: Path
    keys: dict[str, str] = field(default_factory=dict)
    tenant_of: dict[str, str] = field(default_factory=dict)

    def add(self, principal_id: str, tenant: str, scopes: list[str], **limits: float) -> str:
        key = append_key(self.file, principal_id, tenant, scopes, limits or None)
        self.keys[principal_id] = key
        self.tenant_of[principal_id] = tenant
        return key

    def remove(self, principal_id: str) -> None:
        """Takes the principal's entry out of the key file (the server reloads it on SIGHUP)."""
        entries = self.file.read_text().split("[[keys]]")
        kept = [e for e in entries[1:] if f'id = "{principal_id}"' not in e.splitlines()[:2]]
        assert len(kept) == len(entries) - 2, f"{principal_id} is not in the key file once"
        self.file.write_text(entries[0] + "".join("[[keys]]" + e for e in kept))

    def bearer(self, principal_id: str) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.keys[principal_id]}"),)

    def header(self, principal_id: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.keys[principal_id]}"}


def certificate_entry(path: Path, principal_id: str, tenant: str, common_name: str) -> None:
    """A principal that authenticates with a client certificate of this common name."""
    with path.open("a") as handle:
        handle.write(
            f'\n[[keys]]\nid = "{principal_id}"\ntenant = "{tenant}"\n'
            f'scopes = {CALLER!r}\ncertificate = "{common_name}"\n'.replace("'", '"')
        )


def two_tenants(folder: Path) -> Keys:
    """alpha-1, alpha-2 (tenant alpha), beta-1, beta-2 (tenant beta), root (admin)."""
    keys = Keys(folder / "keys.toml")
    for tenant in ("alpha", "beta"):
        for n in (1, 2):
            keys.add(f"{tenant}-{n}", tenant, CALLER)
    keys.add("root", "ops", ["admin"])
    return keys


@dataclass
class Edges:
    """Both edges of one server, with gRPC stubs on a plaintext channel."""

    case: RestCase
    channel: grpc.aio.Channel
    runs: run_service_pb2_grpc.RunServiceStub = field(init=False)
    interactions: interaction_service_pb2_grpc.InteractionServiceStub = field(init=False)

    def __post_init__(self) -> None:
        self.runs = run_service_pb2_grpc.RunServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self.interactions = interaction_service_pb2_grpc.InteractionServiceStub(self.channel)  # type: ignore[no-untyped-call]

    @property
    def origin(self) -> str:
        return self.case.origin

    @property
    def tls_origin(self) -> str:
        return f"https://localhost:{self.case.rest.port}"

    @property
    def tls_target(self) -> str:
        return f"localhost:{self.case.grpc.port}"


async def open_edges(
    data_dir: Path, credentials: grpc.ChannelCredentials | None = None, **settings: Any
) -> AsyncIterator[Edges]:
    """A server with both edges; its gRPC channel is plaintext unless `credentials` are given."""
    case = await start_rest(data_dir, **settings)
    channel = (
        grpc.aio.insecure_channel(f"127.0.0.1:{case.grpc.port}")
        if credentials is None
        else grpc.aio.secure_channel(f"localhost:{case.grpc.port}", credentials)
    )
    try:
        yield Edges(case, channel)
    finally:
        await channel.close()
        await case.stop()
