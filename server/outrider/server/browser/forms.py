"""Form-data input: the model names fields it has no values for; the caller supplies them; the
harness fills them itself and checks what the page says, before the submit and after it. The
model only learns which fields were filled, never the values."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator

from outrider.server.browser.actions import ActionFailed, ActionResult, ActionRunner
from outrider.server.browser.elements import ElementInfo
from outrider.server.browser.js import load_js
from outrider.server.core.clock import epoch_ms, now_us
from outrider.server.core.interactions.resolutions import InputAnswer
from outrider.server.security.fences import inline
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_event_pb2 as rp

AskInput = Callable[[ae.InteractiveFormDataRequest, dict[str, str] | None], Awaitable[InputAnswer]]
Tell = Callable[[str, str], None]  # (iteration id, message): a status line in the run's events
Field = tuple[str, Locator, ElementInfo]
MAX_ROUNDS = 3
# How long after a submit the page may take to show its verdict on the values.
_VERDICT_POLLS, _VERDICT_INTERVAL, _VERDICT_TIMEOUT_MS = 8, 0.25, 1000
_TRUE = frozenset({"true", "yes", "on", "1", "checked", "x"})
_REF = re.compile(r"\bE\d+\b")  # the element refs the model reads (refs.py)

_PAGE_ERRORS_JS = load_js("page_errors.js")
_WATCH_ERRORS_JS = load_js("watch_errors.js")
_CHOOSE_RADIO_JS = load_js("choose_radio.js")
_FORM_MESSAGES_JS = load_js("form_messages.js")


@dataclass
class FilledForm:
    """Fields the caller filled; the next submit is watched for the page rejecting them."""

    request: ae.InteractiveFormDataRequest
    fields: list[Field]
    rounds: int


class FormInput:
    def __init__(self, runner: ActionRunner, ask: AskInput, tell: Tell) -> None:
        self._runner = runner
        self._ask = ask
        self._tell = tell
        self.filled: FilledForm | None = None  # set when the caller's values are in the page

    async def request(self, refs: list[str], reason: str, iteration_id: str) -> ActionResult:
        fields = [(ref, *await self._runner.element(ref)) for ref in refs]
        request = await self._build_request(fields, reason, iteration_id)
        return await self._ask_and_fill(request, fields, None, 0)

    async def after_submit(self, form: FilledForm) -> str | None:
        """When the page rejected the submitted values: asks the caller again (with the page's
        messages) and fills the new values; returns what the model should know, else None."""
        errors, fields = await self._verdict(form.fields)
        if not errors:
            return None
        summary = "; ".join(f'{ref}: "{inline(message)}"' for ref, message in errors.items())
        if form.rounds >= MAX_ROUNDS:
            return f"The page rejected the user's values again ({summary}). Stop trying."
        result = await self._ask_and_fill(form.request, fields, errors, form.rounds)
        return f"After the submit the page rejected the user's values ({summary}). {result.message}"

    async def _ask_and_fill(
        self,
        request: ae.InteractiveFormDataRequest,
        fields: list[Field],
        errors: dict[str, str] | None,
        rounds: int,
    ) -> ActionResult:
        refs = [ref for ref, _, _ in fields]
        while rounds < MAX_ROUNDS:
            rounds += 1
            for field in request.fields:
                field.description = (errors or {}).get(field.ref, "")
            answer = await self._ask(request, errors)
            if not answer.submitted:
                return ActionResult(True, _unanswered(answer, refs))
            await self._watch_page()  # what the page says about these values, not older ones
            await self._fill(fields, answer.values)
            # a field the person declined to give is empty on purpose: the page may say so later
            given = [field for field in fields if field[0] not in answer.declined]
            errors = await self._page_errors(given, after_submit=False)
            if not errors:
                await self._watch_page()  # from here on: what the submit causes
                self.filled = FilledForm(request, fields, rounds)
                filled = _described(fields, answer.values)
                done = f"The user filled {filled}. The values are in the page."
                return ActionResult(True, done + self._declined(request, fields, answer))
        return ActionResult(False, f"the page rejected the user's values: {errors}")

    def _declined(
        self, request: ae.InteractiveFormDataRequest, fields: list[Field], answer: InputAnswer
    ) -> str:
        """What the model is told of the fields the person declined to give (and the run's
        events say), when they gave the others."""
        if not answer.declined:
            return ""
        labels = ", ".join(f.label for f in request.fields if f.ref in answer.declined)
        self._tell(
            request.iteration_id,
            f"The person declined to give {labels}; their other answers are in the page.",
        )
        return f" The user declined to give {_described(fields, answer.declined)}."

    async def _build_request(
        self, fields: list[Field], reason: str, iteration_id: str
    ) -> ae.InteractiveFormDataRequest:
        page = self._runner.session.page
        first = fields[0][2] if fields else None
        described = first.form_label if first and first.form_label else _in_words(reason, fields)
        return ae.InteractiveFormDataRequest(
            fields=[self._field(ref, info) for ref, _, info in fields],
            form_description=described,
            iteration_id=iteration_id,
            page_title=await page.title(),
            page_url=page.url,
            timestamp=epoch_ms(now_us()),
        )

    def _field(self, ref: str, info: ElementInfo) -> ae.FormField:
        field = ae.FormField(
            ref=ref,
            label=info.label or _unlabelled(info),
            field_type=info.field_type,  # type: ignore[arg-type]
            required=info.required,
            options=info.options,
        )
        secret = info.type == "password" or self._runner.secrets.is_secret_text(info.value)
        if info.value and not secret:
            field.current_value = info.value
        return field

    async def _fill(self, fields: list[Field], values: dict[str, str]) -> None:
        timeout = self._runner.timeout_ms
        for ref, locator, info in fields:
            if ref not in values:
                continue
            value = values[ref]
            self._runner.secrets.add(value)  # caller-typed values never show anywhere
            if info.tag == "select":
                await locator.select_option(label=value, timeout=timeout)
            elif info.type == "checkbox":
                await locator.set_checked(value.strip().lower() in _TRUE, timeout=timeout)
            elif info.type == "radio":
                if not await locator.evaluate(_CHOOSE_RADIO_JS, value):
                    raise ActionFailed(f"{ref} has no option matching the user's choice")
            else:
                await locator.fill(value, timeout=timeout)

    async def _watch_page(self) -> None:
        try:
            await self._runner.session.page.evaluate(_WATCH_ERRORS_JS)
        except PlaywrightError:
            pass  # a page that refuses scripts: every alert after the submit then counts

    async def _page_errors(self, fields: list[Field], after_submit: bool) -> dict[str, str]:
        """Messages the page shows for each field; each form-level one goes to the fields it
        names, or to every field when it names none."""
        own: dict[str, str] = {}
        form_level: list[str] = []
        for ref, locator, _ in fields:
            # After a submit the field may vanish under a navigation: do not wait for it long.
            timeout = _VERDICT_TIMEOUT_MS if after_submit else self._runner.timeout_ms
            found: dict[str, Any] = await locator.evaluate(
                _PAGE_ERRORS_JS, after_submit, timeout=timeout
            )
            if found["field"]:
                own[ref] = found["field"]
            if found["form"] and found["form"] not in form_level:
                form_level.append(found["form"])
        if after_submit:
            shown = await self._new_messages(fields)
            for (ref, _, _), messages in zip(fields, shown["fields"], strict=True):
                own[ref] = _joined(own.get(ref, ""), messages)
            form_level += shown["form"]
        for ref, messages in _by_field(form_level, fields).items():
            own[ref] = _joined(own.get(ref, ""), messages)
        return {
            ref: self._runner.secrets.redact(message) for ref, message in own.items() if message
        }

    async def _new_messages(self, fields: list[Field]) -> dict[str, Any]:
        """What the submit made the page show near each field and elsewhere, read from the
        page's text (pages that mark nothing up for assistive technology; form_messages.js)."""
        handles = [
            await locator.element_handle(timeout=_VERDICT_TIMEOUT_MS) for _, locator, _ in fields
        ]
        try:
            labels = [info.label for _, _, info in fields]
            found: dict[str, Any] = await self._runner.session.page.evaluate(
                _FORM_MESSAGES_JS, {"fields": handles, "labels": labels}
            )
        finally:
            for handle in handles:
                await handle.dispose()
        return found

    async def _verdict(self, fields: list[Field]) -> tuple[dict[str, str], list[Field]]:
        """The page's messages after a submit (waiting briefly for them), and the fields as
        they now are; nothing when the form is gone (the submit led elsewhere)."""
        for _ in range(_VERDICT_POLLS):
            try:
                current = await self._relocate(fields)
                if not current:
                    return {}, []
                errors = await self._page_errors(current, after_submit=True)
            except PlaywrightError:
                errors, current = {}, fields  # the page is navigating: look again
            if errors:
                return errors, current
            await asyncio.sleep(_VERDICT_INTERVAL)
        return {}, []

    async def _relocate(self, fields: list[Field]) -> list[Field]:
        """The same fields on the current page: still attached, or found again by name, id or
        label on a page the submit re-rendered."""
        page = self._runner.session.page
        found = []
        for ref, locator, info in fields:
            if await _present(locator):
                found.append((ref, locator, info))
                continue
            candidates = []
            if info.name:
                candidates.append(page.locator(f'[name="{_css_string(info.name)}"]').first)
            if info.element_id:
                candidates.append(page.locator(f'[id="{_css_string(info.element_id)}"]').first)
            if info.label:
                candidates.append(page.get_by_label(info.label, exact=True).first)
            for candidate in candidates:
                if await candidate.count() > 0:  # raises while the page navigates
                    found.append((ref, candidate, info))
                    break
        return found


