"""Every RPC of every service, from the service descriptors, against one table: the API-key check,
what an empty request is told, and how an unknown resource is reported. A new RPC fails the
completeness test until it has a row, so no method goes out unchecked.

grpcio-testing's in-memory server cannot drive these servicers (it calls handlers synchronously and
gets coroutines back from our grpc.aio ones), so each row runs against a real in-process server on
a loopback port: a few hundredths of a second per method."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2

from outrider.v1 import browser_control_service_pb2 as bcs
from outrider.v1 import credential_service_pb2 as csv
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import profile_service_pb2 as psv
from outrider.v1 import run_event_pb2, run_service_pb2, session_service_pb2
from tests.conftest import HarnessFactory
from tests.support.harness import rich_error

KEY = "every-rpc-key"
UNKNOWN_RUN = "runs/" + "0" * 24
UNKNOWN_INTERACTION = "interactions/" + "0" * 24
UNKNOWN_SESSION = "sessions/" + "0" * 24
UNKNOWN_PROFILE, UNKNOWN_CREDENTIAL = "profiles/nobody", "credentials/nobody"
METHODS: dict[str, MethodDescriptor] = {
    method.full_name: method
    for module, service in (
        (run_service_pb2, "RunService"),
        (isv, "InteractionService"),
        (bcs, "BrowserControlService"),
        (session_service_pb2, "SessionService"),
        (psv, "ProfileService"),
        (csv, "CredentialService"),
    )
    for method in module.DESCRIPTOR.services_by_name[service].methods
}


@dataclass(frozen=True)
class Row:
    """What one RPC answers: to an empty request (`None`: accepted, else the violated field) and
    to a well-formed request for something that does not exist (`None`: nothing to look up)."""

    empty_violates: str | None
    unknown: dict[str, Any] | None


ROWS = {
    "outrider.v1.RunService.Automate": Row("params.task", None),
    "outrider.v1.RunService.Research": Row("params.query", None),
    "outrider.v1.RunService.CreateRun": Row("params", None),
    "outrider.v1.RunService.GetRun": Row("name", {"name": UNKNOWN_RUN}),
    "outrider.v1.RunService.ListRuns": Row(None, None),
    "outrider.v1.RunService.CancelRun": Row("name", {"name": UNKNOWN_RUN}),
    "outrider.v1.RunService.DeleteRun": Row("name", {"name": UNKNOWN_RUN}),
    "outrider.v1.RunService.StreamRunEvents": Row("name", {"name": UNKNOWN_RUN}),
    "outrider.v1.RunService.ReadArtifact": Row(
        "name", {"name": f"{UNKNOWN_RUN}/artifacts/{'0' * 24}"}
    ),
    "outrider.v1.InteractionService.Interact": Row("action", {"attach": {"run": UNKNOWN_RUN}}),
    "outrider.v1.InteractionService.SubmitInput": Row("name", {"name": UNKNOWN_INTERACTION}),
    "outrider.v1.InteractionService.DecideApproval": Row(
        "name",
        {
            "name": UNKNOWN_INTERACTION,
            "decision": run_event_pb2.APPROVAL_DECISION_APPROVE,
        },
    ),
    "outrider.v1.InteractionService.ListInteractions": Row(None, None),
    "outrider.v1.InteractionService.GetInteraction": Row("name", {"name": UNKNOWN_INTERACTION}),
    "outrider.v1.BrowserControlService.WatchScreen": Row("run", {"run": UNKNOWN_RUN}),
    "outrider.v1.BrowserControlService.TakeOver": Row("run", {"run": UNKNOWN_RUN}),
    "outrider.v1.BrowserControlService.ForwardInput": Row(
        "run", {"run": UNKNOWN_RUN, "events": [{"text": {"text": "x"}}]}
    ),
    "outrider.v1.BrowserControlService.HandBack": Row("run", {"run": UNKNOWN_RUN}),
    "outrider.v1.BrowserControlService.DeclineTakeover": Row("run", {"run": UNKNOWN_RUN}),
    "outrider.v1.SessionService.CreateSession": Row("kind", None),
    "outrider.v1.SessionService.GetSession": Row("name", {"name": UNKNOWN_SESSION}),
    "outrider.v1.SessionService.ListSessions": Row(None, None),
    "outrider.v1.SessionService.EndSession": Row("name", {"name": UNKNOWN_SESSION}),
    "outrider.v1.SessionService.StreamSessionEvents": Row("name", {"name": UNKNOWN_SESSION}),
    "outrider.v1.ProfileService.CreateProfile": Row("profile_id", None),
    "outrider.v1.ProfileService.GetProfile": Row("name", {"name": UNKNOWN_PROFILE}),
    "outrider.v1.ProfileService.ListProfiles": Row(None, None),
    "outrider.v1.ProfileService.DeleteProfile": Row("name", {"name": UNKNOWN_PROFILE}),
    "outrider.v1.ProfileService.StartProfileLogin": Row("profile", {"profile": UNKNOWN_PROFILE}),
    "outrider.v1.CredentialService.SetCredential": Row("name", None),
    "outrider.v1.CredentialService.GetCredential": Row("name", {"name": UNKNOWN_CREDENTIAL}),
    "outrider.v1.CredentialService.ListCredentials": Row(None, None),
    "outrider.v1.CredentialService.DeleteCredential": Row("name", {"name": UNKNOWN_CREDENTIAL}),
    "outrider.v1.CredentialService.ListCredentialUses": Row(None, None),
}


def request_of(method: MethodDescriptor, fields: dict[str, Any] | None = None) -> Message:
    message: Message = message_factory.GetMessageClass(method.input_type)(**(fields or {}))
    return message


async def call(
    channel: grpc.aio.Channel,
    method: MethodDescriptor,
    request: Message,
    key: str | None,
    send_first: bool = True,
) -> Any:
    """One call of any shape; returns the (first) response or raises the call's error. A
    streamed request is written first unless `send_first` is False: a caller refused on its
    metadata is answered without one, and a write racing that answer fails on the client's side
    as INTERNAL (grpc.aio), which hides the status the server sent."""
    path = f"/{method.containing_service.full_name}/{method.name}"
    codecs = {
        "request_serializer": type(request).SerializeToString,
        "response_deserializer": message_factory.GetMessageClass(method.output_type).FromString,
    }
    metadata: Sequence[tuple[str, str]] = (("authorization", f"Bearer {key}"),) if key else ()
    if method.client_streaming:
        stream = channel.stream_stream(path, **codecs)(metadata=metadata, timeout=30)
        if send_first:
            await stream.write(request)
        return await stream.read()
    if method.server_streaming:
        return await channel.unary_stream(path, **codecs)(
            request, metadata=metadata, timeout=30
        ).read()
    return await channel.unary_unary(path, **codecs)(request, metadata=metadata, timeout=30)


async def refused(call_: Any) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call_
    error = rich_error(caught.value)
    return error.code, error.reason, error.violations


def test_every_method_has_a_row() -> None:
    assert set(ROWS) == set(METHODS)


@pytest.mark.parametrize("name", sorted(METHODS))
async def test_api_keys_guard_the_method(make_harness: HarnessFactory, name: str) -> None:
    method = METHODS[name]
    harness = await make_harness(api_keys=(KEY,))
    for key in (None, "wrong-key", KEY[:-1]):
        refusal = call(harness.channel, method, request_of(method), key, send_first=False)
        code, reason, _ = await refused(refusal)
        assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "UNAUTHENTICATED"), key
    # With the key, the call gets past the check to the method's own answer.
    outcome = call(harness.channel, method, request_of(method), KEY)
    if ROWS[name].empty_violates is None:
        await outcome
    else:
        assert (await refused(outcome))[0] == grpc.StatusCode.INVALID_ARGUMENT


async def test_health_needs_no_key(make_harness: HarnessFactory) -> None:
    harness = await make_harness(api_keys=(KEY,))
    check = harness.channel.unary_unary(
        "/grpc.health.v1.Health/Check",
        request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
        response_deserializer=health_pb2.HealthCheckResponse.FromString,
    )
    response = await check(health_pb2.HealthCheckRequest(), timeout=30)
    assert response.status == health_pb2.HealthCheckResponse.SERVING


@pytest.mark.parametrize("name", sorted(METHODS))
async def test_an_empty_request_names_the_missing_field(
    make_harness: HarnessFactory, name: str
) -> None:
    method, field = METHODS[name], ROWS[name].empty_violates
    harness = await make_harness()
    outcome = call(harness.channel, method, request_of(method), None)
    if field is None:
        assert await outcome is not None
        return
    code, reason, violations = await refused(outcome)
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT")
    assert list(violations) == [field]
    assert violations[field]


@pytest.mark.parametrize("name", sorted(n for n, row in ROWS.items() if row.unknown is not None))
async def test_an_unknown_resource_is_not_found(make_harness: HarnessFactory, name: str) -> None:
    method = METHODS[name]
    harness = await make_harness()
    request = request_of(method, ROWS[name].unknown)
    code, reason, _ = await refused(call(harness.channel, method, request, None))
    assert (code, reason) == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")
