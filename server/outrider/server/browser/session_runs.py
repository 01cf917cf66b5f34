"""What a browser run in a session takes from it (core/sessions/): the session's kept browser, to
borrow, and the summary of its earlier runs, for the model."""

from __future__ import annotations

from outrider.server.browser.connection import BrowserLost
from outrider.server.browser.kept import KeptBrowser
from outrider.server.browser.prompts import session_message
from outrider.server.core.runs.session_seats import SessionView


def borrowed(session: SessionView | None) -> KeptBrowser | None:
    """The session's browser; None for a run outside a session."""
    if session is None:
        return None
    if not isinstance(session.kept, KeptBrowser):
        raise BrowserLost(f"{session.name} keeps no browser on this replica")
    return session.kept


def session_memory(session: SessionView | None) -> str:
    """The message about the session's earlier runs ("" outside a session, or for its first)."""
    if session is None or not session.memory:
        return ""
    return session_message(session.memory)


def memory_cut_note(left_out: int) -> str:
    return (
        f"the session's memory leaves out its {left_out} oldest runs to fit its budget "
        "(OUTRIDER_SESSION_MEMORY_CHARS)"
    )
