"""The action firewall: fills of free-text or sensitive fields and submissions of forms carrying
such data happen only where both the page's host and the form's target host are trusted, or in
unsafe mode; a form sent to another host that is not trusted is held even when its fields are
empty (hidden inputs and the request itself can carry data). Everything else is held back:
asked as an approval in interactive mode, refused otherwise. Search boxes, pickers and choices
stay free."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from outrider.server.browser.elements import ElementInfo


@dataclass(frozen=True)
class Hold:
    """An action the firewall holds back, and why: `question` and `reason` in a person's words
    (no element refs, no setting names), the hosts for programs."""

    action: str  # "fill" or "submit"
    page_host: str
    target_host: str
    reason: str  # e.g. "this site is not one the run trusts"
    question: str  # e.g. "Submit the form “Sign in” on bank.example — this site is not ..."
    untrusted: tuple[str, ...] = ()

    @property
    def standing_key(self) -> str:
        """Approvals "for this host" cover every held action from this page host to this target."""
        return f"{self.page_host}->{self.target_host}"


def host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


class Firewall:
    def __init__(self, trusted_hostnames: Sequence[str], unsafe_mode: bool) -> None:
        self._trusted = [host.lower().strip() for host in trusted_hostnames]
        self._unsafe = unsafe_mode

    def is_trusted(self, host: str) -> bool:
        return any(
            host == rule or (rule.startswith("*.") and host.endswith(rule[1:]))
            for rule in self._trusted
        )

    def check_fill(self, element: ElementInfo) -> Hold | None:
        if self._unsafe or element.is_harmless_entry or not element.is_text_entry:
            return None
        target = element.form_action or element.page_url
        what = f"Type into “{element.label}”" if element.label else "Type into a field"
        return self._hold("fill", element.page_url, target, what)

    def check_submit(self, element: ElementInfo) -> Hold | None:
        if self._unsafe:
            return None
        target_host = host_of(element.form_action)
        if not element.form_has_data and (
            target_host == host_of(element.page_url) or self.is_trusted(target_host)
        ):
            return None  # an empty form that stays on the site, or goes to a trusted one
        return self._hold("submit", element.page_url, element.form_action, _submitting(element))

    def _hold(self, action: str, page_url: str, target_url: str, what: str) -> Hold | None:
        page_host, target_host = host_of(page_url), host_of(target_url)
        untrusted = tuple(
            h for h in dict.fromkeys((page_host, target_host)) if not self.is_trusted(h)
        )
        if not untrusted:
            return None
        question, reason = _in_words(action, what, page_host, target_host, untrusted)
        return Hold(action, page_host, target_host, reason, question, untrusted)


def _submitting(element: ElementInfo) -> str:
    if element.form_label:
        return f"Submit the form “{element.form_label}”"
    if element.label:
        return f"Submit a form with its “{element.label}” button"
    return "Submit a form"


def _in_words(
    action: str, what: str, page: str, target: str, untrusted: tuple[str, ...]
) -> tuple[str, str]:
    """The question and the reason of a hold, naming each host once."""
    if target in ("", page):
        reason = "this site is not one the run trusts"
        return f"{what} on {page} — {reason}", reason
    sent = " to" if action == "submit" else ", in a form sent to"
    if len(untrusted) == 2:
        reason = "neither site is one the run trusts"
        return f"{what} on {page}{sent} {target} — {reason}", reason
    reason = f"{untrusted[0]} is not a site the run trusts"
    if untrusted[0] == target:
        return f"{what} on {page}{sent} {target}, a site the run does not trust", reason
    return f"{what} on {page}, a site the run does not trust,{sent} {target}", reason
