"""gRPC server reflection, both versions: v1alpha from grpcio-reflection and v1 on top of it.

grpcio-reflection serves only v1alpha. The v1 protocol is the same messages under the package
`grpc.reflection.v1` (identical field numbers), so v1 calls are decoded with the v1alpha message
classes and answered by the same servicer; a v1 copy of the descriptor is registered so that
clients can describe the v1 service itself. Answers carry our files with their comments, so
`grpcurl describe` shows the contract's documentation."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Iterable
from importlib import resources
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

V1ALPHA_PACKAGE = "grpc.reflection.v1alpha"
V1_PACKAGE = "grpc.reflection.v1"
V1_SERVICE_NAME = f"{V1_PACKAGE}.ServerReflection"


def enable_reflection(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    """Serves both reflection versions; each lists the other and itself among the services."""
    _register_v1_descriptor()
    names = (*service_names, reflection.SERVICE_NAME, V1_SERVICE_NAME)
    servicer = _DocumentedReflection(names)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    methods = {"ServerReflectionInfo": handler}
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(V1_SERVICE_NAME, methods),)
    )


def _register_v1_descriptor() -> None:
    pool = descriptor_pool.Default()
    try:
        pool.FindServiceByName(V1_SERVICE_NAME)
        return  # registered by an earlier server in this process
    except KeyError:
        pass
    pool.Add(v1_file_descriptor())


def v1_file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    """reflection.proto v1alpha with its package (and references to it) renamed to v1."""
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name = "grpc/reflection/v1/reflection.proto"
    proto.package = V1_PACKAGE
    proto.ClearField("options")
    old, new = f".{V1ALPHA_PACKAGE}.", f".{V1_PACKAGE}."
    for message in proto.message_type:
        for field in message.field:
            if field.HasField("type_name"):
                field.type_name = field.type_name.replace(old, new)
    for service in proto.service:
        for method in service.method:
            method.input_type = method.input_type.replace(old, new)
            method.output_type = method.output_type.replace(old, new)
    return proto


@functools.cache
def _documented_files() -> dict[str, bytes]:
    """Our .proto files as FileDescriptorProtos with their comments (scripts/gen-proto writes
    them); the generated Python modules carry descriptors without comments."""
    data = resources.files("outrider.v1").joinpath("descriptors.binpb").read_bytes()
    files = descriptor_pb2.FileDescriptorSet.FromString(data).file
    for file in files:
        _drop_json_names(file.message_type)
    return {file.name: file.SerializeToString() for file in files}


def _drop_json_names(messages: Iterable[descriptor_pb2.DescriptorProto]) -> None:
    """protoc fills json_name in, the runtime descriptors leave it out; grpcurl prints the JSON
    names when it is there, so it is dropped to keep proto field names in grpcurl's output."""
    for message in messages:
        for field in message.field:
            field.ClearField("json_name")
        _drop_json_names(message.nested_type)


def with_comments(
    response: reflection_pb2.ServerReflectionResponse,
) -> reflection_pb2.ServerReflectionResponse:
    """Swaps each of our files in a file-descriptor answer for its documented twin."""
    if not response.HasField("file_descriptor_response"):
        return response
    documented = _documented_files()
    protos = response.file_descriptor_response.file_descriptor_proto
    for index, serialized in enumerate(protos):
        name = descriptor_pb2.FileDescriptorProto.FromString(serialized).name
        protos[index] = documented.get(name, serialized)
    return response


class _DocumentedReflection(reflection.aio.ReflectionServicer):  # type: ignore[misc]
    async def ServerReflectionInfo(
        self, requests: AsyncIterator[reflection_pb2.ServerReflectionRequest], context: Any
    ) -> AsyncIterator[reflection_pb2.ServerReflectionResponse]:
        async for response in super().ServerReflectionInfo(requests, context):
            yield with_comments(response)
