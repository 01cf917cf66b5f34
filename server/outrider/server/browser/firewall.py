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
    """An action the firewall holds back, and why."""

    action: str  # "fill" or "submit"
    page_host: str
    target_host: str
    reason: str

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
        return self._hold("fill", element.page_url, target, f"filling {element.label or 'a field'}")

    def check_submit(self, element: ElementInfo) -> Hold | None:
        if self._unsafe:
            return None
        if element.form_has_data:
            what = "submitting a form with entered data"
            return self._hold("submit", element.page_url, element.form_action, what)
        target_host = host_of(element.form_action)
        if target_host == host_of(element.page_url) or self.is_trusted(target_host):
            return None
        what = "submitting a form to another host"
        return self._hold("submit", element.page_url, element.form_action, what)

    def _hold(self, action: str, page_url: str, target_url: str, what: str) -> Hold | None:
        page_host, target_host = host_of(page_url), host_of(target_url)
        untrusted = [h for h in dict.fromkeys((page_host, target_host)) if not self.is_trusted(h)]
        if not untrusted:
            return None
        hosts = ", ".join(untrusted)
        reason = f"{what} on {page_host} for {target_host}: {hosts} not in trusted_hostnames"
        return Hold(action, page_host, target_host, reason)
