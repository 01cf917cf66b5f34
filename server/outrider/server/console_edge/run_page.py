"""The run page: summary, questions, result, screenshots, artifacts and the live timeline (the
parts that change arrive over live.py's stream); cancel, delete and artifact downloads."""

from __future__ import annotations

from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response, StreamingResponse

from outrider.server.console_edge.auth import CSRF_FIELD, ConsoleAuth, session_of
from outrider.server.console_edge.control_view import control_view, waiting_for
from outrider.server.console_edge.errors import is_htmx
from outrider.server.console_edge.forms import read_form
from outrider.server.console_edge.now_line import NowLine
from outrider.server.console_edge.templating import Pages, base_of
from outrider.server.console_edge.views import run_view
from outrider.server.core.names import artifact_id_in_path, run_id_in_path
from outrider.server.core.runs.manager import RunManager

# Shown in the page (inline) when the artifact is one of these; anything else is a download.
INLINE_IMAGES = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp"}


class RunPage:
    def __init__(self, runs: RunManager, pages: Pages, auth: ConsoleAuth) -> None:
        self._runs = runs
        self._pages = pages
        self._auth = auth

    async def page(self, request: Request) -> Response:
        session = session_of(request)
        principal = session.principal
        run = self._runs.get(run_id_of(request), principal)
        view = run_view(run, principal, waiting_for(self._runs, run, principal))
        return self._pages.page(
            request,
            "run.html",
            session=session,
            csrf=self._auth.signer.csrf_token(session),
            auth_enabled=self._auth.keyring.enabled,
            run=view,
            now=NowLine().line(view),
            control=control_view(self._runs, run, principal),
        )

    async def cancel(self, request: Request) -> Response:
        session = session_of(request)
        form = await read_form(request)
        self._auth.check_change(request, session, form.get(CSRF_FIELD))
        run_id = run_id_of(request)
        reason = form.get("reason").strip() or f"cancelled in the console by {session.principal.id}"
        run = await self._runs.cancel(run_id, reason, session.principal)
        if not is_htmx(request):
            return RedirectResponse(f"{base_of(request)}/runs/{run_id}", 303)
        view = run_view(run, session.principal)
        return self._pages.page(
            request,
            "run_summary.html",
            run=view,
            now=NowLine().line(view),
            csrf=self._auth.signer.csrf_token(session),
        )

    async def delete(self, request: Request) -> Response:
        session = session_of(request)
        form = await read_form(request)
        self._auth.check_change(request, session, form.get(CSRF_FIELD))
        await self._runs.delete(run_id_of(request), session.principal)
        target = f"{base_of(request)}/?deleted=1"
        if is_htmx(request):
            return Response(status_code=204, headers={"HX-Redirect": target})
        return RedirectResponse(target, 303)

    async def artifact(self, request: Request) -> Response:
        """An artifact's bytes: a screenshot shown inline, anything else (or ?download) saved as
        a file; never rendered as a page on the console's origin."""
        principal = session_of(request).principal
        run_id = run_id_of(request)
        artifact_id = artifact_id_in_path(run_id, request.path_params["artifactId"])
        artifacts = self._runs.artifacts
        content_type, size = artifacts.describe(run_id, artifact_id, principal)
        chunks = artifacts.read(run_id, artifact_id, 0, 0, principal)
        first = await anext(chunks)  # a missing artifact is an error page, not a cut body
        extension = INLINE_IMAGES.get(content_type)
        inline = extension is not None and "download" not in request.query_params
        filename = f"{artifact_id}.{extension or 'bin'}"
        headers = {
            "Content-Length": str(size),
            "Content-Disposition": f'{"inline" if inline else "attachment"}; filename="{filename}"',
            "Content-Security-Policy": "default-src 'none'; sandbox",
            # a tenant's screenshot (a page with a form, an account) outlives no sign-out in
            # a shared laptop's disk cache
            "Cache-Control": "no-store",
        }
        media_type = content_type if inline else "application/octet-stream"
        body = _chained(first[1], (data async for _, data in chunks))
        return StreamingResponse(body, media_type=media_type, headers=headers)


def run_id_of(request: Request) -> str:
    return run_id_in_path(request.path_params["runId"])


async def _chained(first: bytes, rest: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    yield first
    async for data in rest:
        yield data
