"""What happens to an action the firewall holds back: asked as an approval when someone can
answer it; refused at once, with the reason told to the model, when nobody can (a
non-interactive run, or a caller that cannot see approvals)."""

from __future__ import annotations

from collections.abc import Callable

from outrider.server.browser.firewall import Hold
from outrider.server.browser.reporting import Reporter
from outrider.server.browser.side_effects import BrowserJournal
from outrider.server.core.runs.agent import RunContext
from outrider.v1 import run_event_pb2


class HoldDecider:
    def __init__(
        self,
        ctx: RunContext,
        reporter: Reporter,
        page_url: Callable[[], str],
        journal: BrowserJournal,
    ) -> None:
        self._ctx = ctx
        self._reporter = reporter
        self._page_url = page_url
        self._journal = journal

    @property
    def _answerable(self) -> bool:
        return self._ctx.automate.interactive and not self._ctx.options.refuse_held_actions

    async def decide(self, hold: Hold, ref: str, iteration_id: str) -> str | None:
        """None lets the action happen; a string is the refusal told to the model."""
        if not self._answerable:
            return self._refuse(hold, ref, iteration_id)
        request = run_event_pb2.ApprovalRequested(
            iteration_id=iteration_id,
            action=hold.action,
            ref=ref,
            url=self._page_url(),
            reason=hold.reason,
            question=hold.question,
        )
        request.details.update(
            {
                "page_host": hold.page_host,
                "target_host": hold.target_host,
                "untrusted_hosts": list(hold.untrusted),
            }
        )
        answer = await self._ctx.ask_approval(request, standing_key=hold.standing_key)
        if answer.decision == run_event_pb2.APPROVAL_DECISION_APPROVE:
            return await self._journal.approval_granted(hold, answer.resolved_by)
        if answer.source == run_event_pb2.RESOLUTION_SOURCE_EXPIRED:
            return (
                f"Nobody answered the approval for this {hold.action} in time, so it was not "
                "done. Do not try it again."
            )
        reason = f": {answer.reason}" if answer.reason else ""
        return f"The user rejected this {hold.action}{reason}. Do not try it again."

    def _refuse(self, hold: Hold, ref: str, iteration_id: str) -> str:
        interactive = self._ctx.automate.interactive
        why = " (this caller cannot answer approvals)" if interactive else ""
        hosts = ", ".join(hold.untrusted)
        self._reporter.status(
            iteration_id, f"action firewall blocked {hold.action} on {ref}: {hold.question}{why}"
        )
        asking = " The user cannot be asked to approve it on this run." if interactive else ""
        return (
            f"Blocked by the action firewall: {hold.question}.{asking} The user must add "
            f"{hosts} to trusted_hostnames for this to be allowed."
        )
