"""The routes: each translates an HTTP request to one core call and the result back."""

from __future__ import annotations

from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from outrider.server.core.names import (
    artifact_id_in_path,
    interaction_id_in_path,
    parse_run_name,
    run_id_in_path,
)
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.runs.starting import RunSpec
from outrider.server.rest_edge import bodies, queries
from outrider.server.rest_edge.auth import principal_of, reauthentication_of
from outrider.server.rest_edge.idempotency import REPLAYED_HEADER, idempotency_key
from outrider.server.rest_edge.streams import (
    APPROVAL_EVENTS_HEADER,
    StreamSettings,
    sse_response,
)
from outrider.server.rest_edge.wire import to_json
from outrider.server.settings import Settings

ACCEPTED = {"status": "accepted"}


class Routes:
    def __init__(self, runs: RunManager, settings: Settings) -> None:
        self._runs = runs
        self._retry_ms = settings.rest_retry_ms

    async def automate(self, request: Request) -> Response:
        return await self._start(request, bodies.automate_spec(await bodies.read_object(request)))

    async def research(self, request: Request) -> Response:
        return await self._start(request, bodies.research_spec(await bodies.read_object(request)))

    async def _start(self, request: Request, spec: RunSpec) -> Response:
        stream = self._stream_settings(request)
        if not stream.approval_events:
            # This caller can neither see nor answer an approval: held actions are refused.
            spec.options.refuse_held_actions = True
        principal = principal_of(request)
        key = idempotency_key(request)
        started = await self._runs.start(
            spec, principal, params_at="", options_at="options.", request_id=key
        )
        run_id = started.run.name.removeprefix("runs/")
        cancel_on_disconnect = spec.options.cancel_on_disconnect
        items = self._runs.watch_batches(
            run_id,
            0,
            principal,
            cancel_on_disconnect,
            answer_links=stream.approval_events,
            reauthenticate=reauthentication_of(request),
        )
        response = sse_response(started.run, items, stream)
        if started.replayed:  # the events of the run an earlier start with this key made
            response.headers[REPLAYED_HEADER] = "true"
        return response

    async def events(self, request: Request) -> Response:
        run_id = _run_id(request)
        after = queries.cursor(request)
        principal = principal_of(request)
        run = self._runs.get(run_id, principal)
        stream = self._stream_settings(request)
        items = self._runs.watch_batches(
            run_id,
            after,
            principal,
            answer_links=stream.approval_events,
            reauthenticate=reauthentication_of(request),
        )
        return sse_response(run, items, stream)

    def _stream_settings(self, request: Request) -> StreamSettings:
        opted = queries.truthy(request.headers.get(APPROVAL_EVENTS_HEADER, ""))
        root = str(request.scope.get("root_path", ""))
        return StreamSettings(approval_events=opted, retry_ms=self._retry_ms, root_path=root)

    async def automate_input(self, request: Request) -> Response:
        interaction_id = _interaction_id(request, "requestId")
        values, cancelled = bodies.input_answer(await bodies.read_object(request))
        await self._runs.answers.submit_input(
            interaction_id, values, cancelled, principal_of(request)
        )
        return JSONResponse(ACCEPTED, 202)

    async def automate_approval(self, request: Request) -> Response:
        interaction_id = _interaction_id(request, "approvalId")
        decision, scope, reason = bodies.approval_decision(await bodies.read_object(request))
        await self._runs.answers.decide_approval(
            interaction_id, (decision, scope, reason), principal_of(request)
        )
        return JSONResponse(ACCEPTED, 202)

    async def list_runs(self, request: Request) -> Response:
        page = queries.page(request)
        states = queries.run_states(request)
        text = request.query_params.get("taskContains", "")
        runs, token = self._runs.list(
            page.size, page.token, states, page.kind, principal_of(request), text
        )
        return JSONResponse({"runs": [to_json(r) for r in runs], "nextPageToken": token})

    async def get_run(self, request: Request) -> Response:
        return JSONResponse(to_json(self._runs.get(_run_id(request), principal_of(request))))

    async def cancel_run(self, request: Request) -> Response:
        reason = bodies.cancel_reason(await bodies.read_object(request, required=False))
        run = await self._runs.cancel(_run_id(request), reason, principal_of(request))
        return JSONResponse(to_json(run))

    async def delete_run(self, request: Request) -> Response:
        run, freed = await self._runs.delete(_run_id(request), principal_of(request))
        return JSONResponse({"run": to_json(run), "freedArtifactBytes": freed})

    async def read_artifact(self, request: Request) -> Response:
        """The artifact's bytes as the body, streamed as the store reads them (any replica:
        on PostgreSQL the bytes are in the database)."""
        run_id = _run_id(request)
        artifact_id = _artifact_id(request, run_id)
        artifacts, principal = self._runs.artifacts, principal_of(request)
        content_type, size = artifacts.describe(run_id, artifact_id, principal)
        chunks = artifacts.read(run_id, artifact_id, 0, 0, principal)
        first = await anext(chunks)  # a missing artifact is a JSON error, not a cut body
        body = _chained(first[1], (data async for _, data in chunks))
        return StreamingResponse(body, media_type=content_type, headers=_artifact_headers(size))

    async def list_interactions(self, request: Request) -> Response:
        page = queries.page(request)
        run = request.query_params.get("run")
        run_id = parse_run_name(f"runs/{run}", "run") if run else None
        states = queries.interaction_states(request)
        principal = principal_of(request)
        items, token = self._runs.interactions.list(
            run_id, states, page.size, page.token, principal
        )
        shown = [to_json(self._runs.answer_links.with_link(i, principal)) for i in items]
        return JSONResponse({"interactions": shown, "nextPageToken": token})

    async def get_interaction(self, request: Request) -> Response:
        interaction = self._runs.answer_links.get(
            _interaction_id(request, "interactionId"), principal_of(request)
        )
        return JSONResponse(to_json(interaction))

    async def health(self, request: Request) -> Response:
        """Readiness, as grpc.health's outrider.v1.RunService: 503 while no run can start
        (SHUTTING_DOWN, NO_AGENT_CAN_RUN, or STORE_UNREACHABLE: the store has been unreachable
        longer than OUTRIDER_STORE_UNREADY_AFTER)."""
        reason = self._runs.not_serving()
        if not reason:
            return JSONResponse({"status": "serving"})
        body: dict[str, object] = {"status": "not_serving", "reason": reason}
        if reason == "NO_AGENT_CAN_RUN":
            body["problems"] = dict(self._runs.readiness.problems)
        if reason == "STORE_UNREACHABLE":
            body["unreachableSeconds"] = round(self._runs.store_down_for(), 1)
        return JSONResponse(body, status_code=503)


def _run_id(request: Request) -> str:
    return run_id_in_path(request.path_params["runId"])


def _artifact_id(request: Request, run_id: str) -> str:
    return artifact_id_in_path(run_id, request.path_params["artifactId"])


def _interaction_id(request: Request, param: str) -> str:
    return interaction_id_in_path(request.path_params[param])


def _artifact_headers(size: int) -> dict[str, str]:
    """A download's media type comes from the page that offered it: never rendered by a
    browser on the API's origin (saved as a file, not sniffed, sandboxed if opened)."""
    return {
        "Content-Length": str(size),
        "Content-Disposition": "attachment",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "sandbox",
        "Cache-Control": "no-store",  # a tenant's bytes: no shared or disk cache keeps them
    }


async def _chained(first: bytes, rest: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    yield first
    async for data in rest:
        yield data
