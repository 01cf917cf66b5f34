"""The MCP server: the tools of tools.py, each call served over a Backend.

`build_server(backend_of, ...)` is served by the Outrider server at /mcp (a backend over the
core, per caller) and by `outrider mcp` over stdio (a backend over gRPC). A call whose run is
followed ends when the run ends. A client that sends notifications/cancelled cancels the run,
with its reason, unless the reason is a timeout or the call asked for
`cancel_on_disconnect: false`; one that goes away leaves it running (unless the run was started
with cancel_on_disconnect).
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio

from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.server.caching import CacheHint
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from outrider.mcp import arguments, results, tools
from outrider.mcp.backend import Backend
from outrider.mcp.cancels import CancelReasons, is_timeout
from outrider.mcp.errors import Refused
from outrider.mcp.internal_errors import internal_errors
from outrider.mcp.peer import Peer
from outrider.mcp.questions import question_from
from outrider.mcp.watch import Result, Watch
from outrider.v1 import run_pb2

log = logging.getLogger(__name__)
NAME = "outrider"
MAX_ARTIFACT_BYTES = 8 * 1024 * 1024  # bigger downloads: the REST route streams them
_LEAVE_TIMEOUT = 10.0
_REASON_PATIENCE = 2.0  # seconds a cancelled call waits for the cancel's reason
_TOOLS_FRESH_MS = 3_600_000
INSTRUCTIONS = (
    "Outrider runs a browser agent (automate) and a web research agent (research). Both report "
    "progress while they work and return structured results; the browser agent may ask the "
    "user for form values and approvals through this client. Runs outlive calls: get_run "
    "(wait=true) picks up a run whose call was interrupted; list_runs finds runs. "
    "start_session keeps a browser open between runs: pass its session to automate."
)
BackendOf = Callable[[ServerRequestContext[Any, Any]], Backend]


@dataclass
class Call:
    ctx: ServerRequestContext[Any, Any]
    params: types.CallToolRequestParams
    backend: Backend
    peer: Peer
    cancels: CancelReasons

    @property
    def args(self) -> dict[str, Any] | None:
        return self.params.arguments


def build_server(
    backend_of: BackendOf, version: str, state_security: RequestStateSecurity
) -> Server[Any]:
    """`state_security` seals the request state of multi-round-trip calls (2026-07-28)."""
    cancels = CancelReasons()

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list(tools.TOOLS))

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> Result:
        handler = _HANDLERS.get(params.name)
        if handler is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
        call = Call(ctx, params, backend_of(ctx), Peer(ctx), cancels)
        with call.backend.holding():
            try:
                if params.request_state is not None:
                    return await _resume(call, params.request_state)
                return await handler(call)
            except Refused as refused:
                return results.refusal(refused)

    server: Server[Any] = Server(
        NAME,
        version=version,
        title="Outrider",
        instructions=INSTRUCTIONS,
        # every caller is shown the same tools, which change only with the server's version
        cache_hints={"tools/list": CacheHint(ttl_ms=_TOOLS_FRESH_MS, scope="public")},
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    server.middleware.append(internal_errors)  # outermost: it answers what escapes the rest
    server.middleware.append(RequestStateBoundary(state_security, default_audience=NAME))
    server.middleware.append(cancels)
    return server


# starting and following runs


async def _automate(call: Call) -> Result:
    return await _start(call, arguments.automate_start(call.args, call.peer.abilities.asks))


async def _research(call: Call) -> Result:
    return await _start(call, arguments.research_start(call.args))


async def _start(call: Call, start: arguments.Start) -> Result:
    # Shielded: a cancel arriving while the run is created is applied once the run is known
    # (by _guarded), instead of leaving a run nobody knows the name of.
    with anyio.CancelScope(shield=True):
        run = await call.backend.start(start.params, start.options, start.request_id)
    return await _follow(call, run, 0, [], started=True)


async def _get_run(call: Call) -> Result:
    name, wait = arguments.get_run_args(call.args)
    run = await call.backend.get(name)
    if not wait or run.HasField("outcome"):
        return await Watch(call.backend, call.peer, name).result()
    pending = [question_from(i) for i in await call.backend.pending(name)]
    return await _follow(call, run, run.last_sequence, pending)


async def _resume(call: Call, request_state: str) -> Result:
    """A retry of a call that returned input requests: answers applied, then on following."""
    state = json.loads(request_state)  # sealed by the server: it is what this server wrote
    run = await call.backend.get(str(state["run"]))
    watch = Watch(call.backend, call.peer, run.name, int(state["after"]))
    following = await watch.answered(state["asked"], call.params.input_responses)
    if following:
        return watch.input_required(following)
    return await _guarded(call, run, _until_end(watch, []))


async def _follow(
    call: Call, run: run_pb2.Run, after: int, pending: list[Any], started: bool = False
) -> Result:
    watch = Watch(call.backend, call.peer, run.name, after)
    return await _guarded(call, run, _until_end(watch, pending, started))


async def _until_end(watch: Watch, pending: list[Any], started: bool = False) -> Result:
    if started:  # named at once: a client whose call ends early knows what to pick up
        await watch.peer.progress(0.0, f"Started {watch.run}; {results.PICK_UP}")
    abilities = watch.peer.abilities
    if abilities.asks and not abilities.push:
        asked = await watch.until_question(pending)
        if asked is not None:
            return asked
    else:
        await watch.push(pending)
    return await watch.result()


async def _guarded(call: Call, run: run_pb2.Run, following: Awaitable[Result]) -> Result:
    """When a call that started the run (automate, research, a retry of theirs) is cancelled:
    cancel the run if the client asked for it (notifications/cancelled, unless for a timeout or
    after `cancel_on_disconnect: false`), or if the run was started to end with its caller.
    get_run only stops following (it is a read)."""
    if call.params.name not in (tools.AUTOMATE, tools.RESEARCH):
        return await following
    try:
        return await following
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True), anyio.move_on_after(_LEAVE_TIMEOUT):
            await _left(call, run)
        raise


async def _left(call: Call, run: run_pb2.Run) -> None:
    try:
        if call.peer.cancel_requested():
            reason = await call.cancels.reason(call.ctx, _REASON_PATIENCE)
            if not is_timeout(reason) and not arguments.keeps_running(call.args):
                why = f" ({reason})" if reason else ""
                await call.backend.cancel(run.name, f"the MCP client cancelled the call{why}")
                return
            log.info("%s goes on after its MCP call was cancelled (%s)", run.name, reason or "-")
        if run.options.cancel_on_disconnect:  # a call given up is one abandoned
            await call.backend.abandon(run.name)
    except Refused as refused:
        log.warning("could not cancel %s: %s", run.name, refused.describe())


# reading and cancelling


async def _list_runs(call: Call) -> Result:
    size, token, states, kind = arguments.list_args(call.args)
    runs, next_token = await call.backend.list_runs(size, token, states, kind)
    return results.run_list(runs, next_token)


async def _cancel_run(call: Call) -> Result:
    name, reason = arguments.cancel_args(call.args)
    await call.backend.cancel(name, reason or "cancelled through MCP")
    ended = await Watch(call.backend, call.peer, name).result()
    # A run this call cancelled ended as asked; one that had failed before is still an error.
    cancelled = (ended.structured_content or {}).get("state") == "cancelled"
    return ended.model_copy(update={"is_error": ended.is_error and not cancelled})


async def _read_artifact(call: Call) -> Result:
    name = arguments.artifact_arg(call.args)
    artifact = await call.backend.read_artifact(name)
    size, kind = len(artifact.data), artifact.content_type or "application/octet-stream"
    if size > MAX_ARTIFACT_BYTES:
        raise Refused(
            "FAILED_PRECONDITION",
            f"{name} has {size:,} bytes, more than a tool result carries ({MAX_ARTIFACT_BYTES:,}); "
            "read it from GET /v1/{name} on the REST edge",
            "ARTIFACT_TOO_LARGE",
        )
    encoded = base64.b64encode(artifact.data).decode("ascii")
    block: types.ContentBlock
    if kind.startswith("image/"):
        block = types.ImageContent(data=encoded, mime_type=kind)
    else:
        contents = types.BlobResourceContents(uri=f"outrider:{name}", blob=encoded, mime_type=kind)
        block = types.EmbeddedResource(resource=contents)
    return types.CallToolResult(
        content=[block], structured_content={"artifact": name, "content_type": kind, "size": size}
    )


# sessions


async def _start_session(call: Call) -> Result:
    new = arguments.start_session_args(call.args)
    session = await call.backend.create_session(
        new.kind, new.start_url, new.idle_timeout, new.max_life, new.request_id, new.profile
    )
    return results.session_result(session)


async def _end_session(call: Call) -> Result:
    session, reason = arguments.end_session_args(call.args)
    ended = await call.backend.end_session(session, reason or "ended through MCP")
    return results.session_result(ended)


_HANDLERS: dict[str, Callable[[Call], Awaitable[Result]]] = {
    tools.AUTOMATE: _automate,
    tools.RESEARCH: _research,
    tools.GET_RUN: _get_run,
    tools.LIST_RUNS: _list_runs,
    tools.CANCEL_RUN: _cancel_run,
    tools.READ_ARTIFACT: _read_artifact,
    tools.START_SESSION: _start_session,
    tools.END_SESSION: _end_session,
}
