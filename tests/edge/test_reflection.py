"""Server reflection v1 and v1alpha answer the same, and the files they serve carry the contract's
comments, so `grpcurl describe` explains every service, method, message and field."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2 as rpb

from tests.edge.test_grpcurl import grpcurl
from tests.support.harness import Harness

VERSIONS = ["grpc.reflection.v1", "grpc.reflection.v1alpha"]


async def ask(
    harness: Harness, version: str, request: rpb.ServerReflectionRequest
) -> rpb.ServerReflectionResponse:
    """One request on the reflection stream of `version` (v1 messages are wire-identical)."""
    call = harness.channel.stream_stream(
        f"/{version}.ServerReflection/ServerReflectionInfo",
        request_serializer=rpb.ServerReflectionRequest.SerializeToString,
        response_deserializer=rpb.ServerReflectionResponse.FromString,
    )

    async def requests() -> AsyncIterator[rpb.ServerReflectionRequest]:
        yield request

    responses = [response async for response in call(requests())]
    assert len(responses) == 1
    return responses[0]


def files_of(
    response: rpb.ServerReflectionResponse,
) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    protos = response.file_descriptor_response.file_descriptor_proto
    files = [descriptor_pb2.FileDescriptorProto.FromString(p) for p in protos]
    return {file.name: file for file in files}


@pytest.mark.parametrize("version", VERSIONS)
async def test_both_versions_list_every_service(harness: Harness, version: str) -> None:
    response = await ask(harness, version, rpb.ServerReflectionRequest(list_services=""))
    names = {service.name for service in response.list_services_response.service}
    assert names == {
        "outrider.v1.RunService",
        "outrider.v1.InteractionService",
        "outrider.v1.BrowserControlService",
        "outrider.v1.SessionService",
        "outrider.v1.ProfileService",
        "outrider.v1.CredentialService",
        "outrider.v1.WebhookService",
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
    }


@pytest.mark.parametrize("version", VERSIONS)
async def test_files_come_with_their_comments(harness: Harness, version: str) -> None:
    request = rpb.ServerReflectionRequest(file_containing_symbol="outrider.v1.RunService")
    files = files_of(await ask(harness, version, request))
    run_service = files["outrider/v1/run_service.proto"]
    comments = {loc.leading_comments.strip() for loc in run_service.source_code_info.location}
    assert (
        "Streams the events after a sequence number, then follows live until the run ends."
        in comments
    )
    assert "outrider/v1/params.proto" in files  # and its imports, for a complete picture


async def test_the_v1_service_describes_itself(harness: Harness) -> None:
    request = rpb.ServerReflectionRequest(
        file_containing_symbol="grpc.reflection.v1.ServerReflection"
    )
    files = files_of(await ask(harness, "grpc.reflection.v1", request))
    (file,) = files.values()
    assert (file.name, file.package) == (
        "grpc/reflection/v1/reflection.proto",
        "grpc.reflection.v1",
    )
    (method,) = file.service[0].method
    assert method.input_type == ".grpc.reflection.v1.ServerReflectionRequest"


async def test_an_unknown_symbol_is_not_found(harness: Harness) -> None:
    request = rpb.ServerReflectionRequest(file_containing_symbol="outrider.v1.Nope")
    response = await ask(harness, "grpc.reflection.v1", request)
    assert response.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]


async def test_grpcurl_describe_explains_methods_and_fields(harness: Harness) -> None:
    service = await grpcurl(harness, "describe", "outrider.v1.RunService")
    assert "// Cancels a run. Idempotent; the run still emits its terminal events." in service
    message = await grpcurl(harness, "describe", "outrider.v1.AutomateEvent")
    assert "// The agent executed an action." in message
