"""browser-use's side of `bench.browser_use_tokens`: run by the interpreter of the separate
browser-use virtualenv (never by the project's), it imports nothing of Outrider.

It connects browser-use to a Chromium already running with a DevTools port, opens each URL,
takes the browser state as browser-use's Agent does before each step, and prints one JSON
object: per URL the `<browser_state>` block of the agent's per-step user message
(`AgentMessagePrompt._get_browser_state_description()`, with the Agent's defaults for included
attributes and its 40,000-character cap) and, for reference, the bare element tree
(`SerializedDOMState.llm_representation()`).

Usage: python browser_use_state.py CDP_URL WIDTH HEIGHT URL [URL ...]
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from importlib.metadata import version
from typing import Any

# Its logs go to stderr: stdout carries only the JSON the parent reads.
_RESULT_OUT = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)

from browser_use import BrowserSession  # noqa: E402
from browser_use.agent.prompts import AgentMessagePrompt  # noqa: E402
from browser_use.agent.views import AgentSettings  # noqa: E402


def browser_state_block(summary: Any, settings: AgentSettings) -> str:
    """The browser-state part of the agent's user message, exactly as get_user_message wraps it."""
    prompt = AgentMessagePrompt(
        browser_state_summary=summary,
        file_system=None,  # type: ignore[arg-type]  # only the agent-state part reads it
        include_attributes=settings.include_attributes,
        max_clickable_elements_length=settings.max_clickable_elements_length,
    )
    description = prompt._get_browser_state_description()
    return "<browser_state>\n" + description.strip("\n") + "\n</browser_state>\n"


async def states(cdp_url: str, width: int, height: int, urls: list[str]) -> list[dict[str, Any]]:
    settings = AgentSettings()
    session = BrowserSession(
        cdp_url=cdp_url, viewport={"width": width, "height": height}, keep_alive=False
    )
    await session.start()
    found = []
    try:
        for url in urls:
            await session.navigate_to(url)
            # The Agent asks for a screenshot too; it does not change the text counted here.
            summary = await session.get_browser_state_summary(include_screenshot=False)
            info = summary.page_info
            found.append(
                {
                    "url": url,
                    "title": summary.title,
                    "browser_state": browser_state_block(summary, settings),
                    "elements": summary.dom_state.llm_representation(
                        include_attributes=settings.include_attributes
                    ),
                    "viewport": [info.viewport_width, info.viewport_height] if info else None,
                }
            )
    finally:
        await session.stop()  # disconnects; the Chromium belongs to the parent
    return found


def main() -> None:
    cdp_url, width, height, *urls = sys.argv[1:]
    pages = asyncio.run(states(cdp_url, int(width), int(height), urls))
    settings = AgentSettings()
    result = {
        "version": version("browser-use"),
        "max_clickable_elements_length": settings.max_clickable_elements_length,
        "pages": pages,
    }
    _RESULT_OUT.write(json.dumps(result) + "\n")
    _RESULT_OUT.flush()


if __name__ == "__main__":
    main()