async def _present(locator: Locator) -> bool:
    try:
        return await locator.count() > 0
    except PlaywrightError:
        return False  # an aria ref of a document that is gone: look for the field anew


def _by_field(messages: list[str], fields: list[Field]) -> dict[str, list[str]]:
    """Form-level messages by the fields they name. One naming no field goes to every field,
    unless others name fields: then it introduces them ("Please fix the following:") and goes
    to the fields they name."""
    named = {m: [ref for ref, _, info in fields if _names(m, info.label)] for m in messages}
    rejected = [ref for ref, _, _ in fields if any(ref in refs for refs in named.values())]
    everyone = rejected or [ref for ref, _, _ in fields]
    found: dict[str, list[str]] = {}
    for message, refs in named.items():
        for ref in refs or everyone:
            found.setdefault(ref, []).append(message)
    return found


def _joined(message: str, more: list[str]) -> str:
    """`message` and the `more` messages it does not already say, in one text."""
    for extra in more:
        if extra not in message:
            message = f"{message} {extra}".strip()
    return message


def _names(message: str, label: str) -> bool:
    return bool(label) and label.strip().lower() in message.lower()


def _css_string(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _in_words(reason: str, fields: list[Field]) -> str:
    """The model's reason for a person: the element refs it names ("E7") as the fields' labels."""
    labels = {ref: info.label for ref, _, info in fields}

    def named(ref: re.Match[str]) -> str:
        label = labels.get(ref.group())
        return f"“{label}”" if label else "a field"

    return _REF.sub(named, reason).strip()


def _unlabelled(info: ElementInfo) -> str:
    """A name for a field the page labels nowhere: its name attribute, else its kind."""
    if info.name:
        return " ".join(info.name.replace("_", " ").replace("-", " ").split()).capitalize()
    return f"{(info.type or info.tag).capitalize()} field"


def _described(fields: list[Field], refs: Collection[str]) -> str:
    return ", ".join(f"{ref} ({info.label})" for ref, _, info in fields if ref in refs)


def _unanswered(answer: InputAnswer, refs: list[str]) -> str:
    fields = ", ".join(refs)
    if answer.source == rp.RESOLUTION_SOURCE_EXPIRED:
        return f"Nobody answered the request for {fields} in time; nothing was filled."
    if answer.source == rp.RESOLUTION_SOURCE_RUN_ENDED:
        return f"The request for {fields} ended unanswered; nothing was filled."
    return f"The user declined to provide {fields}."
