"""Filling a credential's part into a field, for the model's fill_credential call. The model names
the field, the credential and the part; the core says whether this field may have it (the
frame's origin bound to the credential, the field of the part's kind, a fresh code) and gives the
value, which goes into the field and nowhere else. What the model hears is "filled" or why not,
in words; every attempt is an audit row and a credential_used event."""

from __future__ import annotations

from collections.abc import Callable

from google.protobuf.message import Message
from playwright.async_api import Locator

from outrider.server.browser.actions import ActionFailed, ActionResult
from outrider.server.browser.elements import ElementInfo
from outrider.server.core.vault.checks import origin_of
from outrider.server.core.vault.run_credentials import RunCredentials

# The origin of the element's own document (a frame's, not the tab's): "null" for an opaque one.
_FRAME_ORIGIN_JS = "e => e.ownerDocument.defaultView.origin"
CREDENTIAL_RULE = (
    "Saved logins: each page view says which of this run's credentials fit its site. To log "
    "in, call fill_credential with a field's ref, the credential and the part (username, "
    "password or totp for a one-time code); the harness types the value, which you never "
    "see. Never type or guess a login yourself.\n"
)


class CredentialFiller:
    def __init__(self, credentials: RunCredentials, emit: Callable[[Message], object]) -> None:
        self.credentials = credentials
        self._emit = emit

    def notes(self, url: str) -> list[str]:
        """The page view's line about this run's credentials for the page's origin."""
        origin = origin_of(url)
        offered = self.credentials.offered(origin)
        if offered:
            return [f"Credentials for {origin}: {offered}. Use fill_credential."]
        return [f"None of this run's credentials may be used on {origin or 'this page'}."]

    async def fill(
        self,
        target: tuple[Locator, ElementInfo, float],
        credential: str,
        part: str,
        iteration_id: str,
    ) -> ActionResult:
        """Fills `target` (its locator, what it is, the action timeout in ms) or refuses."""
        locator, info, timeout_ms = target
        frame_origin = await locator.evaluate(_FRAME_ORIGIN_JS, timeout=timeout_ms)
        origin = origin_of(str(frame_origin)) if frame_origin != "null" else ""
        kind = info.type if info.tag == "input" else info.tag
        grant = await self.credentials.grant(credential, part, origin, kind, iteration_id)
        if grant.value is None:
            self._emit(grant.use)
            raise ActionFailed(f"Refused: {grant.refusal}")
        try:
            await locator.fill(grant.value, timeout=timeout_ms)
        except Exception as error:
            failed = await self.credentials.fill_failed(
                credential, part, origin, kind, type(error).__name__
            )
            failed.iteration_id = iteration_id
            self._emit(failed)
            raise
        self._emit(grant.use)
        return ActionResult(True, f"filled the {part} of {credential}")
