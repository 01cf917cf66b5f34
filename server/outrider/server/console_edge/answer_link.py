"""The one-time answer link page, `/answer/<token>`: no sign-in; the token names one pending
question and is good until it is answered (see core/interactions/answer_links.py). The page
shows only that question, never the run's other data."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

from outrider.server.console_edge.answering import answer_approval, answer_form
from outrider.server.console_edge.auth import ConsoleAuth
from outrider.server.console_edge.forms import read_form
from outrider.server.console_edge.questions import question_view
from outrider.server.console_edge.templating import Pages
from outrider.server.core.error_statuses import http_status
from outrider.server.core.errors import FailedPrecondition, PermissionDenied
from outrider.server.core.interactions.answer_links import AnswerLinks
from outrider.v1 import interaction_pb2 as ip

_SENT = "Thank you: the answer went to the agent"
# The page's URL holds the token: no request it makes (its style sheet, scripts) names it as the
# referrer. Its form then posts with `Origin: null` and `Sec-Fetch-Site: same-origin`, which
# ConsoleAuth.same_origin accepts.
NO_REFERRER = "no-referrer"
Endpoint = Callable[[Request], Awaitable[Response]]


def without_referrer(endpoint: Endpoint) -> Endpoint:
    """`endpoint` with every response (error pages too) telling the browser to send no
    Referer from it."""

    @functools.wraps(endpoint)
    async def wrapper(request: Request) -> Response:
        response = await endpoint(request)
        response.headers["Referrer-Policy"] = NO_REFERRER
        return response

    return wrapper


_REFUSED = "This link no longer works"


class AnswerLinkPage:
    def __init__(self, links: AnswerLinks, pages: Pages, auth: ConsoleAuth) -> None:
        self._links = links
        self._pages = pages
        self._auth = auth

    async def page(self, request: Request) -> Response:
        token = request.path_params["token"]
        try:
            interaction = self._links.open(token)
        except FailedPrecondition as error:
            return self._closed(request, error)
        given = self._links.held_refs(interaction)
        return self._render(request, question_view(interaction, given=given))

    async def answer(self, request: Request) -> Response:
        if not self._auth.same_origin(request):
            raise PermissionDenied(
                "this answer did not come from the answer page", reason="CSRF_REFUSED"
            )
        token = request.path_params["token"]
        form = await read_form(request)
        try:
            interaction = self._links.open(token)
        except FailedPrecondition as error:
            return self._closed(request, error)
        if interaction.kind == ip.INTERACTION_KIND_APPROVAL:

            async def decide(answer: tuple[int, int, str]) -> ip.Interaction:
                return await self._links.decide_approval(token, answer)

            answered, extra, status = await answer_approval(interaction, form, decide)
        else:

            async def submit(values: list[tuple[str, str]], declined: bool) -> ip.Interaction:
                return await self._links.submit_input(token, values, declined)

            given = self._links.held_refs(interaction)
            answered, extra, status = await answer_form(interaction, form, submit, given)
        if "question" in extra:
            return self._render(request, extra["question"], status)
        if status != 200:
            notice = str(extra.get("notice", ""))
            return self._pages.page(
                request, "answer_done.html", status, heading=_REFUSED, message=notice
            )
        outcome = question_view(answered).outcome + "."
        return self._pages.page(request, "answer_done.html", heading=_SENT, message=outcome)

    def _render(self, request: Request, question: object, status: int = 200) -> Response:
        return self._pages.page(
            request, "answer_link.html", status, question=question, action=request.url.path
        )

    def _closed(self, request: Request, error: FailedPrecondition) -> Response:
        return self._pages.page(
            request, "answer_done.html", http_status(error), heading=_REFUSED, message=error.message
        )
