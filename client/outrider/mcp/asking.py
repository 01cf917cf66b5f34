"""A question's elicitations, step by step, and what each answer does.

An approval is one step. A form-data request is one or two: a form for its plain fields, then the
one-time answer page for its secret ones. The plain values are given to the run in advance
(held by the replica executing it) so that the page asks only for the rest; where that cannot be
done, the page asks for the whole form. A client with URL mode only goes straight to the page; a
client without it is never asked for a secret: the request is declined and the result says why.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp import types
from outrider.client.wording import field_name, listed
from outrider.mcp.backend import Backend
from outrider.mcp.errors import Refused
from outrider.mcp.peer import Abilities, ElicitParams
from outrider.mcp.questions import (
    Question,
    approval_params,
    decision_of,
    form_params,
    form_values,
    split,
    url_message,
    url_params,
)

log = logging.getLogger(__name__)
StepKind = Literal["approval", "form", "url"]
DECLINED_KEPT = (
    "The person declined to open the answer page for the secret fields. The answers they gave "
    "in the form went to the agent, which was told which fields were declined."
)
DECLINED_PAGE = "The person declined to open the answer page: the agent was told they declined."


@dataclass(frozen=True)
class Step:
    """One elicitation: `key` names it in input requests and answers; a form step keeps the
    refs it asked and the answer page's message for what it left (`then`, or `then_all` when the
    part cannot be held); the answer page's step, whether the form's answers are held."""

    interaction: str
    kind: StepKind
    params: ElicitParams | None = None
    refs: tuple[str, ...] = ()
    then: str = ""
    then_all: str = ""
    held: bool = False

    @property
    def key(self) -> str:
        return f"{self.interaction.removeprefix('interactions/')}:{self.kind}"

    def saved(self) -> dict[str, Any]:
        """What a later round needs (the request state; the question itself is not kept)."""
        return {
            "interaction": self.interaction,
            "kind": self.kind,
            "refs": list(self.refs),
            "then": self.then,
            "then_all": self.then_all,
            "held": self.held,
        }

    @classmethod
    def restored(cls, saved: dict[str, Any]) -> Step:
        return cls(
            str(saved["interaction"]),
            saved["kind"],
            refs=tuple(saved.get("refs", ())),
            then=str(saved.get("then", "")),
            then_all=str(saved.get("then_all", "")),
            held=bool(saved.get("held", False)),
        )


@dataclass
class Questioner:
    backend: Backend
    abilities: Abilities
    notes: list[str] = field(default_factory=list)

    async def first_step(self, question: Question) -> Step | None:
        """The first elicitation of a question; None when it cannot be asked (then declined)."""
        if question.approval is not None:
            params = approval_params(question.approval, self.abilities.titled)
            return Step(question.interaction, "approval", params)
        assert question.form is not None
        form = question.form
        plain, secret = split(form)
        if secret and not self.abilities.url:
            labels = listed(field_name(f) for f in secret)
            await self._decline(
                question.interaction,
                f"The agent asked for {labels}; a secret is never asked through the client, and "
                "this client cannot open Outrider's answer page (no URL-mode elicitation), so "
                "the request was declined.",
            )
            return None
        if plain and self.abilities.form and (not secret or self.backend.partial_answers):
            return Step(
                question.interaction,
                "form",
                form_params(form, plain),
                refs=tuple(f.ref for f in plain),
                then=url_message(form, secret) if secret else "",
                then_all=url_message(form, list(form.fields)),
            )
        return await self._page(question.interaction, url_message(form, list(form.fields)))

    async def answer(self, step: Step, result: types.ElicitResult) -> Step | None:
        """Applies the client's answer; the question's next step, if it has one."""
        try:
            return await self._apply(step, result)
        except Refused as refused:
            self.notes.append(
                f"The answer to {step.interaction} was not taken: {refused.describe()}"
            )
            return None

    async def _apply(self, step: Step, result: types.ElicitResult) -> Step | None:
        if step.kind == "approval":
            approve, always, reason = decision_of(result)
            await self.backend.decide_approval(step.interaction, approve, always, reason)
            return None
        if result.action != "accept":
            # a decline keeps the answers given in the form (the server holds them)
            await self.backend.submit_input(step.interaction, {}, decline=True)
            if step.kind == "url":
                self.notes.append(DECLINED_KEPT if step.held else DECLINED_PAGE)
            return None
        if step.kind == "url":  # the page answers; the run's events tell when
            return None
        values = form_values(result, step.refs)
        if not step.then:
            await self.backend.submit_input(step.interaction, values, decline=False)
            return None
        held = bool(values) and await self.backend.hold_input(step.interaction, values)
        return await self._page(step.interaction, step.then if held else step.then_all, held)

    async def _page(self, interaction: str, message: str, held: bool = False) -> Step | None:
        """The step sending the user to the answer page; without one the question is declined."""
        try:
            url = await self.backend.answer_url(interaction)
        except Refused as refused:
            await self._decline(interaction, f"{message} But: {refused.describe()}")
            return None
        elicitation_id = interaction.removeprefix("interactions/") if self.abilities.push else None
        return Step(interaction, "url", url_params(message, url, elicitation_id), held=held)

    async def decline_unasked(self, interaction: str, why: str) -> None:
        await self._decline(interaction, why)

    async def _decline(self, interaction: str, note: str) -> None:
        self.notes.append(note)
        try:
            await self.backend.submit_input(interaction, {}, decline=True)
        except Refused as refused:
            log.info("could not decline %s: %s", interaction, refused.describe())
