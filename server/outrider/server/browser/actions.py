"""Carries out the model's tool calls on the page. Every outcome is a message for the model; a
failure never raises out of here (a stale ref, a timeout, a firewall hold, a blocked request)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

from outrider.server.browser.elements import ElementInfo, describe
from outrider.server.browser.firewall import Firewall, Hold
from outrider.server.browser.js import load_js
from outrider.server.browser.refs import RefMap
from outrider.server.browser.secrets import Secrets
from outrider.server.browser.session import BrowserSession
from outrider.server.browser.side_effects import BrowserJournal

# Decides a held action: None lets it happen, a string is the refusal told to the model.
HoldGate = Callable[[Hold, str], Awaitable[str | None]]
Extractor = Callable[[str, str], Awaitable[str]]  # (question, page text) -> answer
# Fills a credential's part into a field (browser/credential_fill.py): (locator, element, action
# timeout in ms), credential, part -> the result, or ActionFailed with the refusal.
CredentialFill = Callable[
    [tuple[Locator, "ElementInfo", float], str, str], Awaitable["ActionResult"]
]


_FIND_JS = load_js("find_in_page.js")
_OBSTACLE_JS = load_js("obstacle.js")
_LINK_URL_JS = "e => (e.closest('a[href], area[href]') || e).href || ''"
_DATE_FORMATS = {
    "date": (re.compile(r"^\d{4}-\d{2}-\d{2}$"), "YYYY-MM-DD"),
    "time": (re.compile(r"^\d{2}:\d{2}(:\d{2})?$"), "HH:MM"),
    "month": (re.compile(r"^\d{4}-\d{2}$"), "YYYY-MM"),
    "datetime-local": (re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$"), "YYYY-MM-DDTHH:MM"),
}
# Causes Playwright names in an action's call log, as one line the model can act on.
_CAUSES = (
    (
        re.compile(r"(<.*>.*?) intercepts pointer events"),
        "it is covered by {0}, which would get the click: close or dismiss that first",
    ),
    (re.compile(r"element is not enabled"), "it is disabled"),
    (re.compile(r"element is not editable"), "it is read-only"),
    (
        re.compile(r"element is not visible"),
        "it is not visible: open the menu or section holding it, or scroll to it",
    ),
    (re.compile(r"element is not stable"), "it keeps moving (an animation)"),
    (re.compile(r"element was detached|not attached"), "it was removed from the page"),
    (re.compile(r"outside of the viewport"), "it lies outside the viewport"),
)

# The next animation frame, then two task hops: the first hop was queued before the frame's
# rendering queued its observer callbacks (IntersectionObserver, ResizeObserver), the second
# after them, so they have run. Waiting for a second frame instead costs ~16 ms more per action
# (docs/benchmarks.md). 150 ms where frames do not run (background tabs).
_SETTLE_JS = """() => Promise.race([
  new Promise(r => requestAnimationFrame(() => setTimeout(() => setTimeout(r, 0), 0))),
  new Promise(r => setTimeout(r, 150)),
])"""


# Scroll, then say whether anything moved (a page at its end does not).
_SCROLL_PAGE_JS = """(d) => {
  const before = window.scrollY; window.scrollBy({top: d * innerHeight, behavior: 'instant'});
  return Math.abs(window.scrollY - before) >= 1;
}"""
_SCROLL_ELEMENT_JS = """(e, d) => {
  const before = e.scrollTop; e.scrollBy({top: d * e.clientHeight, behavior: 'instant'});
  return Math.abs(e.scrollTop - before) >= 1;
}"""


@dataclass(frozen=True)
class ActionResult:
    ok: bool
    message: str
    answer: str | None = None  # set by done
    abort_reason: str | None = None  # set by abort
    submitted: bool = False  # the action submitted a form


class ActionFailed(Exception):
    """An action that could not happen; the message is for the model."""


@dataclass
class ActionRunner:
    session: BrowserSession
    refs: RefMap
    secrets: Secrets
    firewall: Firewall
    gate: HoldGate
    extractor: Extractor
    upload_dir: Path | None
    timeout_ms: float
    journal: BrowserJournal
    fill_credential: CredentialFill | None = None  # None: the run has no credentials

    async def run(self, name: str, args: dict[str, Any]) -> ActionResult:
        handler = getattr(self, f"_do_{name}", None)
        if handler is None:
            return ActionResult(False, f"there is no tool named {name!r}")
        try:
            result: ActionResult = await handler(**args)
            await self._settle()
        except ActionFailed as failure:
            return ActionResult(False, str(failure))
        except PlaywrightError as error:
            return ActionResult(False, f"{name} failed: {self._explain(error)}")
        return result

    async def _settle(self) -> None:
        """Lets the page react (observers, lazy loading) before it is looked at again."""
        page = self.session.current
        if page is None or page.is_closed():
            return
        try:
            await page.evaluate(_SETTLE_JS)
        except PlaywrightError:
            pass  # the page is navigating: the next observation waits for it anyway

    def _explain(self, error: PlaywrightError) -> str:
        lines = (error.message or str(error)).splitlines()
        first = lines[0]
        if "ERR_BLOCKED_BY_CLIENT" in first and self.session.notices.blocked:
            return self.session.notices.blocked[-1][1]
        cause = _cause_in(lines[1:])
        return self.secrets.redact(f"{first.rstrip('.')}: {cause}" if cause else first)

    async def _refuse_if_blocked(self, locator: Locator, ref: str, kind: str) -> None:
        """Fails at once, saying why, when the element certainly cannot take the action."""
        try:
            reason = await locator.evaluate(_OBSTACLE_JS, kind, timeout=min(self.timeout_ms, 2000))
        except PlaywrightError:
            return  # not answerable now: the action itself will report what goes wrong
        if reason:
            raise ActionFailed(f"cannot {kind} {ref}: {reason}")

    async def locate(self, ref: str) -> Locator:
        found = self.refs.resolve(ref)
        page = self.session.page_by_key(found[0]) if found else None
        if found is None or page is None:
            raise ActionFailed(f"{ref} is not on any open page; look at the latest snapshot")
        locator = locator_of(page, found[1])
        if await locator.count() == 0:
            raise ActionFailed(
                f"{ref} is no longer on the page; look at the latest snapshot and use its refs"
            )
        self.session.switch_to(page)
        return locator

    async def element(self, ref: str) -> tuple[Locator, ElementInfo]:
        locator = await self.locate(ref)
        return locator, await describe(locator, self.timeout_ms)

    async def _guard(self, hold: Hold | None, ref: str) -> None:
        if hold is not None:
            refusal = await self.gate(hold, ref)
            if refusal is not None:
                raise ActionFailed(refusal)

    async def _submitting(self, form: ElementInfo, ref: str) -> None:
        """A form is about to be sent: the firewall may hold it, then the journal records it."""
        await self._guard(self.firewall.check_submit(form), ref)
        refusal = await self.journal.form_submit(form)
        if refusal is not None:
            raise ActionFailed(refusal)

    # element actions

    async def _do_click(self, ref: str) -> ActionResult:
        locator, info = await self.element(ref)
        await self._refuse_if_blocked(locator, ref, "click")
        if info.is_submit:
            await self._submitting(info, ref)
        if not info.opens_tab:
            await locator.click(timeout=self.timeout_ms)
            return ActionResult(True, f"clicked {ref}", submitted=info.is_submit)
        async with self.session.context.expect_page(timeout=self.timeout_ms) as opened:
            await locator.click(timeout=self.timeout_ms)
        await (await opened.value).wait_for_load_state("domcontentloaded")
        return ActionResult(True, f"clicked {ref}; it opened a new tab")

    async def _do_fill(self, ref: str, value: str) -> ActionResult:
        locator, info = await self.element(ref)
        await self._refuse_if_blocked(locator, ref, "fill")
        _check_date_format(info.type, value, ref)
        await self._guard(self.firewall.check_fill(info), ref)
        real = self.secrets.substitute(value)
        if real != value or info.type == "password":
            self.secrets.add(real)
        await locator.fill(real, timeout=self.timeout_ms)
        return ActionResult(True, f"filled {ref}")

    async def _do_fill_credential(self, ref: str, credential: str, part: str) -> ActionResult:
        if self.fill_credential is None:
            raise ActionFailed("this run has no credentials; nothing was filled")
        locator, info = await self.element(ref)
        await self._refuse_if_blocked(locator, ref, "fill")
        return await self.fill_credential((locator, info, self.timeout_ms), credential, part)

    async def _do_select(self, ref: str, values: list[str]) -> ActionResult:
        locator = await self.locate(ref)
        await self._refuse_if_blocked(locator, ref, "select")
        chosen = await locator.select_option(label=values, timeout=self.timeout_ms)
        return ActionResult(True, f"selected {', '.join(values)} in {ref} ({len(chosen)} chosen)")

    async def _do_check(self, ref: str) -> ActionResult:
        locator = await self.locate(ref)
        await self._refuse_if_blocked(locator, ref, "click")
        await locator.check(timeout=self.timeout_ms)
        return ActionResult(True, f"checked {ref}")

    async def _do_uncheck(self, ref: str) -> ActionResult:
        locator = await self.locate(ref)
        await self._refuse_if_blocked(locator, ref, "click")
        await locator.uncheck(timeout=self.timeout_ms)
        return ActionResult(True, f"unchecked {ref}")

    async def _do_hover(self, ref: str) -> ActionResult:
        await (await self.locate(ref)).hover(timeout=self.timeout_ms)
        return ActionResult(True, f"hovering over {ref}")

    async def _do_link_url(self, ref: str) -> ActionResult:
        locator = await self.locate(ref)
        url = await locator.evaluate(_LINK_URL_JS, timeout=self.timeout_ms)
        return ActionResult(True, f"{ref} links to {url}" if url else f"{ref} is not a link")

    async def _do_focus(self, ref: str) -> ActionResult:
        await (await self.locate(ref)).focus(timeout=self.timeout_ms)
        return ActionResult(True, f"focused {ref}")

    async def _do_press(self, key: str, ref: str | None = None) -> ActionResult:
        if ref is None:
            await self.session.page.keyboard.press(key)
            return ActionResult(True, f"pressed {key}")
        locator, info = await self.element(ref)
        submits = key == "Enter" and info.in_form and info.is_text_entry
        if submits:
            await self._submitting(info, ref)
        await locator.press(key, timeout=self.timeout_ms)
        return ActionResult(True, f"pressed {key} on {ref}", submitted=submits)

    async def _do_scroll(
        self, direction: str, ref: str | None = None, pages: float = 1
    ) -> ActionResult:
        sign = -1 if direction == "up" else 1
        if ref is None:
            moved = await self.session.page.evaluate(_SCROLL_PAGE_JS, sign * pages)
        else:
            locator = await self.locate(ref)
            moved = await locator.evaluate(_SCROLL_ELEMENT_JS, sign * pages)
        what = "the page" if ref is None else ref
        if not moved:
            end = "top" if sign < 0 else "end"
            return ActionResult(True, f"{what} did not move: it is already at the {end}")
        return ActionResult(True, f"scrolled {what} {direction}")

    async def _do_upload(self, ref: str, files: list[str]) -> ActionResult:
        if self.upload_dir is None:
            raise ActionFailed("uploads are not configured on this server")
        root = self.upload_dir.resolve()
        paths = [(root / name).resolve() for name in files]
        if any(root not in path.parents or not path.is_file() for path in paths):
            raise ActionFailed(
                f"only files directly in the upload directory can be uploaded: {files}"
            )
        locator = await self.locate(ref)
        refusal = await self.journal.upload(files, self.session.page.url)
        if refusal is not None:
            raise ActionFailed(refusal)
        await locator.set_input_files(paths, timeout=self.timeout_ms)
        return ActionResult(True, f"attached {', '.join(files)} to {ref}")

    # page actions

    async def _do_goto(self, url: str) -> ActionResult:
        if not url.startswith(("http://", "https://")):
            raise ActionFailed("goto takes an absolute http or https URL")
        response = await self.session.page.goto(url)
        if response is not None and response.headers.get("x-outrider-blocked"):
            raise ActionFailed(self.session.notices.blocked[-1][1])
        return ActionResult(True, f"opened {url}")

    async def _do_back(self) -> ActionResult:
        await self.session.page.go_back()
        return ActionResult(True, "went back")

    async def _do_forward(self) -> ActionResult:
        await self.session.page.go_forward()
        return ActionResult(True, "went forward")

    async def _do_reload(self) -> ActionResult:
        await self.session.page.reload()
        return ActionResult(True, "reloaded")

    async def _do_wait(self, seconds: float) -> ActionResult:
        await asyncio.sleep(max(0.0, min(float(seconds), 10.0)))
        return ActionResult(True, f"waited {seconds} s")

    async def _do_extract(self, question: str) -> ActionResult:
        text = self.secrets.redact(await self.session.page.inner_text("body"))
        return ActionResult(True, await self.extractor(question, text))

    async def _do_tabs(self, action: str, index: int | None = None) -> ActionResult:
        tabs = self.session.tabs
        if action == "list":
            current = self.session.current
            lines = [
                f"{i}: {await t.title()} ({t.url}){' [current]' if t is current else ''}"
                for i, t in enumerate(tabs, 1)
            ]
            return ActionResult(True, "\n".join(lines))
        if index is None or not 1 <= index <= len(tabs):
            raise ActionFailed(f"index must be between 1 and {len(tabs)}")
        if action == "switch":
            self.session.switch_to(tabs[index - 1])
            return ActionResult(True, f"switched to tab {index}")
        await tabs[index - 1].close()
        return ActionResult(True, f"closed tab {index}")

    async def _do_find(self, text: str) -> ActionResult:
        page = self.session.page
        found: list[str] = await page.evaluate(_FIND_JS, [text, 25])
        if not found:
            return ActionResult(True, f"nothing on the page matches {text!r}")
        view = self.secrets.redact(self.refs.rename(self.session.key_of(page), "\n".join(found)))
        return ActionResult(True, f"Elements matching {text!r}:\n{view}")

    async def _do_done(self, answer: str) -> ActionResult:
        return ActionResult(True, "finished", answer=answer)

    async def _do_abort(self, reason: str) -> ActionResult:
        return ActionResult(True, "aborted", abort_reason=reason)


def _cause_in(call_log: list[str]) -> str | None:
    """The last cause Playwright's call log names, in the model's terms."""
    for line in reversed(call_log):
        for pattern, explanation in _CAUSES:
            found = pattern.search(line)
            if found:
                return explanation.format(*found.groups())
    return None


def locator_of(page: Page, ref_id: str) -> Locator:
    """The element a Playwright ref (or one of ours from the large-page view or find) names."""
    if ref_id.startswith("dom"):
        return page.locator(f'[data-outrider-ref="{ref_id[3:]}"]').first
    return page.locator(f"aria-ref={ref_id}")


def _check_date_format(field_type: str, value: str, ref: str) -> None:
    expected = _DATE_FORMATS.get(field_type)
    if expected is not None and not expected[0].match(value):
        raise ActionFailed(f"cannot fill {ref}: it is a {field_type} field; give {expected[1]}")
