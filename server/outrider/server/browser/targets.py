"""Where an action's element is on the page the step looked at, and what it is, for its
agent:action event (AgentAction.target): the console's replay marks it on the step's screenshot.
Measured before the action, on the current tab only (the screenshot's), in one DevTools round
trip; an element that cannot be measured quickly (gone, hidden, another tab) has no target and
the action goes on as it would."""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError

from outrider.server.browser.actions import locator_of
from outrider.server.browser.recipes import role_and_name
from outrider.server.browser.refs import RefMap
from outrider.server.browser.session import BrowserSession
from outrider.v1 import automate_events_pb2 as ae

MEASURE_TIMEOUT_MS = 2000  # an element of the page just read is there at once, or not at all


async def action_target(
    session: BrowserSession, refs: RefMap, ref: str, view: str
) -> ae.ActionTarget | None:
    """What the element is (as the view names it) and, when it can be measured, where."""
    role_name = role_and_name(view, ref)
    label = ""
    if role_name:
        label = f'{role_name[0]} "{role_name[1]}"' if role_name[1] else role_name[0]
    target = ae.ActionTarget(label=label)
    box = await _box(session, refs, ref)
    if box is not None:
        target.x, target.y, target.width, target.height = box
    return target if label or box else None


async def _box(
    session: BrowserSession, refs: RefMap, ref: str
) -> tuple[float, float, float, float] | None:
    found = refs.resolve(ref)
    page = session.page_by_key(found[0]) if found else None
    if found is None or page is None or page is not session.current:
        return None
    try:
        box = await locator_of(page, found[1]).bounding_box(timeout=MEASURE_TIMEOUT_MS)
    except PlaywrightError:
        return None
    return (box["x"], box["y"], box["width"], box["height"]) if box else None
