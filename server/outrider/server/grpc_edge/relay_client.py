"""The gRPC side of relaying (see core/relay.py): the public RPC, made on the executing replica
with the caller's principal in a signed relay token instead of the caller's own credentials."""

from __future__ import annotations

import logging
from typing import Any

import grpc
from google.protobuf.message import Message

from outrider.server.core.errors import Unavailable
from outrider.server.core.names import interaction_name, run_name
from outrider.server.core.principals import Principal
from outrider.server.core.starts import Started
from outrider.server.grpc_edge.errors import core_error
from outrider.server.grpc_edge.streams import is_replay
from outrider.server.security.relay import RELAY_HEADER, RelayedCall, RelayKey, request_bytes
from outrider.server.settings import Settings
from outrider.server.telemetry import metrics
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import (
    interaction_service_pb2_grpc,
    params_pb2,
    run_pb2,
    run_service_pb2,
    run_service_pb2_grpc,
)

_TIMEOUT = 15.0  # longer than the 10 s a cancel waits on the executor for the run's ending
_SUBMIT = "/outrider.v1.InteractionService/SubmitInput"
_DECIDE = "/outrider.v1.InteractionService/DecideApproval"
_CANCEL = "/outrider.v1.RunService/CancelRun"
_CREATE = "/outrider.v1.RunService/CreateRun"
RELAYED_METHODS = frozenset({_SUBMIT, _DECIDE, _CANCEL, _CREATE})
_CALL_NAMES = {_SUBMIT: "answer", _DECIDE: "answer", _CANCEL: "cancel", _CREATE: "start"}
# Codes of a hop that did not reach the executor's agent (counted as relay failures).
_UNREACHED = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)

# The caller was authenticated and its scopes checked here; the executor refusing the relay's
# credentials is a fault between replicas (secret, clock, version), not the caller's.
_HOP_FAILURES = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)

log = logging.getLogger(__name__)


class GrpcRelay:
    """One channel per replica address, kept for the life of the process."""

    def __init__(self, settings: Settings) -> None:
        assert settings.cluster_secret is not None
        self._key = RelayKey(settings.cluster_secret.get_secret_value())
        self._credentials = _credentials(settings)
        self._channels: dict[str, grpc.aio.Channel] = {}

    async def submit_input(
        self,
        address: str,
        interaction_id: str,
        values: list[tuple[str, str]],
        cancelled: bool,
        principal: Principal,
    ) -> ip.Interaction:
        request = isv.SubmitInputRequest(
            name=interaction_name(interaction_id),
            fields=[ip.FieldValue(ref=ref, value=value) for ref, value in values],
            cancelled=cancelled,
        )
        stub = interaction_service_pb2_grpc.InteractionServiceStub(self._channel(address))
        response: isv.SubmitInputResponse = await self._call(
            stub.SubmitInput, request, _SUBMIT, principal, address
        )
        return response.interaction

    async def decide_approval(
        self,
        address: str,
        interaction_id: str,
        answer: tuple[int, int, str],
        principal: Principal,
    ) -> ip.Interaction:
        decision, scope, reason = answer
        request = isv.DecideApprovalRequest(
            name=interaction_name(interaction_id),
            decision=decision,  # type: ignore[arg-type]
            scope=scope,  # type: ignore[arg-type]
            reason=reason,
        )
        stub = interaction_service_pb2_grpc.InteractionServiceStub(self._channel(address))
        response: isv.DecideApprovalResponse = await self._call(
            stub.DecideApproval, request, _DECIDE, principal, address
        )
        return response.interaction

    async def cancel(
        self, address: str, run_id: str, reason: str, principal: Principal
    ) -> run_pb2.Run:
        request = run_service_pb2.CancelRunRequest(name=run_name(run_id), reason=reason)
        stub = run_service_pb2_grpc.RunServiceStub(self._channel(address))
        response: run_service_pb2.CancelRunResponse = await self._call(
            stub.CancelRun, request, _CANCEL, principal, address
        )
        return response.run

    async def _call(
        self, method: Any, request: Message, path: str, principal: Principal, address: str
    ) -> Any:
        return (await self._call_reading_metadata(method, request, path, principal, address))[0]

    async def _call_reading_metadata(
        self, method: Any, request: Message, path: str, principal: Principal, address: str
    ) -> tuple[Any, Any]:
        """The response and the initial metadata the replica answered with."""
        token = self._key.sign(principal, RelayedCall(path, request_bytes(request), address))
        try:
            call = method(request, metadata=((RELAY_HEADER, token),), timeout=_TIMEOUT)
            return await call, await call.initial_metadata()
        except grpc.aio.AioRpcError as error:
            log.info("relayed %s to %s: %s", path, address, error.code().name)
            if error.code() in _UNREACHED:
                metrics.relay_failed(_CALL_NAMES[path], error.code().name)
            if error.code() in _HOP_FAILURES:  # the relay itself was refused, not the caller
                metrics.relay_failed(_CALL_NAMES[path], "RELAY_FAILED")
                log.warning("the replica at %s refused a relayed call: %s", address, error)
                raise Unavailable(
                    f"the replica executing this run ({address}) refused the relayed call: "
                    f"{error.details()}; check that every replica has the same "
                    "OUTRIDER_CLUSTER_SECRET and version",
                    reason="RELAY_FAILED",
                ) from None
            raise core_error(error) from None

    async def start(
        self,
        address: str,
        params: params_pb2.AutomateParams | params_pb2.ResearchParams,
        options: params_pb2.RunOptions,
        principal: Principal,
        request_id: str,
    ) -> Started:
        request = run_service_pb2.CreateRunRequest(options=options, request_id=request_id)
        if isinstance(params, params_pb2.AutomateParams):
            request.automate.CopyFrom(params)
        else:
            request.research.CopyFrom(params)
        stub = run_service_pb2_grpc.RunServiceStub(self._channel(address))
        response, metadata = await self._call_reading_metadata(
            stub.CreateRun, request, _CREATE, principal, address
        )
        return Started(response.run, replayed=is_replay(metadata))

    def _channel(self, address: str) -> grpc.aio.Channel:
        channel = self._channels.get(address)
        if channel is None:
            if self._credentials is None:
                channel = grpc.aio.insecure_channel(address)
            else:
                channel = grpc.aio.secure_channel(address, self._credentials)
            self._channels[address] = channel
        return channel

    async def close(self) -> None:
        for channel in self._channels.values():
            await channel.close()
        self._channels.clear()


def _credentials(settings: Settings) -> grpc.ChannelCredentials | None:
    """TLS when this replica's own edge speaks TLS (the others do too). Under mutual TLS
    (OUTRIDER_TLS_CLIENT_CA) the replica presents its own certificate as the client's, so it
    must also allow client authentication and be signed by that CA."""
    if settings.tls_cert is None or settings.tls_key is None:
        return None
    roots = settings.relay_ca.read_bytes() if settings.relay_ca else None
    if settings.tls_client_ca is None:
        return grpc.ssl_channel_credentials(root_certificates=roots)
    return grpc.ssl_channel_credentials(
        root_certificates=roots,
        private_key=settings.tls_key.read_bytes(),
        certificate_chain=settings.tls_cert.read_bytes(),
    )
