"""OTEL_EXPORTER_OTLP_PROTOCOL=grpc: the same spans leave over OTLP/gRPC."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest

from outrider.v1 import run_service_pb2, run_service_pb2_grpc
from tests.telemetry.conftest import traceparent
from tests.telemetry.otlp import otlp_grpc_receiver
from tests.telemetry.server import ProductionServer

TRACE, PARENT = "c0ffee00c0ffee00c0ffee00c0ffee00", "1234567890abcdef"


async def get_missing_run(port: int) -> grpc.StatusCode:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        request = run_service_pb2.GetRunRequest(name="runs/0123456789abcdef01234567")
        with pytest.raises(grpc.aio.AioRpcError) as missing:
            await runs.GetRun(request, metadata=(("traceparent", traceparent(TRACE, PARENT)),))
    return missing.value.code()


def test_spans_are_exported_over_otlp_grpc(tmp_path: Path) -> None:
    with otlp_grpc_receiver() as receiver:
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
            "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
            "OUTRIDER_REST_ENABLED": "false",
        }
        server = ProductionServer(tmp_path, env, rest=False)
        try:
            server.wait_ready()
            code = asyncio.run(get_missing_run(server.grpc_port))
            assert server.stop() == 0
        finally:
            server.close()
        spans = receiver.snapshot()
    assert code == grpc.StatusCode.NOT_FOUND
    (span,) = [s for s in spans if s.name == "outrider.v1.RunService/GetRun"]
    # NOT_FOUND is the caller's problem: not an error of the server span (RPC conventions)
    assert (span.trace_id, span.parent_id, span.status) == (TRACE, PARENT, "STATUS_CODE_UNSET")
    assert span.attributes["rpc.grpc.status_code"] == grpc.StatusCode.NOT_FOUND.value[0]
    assert span.service == "outrider"  # the default service name
