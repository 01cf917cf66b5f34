"""The run page's live stream (SSE): each batch of events becomes one message of HTML for htmx
to place (timeline rows appended under their step's heading; screenshots, artifacts, questions,
the result, the "now" line, the steps table and the run's summary swapped out of band by their
element ids). When the run has ended, the replay of its steps goes out with the last message.

Every message has the sequence of its batch's last event as its SSE id, so a browser that loses
the connection comes back with Last-Event-ID and gets exactly the events it missed; the page's
script drops a message it already has (a fresh EventSource after an error starts from the
page's own cursor). When the run ends, the summary and result go out once more and an `end`
message tells the page to close the stream.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import StreamingResponse

from outrider.server.console_edge import timeline
from outrider.server.console_edge.auth import ConsoleAuth, session_of
from outrider.server.console_edge.control_view import control_view, waiting_for
from outrider.server.console_edge.live_parts import Parts
from outrider.server.console_edge.now_line import NowLine
from outrider.server.console_edge.run_page import run_id_of
from outrider.server.console_edge.steps import StepsBuilder, StepView
from outrider.server.console_edge.templating import Pages, base_of
from outrider.server.console_edge.timeline import Row, asked, payload_dict
from outrider.server.console_edge.views import run_view
from outrider.server.core.errors import InvalidArgument, NotFound, OutriderError, Unauthenticated
from outrider.server.core.events.log import WatchBatch
from outrider.server.core.events.names import event_name
from outrider.server.core.principals import Principal
from outrider.server.core.runs.manager import RunManager
from outrider.server.telemetry.incidents import incident
from outrider.v1 import run_event_pb2, run_pb2

log = logging.getLogger(__name__)
_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
_MAX_CURSOR = 2**63 - 1
_SEED = 20_000  # events read again to resume a stream's steps and "now" line
_SIGNED_OUT = (
    "Your session ended (its key was removed or replaced, or the sign-in expired): the page no "
    "longer updates. Reload it to sign in again."
)


@dataclass
class _Shown:
    """What the page shows now (its state, steps, "now" line), to send a part again only when
    it changed."""

    state: int
    steps: StepsBuilder = field(default_factory=StepsBuilder)
    now: NowLine = field(default_factory=NowLine)

    def feed(self, event: run_event_pb2.RunEvent) -> tuple[bool, str, dict[str, Any]]:
        """(whether the event began a step, its name, its payload)."""
        name, data = event_name(event), payload_dict(event)
        self.now.feed(name, data, asked(event))
        return self.steps.feed(event, name, data), name, data


class LiveStream:
    def __init__(self, runs: RunManager, pages: Pages, auth: ConsoleAuth, retry_ms: int) -> None:
        self._runs = runs
        self._pages = pages
        self._auth = auth
        self._retry_ms = retry_ms

    async def stream(self, request: Request) -> StreamingResponse:
        session = session_of(request)
        run_id = run_id_of(request)
        run = self._runs.get(run_id, session.principal)
        after = _cursor(request)
        items = self._runs.watch_batches(
            run_id,
            after,
            session.principal,
            answer_links=True,
            reauthenticate=self._auth.reauthentication(request),
        )
        parts = Parts(self._pages, base_of(request), self._auth.signer.csrf_token(session))
        shown = _Shown(run.state)
        if after:  # resumed: the steps and the line as the page has them
            for event in self._runs.events(run_id, 0, min(after, _SEED), session.principal):
                shown.feed(event)
        body = self._body(run, items, session.principal, parts, shown)
        return StreamingResponse(body, media_type="text/event-stream", headers=_HEADERS)

    async def _body(
        self,
        run: run_pb2.Run,
        items: AsyncGenerator[WatchBatch, None],
        principal: Principal,
        parts: Parts,
        shown: _Shown,
    ) -> AsyncIterator[bytes]:
        yield f"retry: {self._retry_ms}\n\n".encode()
        run_id = run.name.removeprefix("runs/")
        async with contextlib.aclosing(items):
            try:
                async for batch in items:
                    if isinstance(batch, run_event_pb2.Heartbeat):
                        yield b": heartbeat\n\n"
                    elif batch:
                        html = self._batch(run_id, batch, principal, parts, shown)
                        yield message("timeline", html, batch[-1].sequence)
            except Unauthenticated:  # the key left the key file, or the session expired
                yield message("final", parts.signed_out(_SIGNED_OUT))
                yield message("end", "end")
                return
            except OutriderError as error:  # e.g. the run was deleted while it was followed
                yield message("final", parts.notice(error.message))
                return
            except Exception:
                ident = incident(log, "the console stream of %s failed", run.name)
                stopped = f"The live view stopped (incident {ident}); reload the page."
                yield message("final", parts.notice(stopped))
                return
        yield message("final", self._ending(run_id, principal, parts, shown))
        yield message("end", "end")

    def _batch(
        self,
        run_id: str,
        batch: list[run_event_pb2.RunEvent],
        principal: Principal,
        parts: Parts,
        shown: _Shown,
    ) -> str:
        lines: list[Row | StepView] = []
        new_step = moved_in_line = False
        for event in batch:
            began, name, data = shown.feed(event)
            step = shown.steps.current
            assert step is not None
            if began:
                lines.append(step)
                new_step = True
            moved_in_line |= name == "run_queued"
            lines.append(timeline.row(event, step.key, (name, data)))
        html = [parts.timeline(lines)]
        for event in batch:
            html.extend(parts.extras(event, self._runs, principal))
        run = self._runs.get(run_id, principal)
        view = run_view(run, principal, waiting_for(self._runs, run, principal))
        line = shown.now.line(view)
        if run.state != shown.state:
            was_queued, shown.state = shown.state == run_pb2.RUN_STATE_QUEUED, run.state
            html.append(parts.summary(view, line))
            if was_queued and run.kind == run_pb2.RUN_KIND_AUTOMATE:  # its browser opens now
                html.append(parts.controls(control_view(self._runs, run, principal)))
        else:
            if line != shown.now.shown:
                html.append(parts.now(line))
            if new_step or moved_in_line:
                html.append(parts.figures(view))
        shown.now.shown = line
        if new_step:
            html.append(parts.steps(shown.steps.steps, view))
        return "\n".join(html)

    def _ending(self, run_id: str, principal: Principal, parts: Parts, shown: _Shown) -> str:
        try:
            run = self._runs.get(run_id, principal)
        except NotFound:
            return parts.notice("This run was deleted.")
        view = run_view(run, principal)
        html = [parts.summary(view, shown.now.line(view)), parts.steps(shown.steps.steps, view)]
        if run.kind == run_pb2.RUN_KIND_AUTOMATE:
            html.append(parts.controls(control_view(self._runs, run, principal)))
            html.append(parts.replay(shown.steps.steps, view))
        return "\n".join(html)


def message(event: str, html: str, sequence: int | None = None) -> bytes:
    """One SSE message; every line of the HTML is a `data:` line."""
    lines = [f"event: {event}"]
    if sequence is not None:
        lines.append(f"id: {sequence}")
    lines.extend(f"data: {line}" for line in html.replace("\r", "").split("\n"))
    return ("\n".join(lines) + "\n\n").encode()


def _cursor(request: Request) -> int:
    """Resume after the browser's Last-Event-ID, else after ?after= (the page's own cursor)."""
    text = request.headers.get("last-event-id") or request.query_params.get("after") or "0"
    text = text.strip()
    if len(text) > 19 or not text.isdigit() or int(text) > _MAX_CURSOR:
        raise InvalidArgument.single("after", "must be a non-negative integer")
    return int(text)
