"""The gRPC side of relaying (see core/cluster/relay.py): the public RPC, made on the executing
replica with the caller's principal in a signed relay token instead of the caller's own
credentials."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Sequence
from typing import Any

import grpc
from google.protobuf import timestamp_pb2
from google.protobuf.message import Message

from outrider.server.core.errors import Unavailable
from outrider.server.core.names import interaction_name, run_name, session_name
from outrider.server.core.principals import Principal
from outrider.server.core.request_ids import Created, Started
from outrider.server.grpc_edge.errors import core_error
from outrider.server.grpc_edge.streams import is_replay
from outrider.server.security.relay import RELAY_HEADER, RelayedCall, RelayKey, request_bytes
from outrider.server.settings import Settings
from outrider.server.telemetry import metrics
from outrider.v1 import browser_control_service_pb2 as bcs
from outrider.v1 import (
    browser_control_service_pb2_grpc,
    interaction_service_pb2_grpc,
    params_pb2,
    run_pb2,
    run_service_pb2,
    run_service_pb2_grpc,
    session_pb2,
    session_service_pb2,
    session_service_pb2_grpc,
)
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv

_TIMEOUT = 15.0  # longer than the 10 s a cancel waits on the executor for the run's ending
_SUBMIT = "/outrider.v1.InteractionService/SubmitInput"
_DECIDE = "/outrider.v1.InteractionService/DecideApproval"
_CANCEL = "/outrider.v1.RunService/CancelRun"
_CREATE = "/outrider.v1.RunService/CreateRun"
_BROWSER = "/outrider.v1.BrowserControlService/"
_WATCH, _TAKE_OVER = _BROWSER + "WatchScreen", _BROWSER + "TakeOver"
_FORWARD, _HAND_BACK = _BROWSER + "ForwardInput", _BROWSER + "HandBack"
_DECLINE = _BROWSER + "DeclineTakeover"
_END_SESSION = "/outrider.v1.SessionService/EndSession"
_CREATE_SESSION = "/outrider.v1.SessionService/CreateSession"
RELAYED_METHODS = frozenset(
    {
        _SUBMIT,
        _DECIDE,
        _CANCEL,
        _CREATE,
        _WATCH,
        _TAKE_OVER,
        _FORWARD,
        _HAND_BACK,
        _DECLINE,
        _END_SESSION,
        _CREATE_SESSION,
    }
)
_CALL_NAMES = {
    _SUBMIT: "answer",
    _DECIDE: "answer",
    _CANCEL: "cancel",
    _CREATE: "start",
    _END_SESSION: "end_session",
    _CREATE_SESSION: "start",
} | {path: "browser" for path in (_WATCH, _TAKE_OVER, _FORWARD, _HAND_BACK, _DECLINE)}
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

    async def create_session(
        self, address: str, request: session_service_pb2.CreateSessionRequest, principal: Principal
    ) -> Created:
        stub = session_service_pb2_grpc.SessionServiceStub(self._channel(address))
        response, metadata = await self._call_reading_metadata(
            stub.CreateSession, request, _CREATE_SESSION, principal, address
        )
        return Created(response.session, replayed=is_replay(metadata))

    async def end_session(
        self, address: str, session_id: str, reason: str, principal: Principal
    ) -> session_pb2.Session:
        request = session_service_pb2.EndSessionRequest(
            name=session_name(session_id), reason=reason
        )
        stub = session_service_pb2_grpc.SessionServiceStub(self._channel(address))
        response: session_service_pb2.EndSessionResponse = await self._call(
            stub.EndSession, request, _END_SESSION, principal, address
        )
        return response.session

    # a run's live browser (core/control/browsers.py)

    async def watch_screen(
        self, address: str, run_id: str, size: tuple[int, int], principal: Principal
    ) -> AsyncGenerator[bcs.WatchScreenResponse, None]:
        """The executor's frame stream, passed on as it comes (no deadline: it lasts as long
        as the run)."""
        request = bcs.WatchScreenRequest(
            run=run_name(run_id), max_width=size[0], max_height=size[1]
        )
        stub = self._browser_stub(address)
        call = stub.WatchScreen(
            request, metadata=self._metadata(_WATCH, request, principal, address)
        )
        try:
            async for message in call:
                yield message
        except grpc.aio.AioRpcError as error:
            raise _relay_error(error, _WATCH, address) from None
        finally:
            call.cancel()

    async def take_over(
        self, address: str, run_id: str, force: bool, principal: Principal
    ) -> ip.Interaction:
        request = bcs.TakeOverRequest(run=run_name(run_id), force=force)
        stub = self._browser_stub(address)
        response: bcs.TakeOverResponse = await self._call(
            stub.TakeOver, request, _TAKE_OVER, principal, address
        )
        return response.takeover

    async def forward_input(
        self, address: str, run_id: str, events: Sequence[bcs.InputEvent], principal: Principal
    ) -> timestamp_pb2.Timestamp:
        request = bcs.ForwardInputRequest(run=run_name(run_id), events=events)
        stub = self._browser_stub(address)
        response: bcs.ForwardInputResponse = await self._call(
            stub.ForwardInput, request, _FORWARD, principal, address
        )
        return response.expire_time

    async def hand_back(
        self, address: str, run_id: str, takeover: tuple[str, str], principal: Principal
    ) -> ip.Interaction:
        takeover_id, note = takeover
        request = bcs.HandBackRequest(run=run_name(run_id), takeover=_named(takeover_id), note=note)
        stub = self._browser_stub(address)
        response: bcs.HandBackResponse = await self._call(
            stub.HandBack, request, _HAND_BACK, principal, address
        )
        return response.takeover

    async def decline_takeover(
        self, address: str, run_id: str, takeover: tuple[str, str], principal: Principal
    ) -> ip.Interaction:
        takeover_id, reason = takeover
        request = bcs.DeclineTakeoverRequest(
            run=run_name(run_id), takeover=_named(takeover_id), reason=reason
        )
        stub = self._browser_stub(address)
        response: bcs.DeclineTakeoverResponse = await self._call(
            stub.DeclineTakeover, request, _DECLINE, principal, address
        )
        return response.takeover

    def _browser_stub(
        self, address: str
    ) -> browser_control_service_pb2_grpc.BrowserControlServiceStub:
        return browser_control_service_pb2_grpc.BrowserControlServiceStub(self._channel(address))

    def _metadata(
        self, path: str, request: Message, principal: Principal, address: str
    ) -> tuple[tuple[str, str]]:
        token = self._key.sign(principal, RelayedCall(path, request_bytes(request), address))
        return ((RELAY_HEADER, token),)

    async def _call(
        self, method: Any, request: Message, path: str, principal: Principal, address: str
    ) -> Any:
        return (await self._call_reading_metadata(method, request, path, principal, address))[0]

    async def _call_reading_metadata(
        self, method: Any, request: Message, path: str, principal: Principal, address: str
    ) -> tuple[Any, Any]:
        """The response and the initial metadata the replica answered with."""
        metadata = self._metadata(path, request, principal, address)
        try:
            call = method(request, metadata=metadata, timeout=_TIMEOUT)
            return await call, await call.initial_metadata()
        except grpc.aio.AioRpcError as error:
            raise _relay_error(error, path, address) from None

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


def _named(takeover_id: str) -> str:
    return interaction_name(takeover_id) if takeover_id else ""


def _relay_error(error: grpc.aio.AioRpcError, path: str, address: str) -> Exception:
    """The core error the executing replica answered with; a refusal of the relay itself (not
    of the caller) as RELAY_FAILED."""
    log.info("relayed %s to %s: %s", path, address, error.code().name)
    if error.code() in _UNREACHED:
        metrics.relay_failed(_CALL_NAMES[path], error.code().name)
    if error.code() in _HOP_FAILURES:  # the relay itself was refused, not the caller
        metrics.relay_failed(_CALL_NAMES[path], "RELAY_FAILED")
        log.warning("the replica at %s refused a relayed call: %s", address, error)
        return Unavailable(
            f"the replica executing this run ({address}) refused the relayed call: "
            f"{error.details()}; check that every replica has the same "
            "OUTRIDER_CLUSTER_SECRET and version",
            reason="RELAY_FAILED",
        )
    return core_error(error)


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
