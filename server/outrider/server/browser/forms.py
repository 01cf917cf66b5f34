"""Form-data input: the model names fields it has no values for; the caller supplies them; the
harness fills them itself and checks what the page says. The model only learns which fields were
filled, never the values."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from playwright.async_api import Locator

from outrider.server.browser.actions import ActionFailed, ActionResult, ActionRunner
from outrider.server.browser.elements import ElementInfo
from outrider.server.browser.js import load_js
from outrider.server.core.clock import epoch_ms, now_us
from outrider.server.core.interactions import InputAnswer
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_event_pb2 as rp

AskInput = Callable[[ae.InteractiveFormDataRequest, dict[str, str] | None], Awaitable[InputAnswer]]
MAX_ROUNDS = 3
_TRUE = frozenset({"true", "yes", "on", "1", "checked", "x"})

_PAGE_ERRORS_JS = load_js("page_errors.js")
_CHOOSE_RADIO_JS = load_js("choose_radio.js")


class FormInput:
    def __init__(self, runner: ActionRunner, ask: AskInput) -> None:
        self._runner = runner
        self._ask = ask

    async def request(self, refs: list[str], reason: str, iteration_id: str) -> ActionResult:
        elements = [(ref, *await self._runner.element(ref)) for ref in refs]
        request = await self._build_request(elements, reason, iteration_id)
        errors: dict[str, str] | None = None
        for _ in range(MAX_ROUNDS):
            answer = await self._ask(request, errors)
            if not answer.submitted:
                return ActionResult(True, _unanswered(answer, refs))
            await self._fill(elements, answer.values)
            errors = await self._page_errors(elements)
            if not errors:
                filled = ", ".join(
                    f"{ref} ({info.label})" for ref, _, info in elements if ref in answer.values
                )
                return ActionResult(True, f"The user filled {filled}. The values are in the page.")
            for field in request.fields:
                field.description = errors.get(field.ref, "")
        return ActionResult(False, f"the page rejected the user's values: {errors}")

    async def _build_request(
        self, elements: list[tuple[str, Locator, ElementInfo]], reason: str, iteration_id: str
    ) -> ae.InteractiveFormDataRequest:
        page = self._runner.session.page
        first = elements[0][2] if elements else None
        return ae.InteractiveFormDataRequest(
            fields=[self._field(ref, info) for ref, _, info in elements],
            form_description=(first.form_label if first and first.form_label else reason),
            iteration_id=iteration_id,
            page_title=await page.title(),
            page_url=page.url,
            timestamp=epoch_ms(now_us()),
        )

    def _field(self, ref: str, info: ElementInfo) -> ae.FormField:
        field = ae.FormField(
            ref=ref,
            label=info.label,
            field_type=info.field_type,  # type: ignore[arg-type]
            required=info.required,
            options=info.options,
        )
        secret = info.type == "password" or self._runner.secrets.is_secret_text(info.value)
        if info.value and not secret:
            field.current_value = info.value
        return field

    async def _fill(
        self, elements: list[tuple[str, Locator, ElementInfo]], values: dict[str, str]
    ) -> None:
        timeout = self._runner.timeout_ms
        for ref, locator, info in elements:
            if ref not in values:
                continue
            value = values[ref]
            self._runner.secrets.add(value)  # caller-typed values never show in snapshots
            if info.tag == "select":
                await locator.select_option(label=value, timeout=timeout)
            elif info.type == "checkbox":
                await locator.set_checked(value.strip().lower() in _TRUE, timeout=timeout)
            elif info.type == "radio":
                if not await locator.evaluate(_CHOOSE_RADIO_JS, value):
                    raise ActionFailed(f"{ref} has no option matching the user's choice")
            else:
                await locator.fill(value, timeout=timeout)

    async def _page_errors(
        self, elements: list[tuple[str, Locator, ElementInfo]]
    ) -> dict[str, str]:
        errors = {}
        for ref, locator, _ in elements:
            message: str = await locator.evaluate(_PAGE_ERRORS_JS)
            if message:
                errors[ref] = self._runner.secrets.redact(message)
        return errors


def _unanswered(answer: InputAnswer, refs: list[str]) -> str:
    fields = ", ".join(refs)
    if answer.source == rp.RESOLUTION_SOURCE_EXPIRED:
        return f"Nobody answered the request for {fields} in time; nothing was filled."
    if answer.source == rp.RESOLUTION_SOURCE_RUN_ENDED:
        return f"The request for {fields} ended unanswered; nothing was filled."
    return f"The user declined to provide {fields}."
