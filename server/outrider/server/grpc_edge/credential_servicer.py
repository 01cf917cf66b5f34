"""CredentialService: each RPC translates its request to one core call (RunManager.credentials)
and the result back. No response ever carries a credential's value."""

from __future__ import annotations

from typing import Any

import grpc

from outrider.server.core.runs.manager import RunManager
from outrider.server.core.vault.names import parse_credential_name
from outrider.server.grpc_edge.auth import caller
from outrider.server.grpc_edge.errors import unary
from outrider.v1 import credential_service_pb2 as cs
from outrider.v1 import credential_service_pb2_grpc

Context = grpc.aio.ServicerContext[Any, Any]


class CredentialServicer(credential_service_pb2_grpc.CredentialServiceServicer):
    def __init__(self, runs: RunManager) -> None:
        self._credentials = runs.credentials

    @unary
    async def SetCredential(
        self, request: cs.SetCredentialRequest, context: Context
    ) -> cs.SetCredentialResponse:
        credential_id = parse_credential_name(request.name)
        credential, created = self._credentials.set(
            caller(), credential_id, list(request.origins), request.secret
        )
        return cs.SetCredentialResponse(credential=credential, created=created)

    @unary
    async def GetCredential(
        self, request: cs.GetCredentialRequest, context: Context
    ) -> cs.GetCredentialResponse:
        credential_id = parse_credential_name(request.name)
        return cs.GetCredentialResponse(credential=self._credentials.get(caller(), credential_id))

    @unary
    async def ListCredentials(
        self, request: cs.ListCredentialsRequest, context: Context
    ) -> cs.ListCredentialsResponse:
        found, token = self._credentials.page(caller(), request.page_size, request.page_token)
        return cs.ListCredentialsResponse(credentials=found, next_page_token=token)

    @unary
    async def DeleteCredential(
        self, request: cs.DeleteCredentialRequest, context: Context
    ) -> cs.DeleteCredentialResponse:
        self._credentials.delete(caller(), parse_credential_name(request.name))
        return cs.DeleteCredentialResponse()

    @unary
    async def ListCredentialUses(
        self, request: cs.ListCredentialUsesRequest, context: Context
    ) -> cs.ListCredentialUsesResponse:
        uses, token = self._credentials.uses(
            caller(), request.credential, request.run, request.page_size, request.page_token
        )
        return cs.ListCredentialUsesResponse(uses=uses, next_page_token=token)
