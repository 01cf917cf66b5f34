"""Answers given in the console (signed in) and through a one-time answer link (no key): the
same core calls as API answers, so the same checks, relay and redaction apply. A refused
submission shows the form again with what was wrong, keeping what was typed except passwords."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

from outrider.server.console_edge.auth import CSRF_FIELD, ConsoleAuth, session_of
from outrider.server.console_edge.forms import Form, read_form
from outrider.server.console_edge.questions import (
    DECISIONS,
    form_values,
    question_view,
    shown_again,
)
from outrider.server.console_edge.templating import Pages
from outrider.server.core.error_statuses import http_status
from outrider.server.core.errors import FailedPrecondition, InvalidArgument
from outrider.server.core.names import interaction_id_in_path
from outrider.server.core.runs.manager import RunManager
from outrider.server.security.sessions import Session
from outrider.v1 import interaction_pb2 as ip

Submit = Callable[[list[tuple[str, str]], bool], Awaitable[ip.Interaction]]
Decide = Callable[[tuple[int, int, str]], Awaitable[ip.Interaction]]


async def answer_form(
    interaction: ip.Interaction,
    form: Form,
    submit: Submit,
    given: frozenset[str] = frozenset(),
) -> tuple[ip.Interaction, dict[str, object], int]:
    """Submits a form-data answer: (the interaction now, the template's extra context, status).
    `given`: fields answered elsewhere already (not shown, not sent)."""
    declined = form.get("action") == "decline"
    values = [] if declined else [v for v in form_values(interaction, form) if v[0] not in given]
    try:
        return await submit(values, declined), {}, 200
    except InvalidArgument as error:
        problems = tuple(v.description for v in error.violations)
        typed = shown_again(values, interaction)
        view = question_view(interaction, typed=typed, problems=problems, given=given)
        return interaction, {"question": view}, 400
    except FailedPrecondition as error:
        return interaction, {"notice": error.message}, http_status(error)


async def answer_approval(
    interaction: ip.Interaction, form: Form, decide: Decide
) -> tuple[ip.Interaction, dict[str, object], int]:
    choice = DECISIONS.get(form.get("decision"))
    if choice is None:
        view = question_view(interaction, problems=("Choose approve once, always, or reject.",))
        return interaction, {"question": view}, 400
    decision, scope = choice
    try:
        answered = await decide((decision, scope, form.get("reason").strip()))
    except InvalidArgument as error:
        problems = tuple(v.description for v in error.violations)
        return interaction, {"question": question_view(interaction, problems=problems)}, 400
    except FailedPrecondition as error:
        return interaction, {"notice": error.message}, http_status(error)
    return answered, {}, 200


class ConsoleAnswers:
    """POST /interactions/{id}/input and /approval from the run page (htmx)."""

    def __init__(self, runs: RunManager, pages: Pages, auth: ConsoleAuth) -> None:
        self._runs = runs
        self._pages = pages
        self._auth = auth

    async def input(self, request: Request) -> Response:
        session, interaction, form = await self._begin(request)
        principal, interaction_id = session.principal, _id(interaction)

        async def submit(values: list[tuple[str, str]], declined: bool) -> ip.Interaction:
            return await self._runs.answers.submit_input(
                interaction_id, values, declined, principal
            )

        return self._fragment(request, *await answer_form(interaction, form, submit))

    async def approval(self, request: Request) -> Response:
        session, interaction, form = await self._begin(request)
        principal, interaction_id = session.principal, _id(interaction)

        async def decide(answer: tuple[int, int, str]) -> ip.Interaction:
            return await self._runs.answers.decide_approval(interaction_id, answer, principal)

        return self._fragment(request, *await answer_approval(interaction, form, decide))

    async def _begin(self, request: Request) -> tuple[Session, ip.Interaction, Form]:
        session = session_of(request)
        form = await read_form(request)
        self._auth.check_change(request, session, form.get(CSRF_FIELD))
        interaction_id = interaction_id_in_path(request.path_params["interactionId"])
        return session, self._runs.interactions.get(interaction_id, session.principal), form

    def _fragment(
        self, request: Request, interaction: ip.Interaction, extra: dict[str, object], status: int
    ) -> Response:
        session = session_of(request)
        if status >= 409:  # answered, expired or closed meanwhile: show it as it is now
            interaction = self._runs.interactions.get(_id(interaction), session.principal)
        context: dict[str, object] = {
            "question": question_view(interaction),
            "csrf": self._auth.signer.csrf_token(session),
            "notice": "",
            "answer_url": "",
            "can_answer": True,
        }
        context |= extra
        return self._pages.page(request, "question.html", status, **context)


def _id(interaction: ip.Interaction) -> str:
    return interaction.name.removeprefix("interactions/")
