"""The actor's conversation keeps only the newest page: an older one is taken out, with nothing
left in its place, so a request carries one page whatever the number of steps before it."""

from __future__ import annotations

from outrider.server.browser.conversation import Conversation
from outrider.server.models.base import ModelReply, ToolCall


def test_only_the_newest_page_is_sent_and_older_ones_leave_no_placeholder() -> None:
    conversation = Conversation("rules", "Task: read five pages")
    for step in range(1, 6):
        conversation.add_page(f"<<<EXTERNAL_CONTENT page {step}\nEXTERNAL_CONTENT>>>")
        call = ToolCall(f"call_{step}", "click", {"ref": "E41"})
        conversation.add_reply(ModelReply(text="", tool_calls=(call,)))
        conversation.add_result(call, "clicked E41")
    conversation.add_page("<<<EXTERNAL_CONTENT page 6\nEXTERNAL_CONTENT>>>")
    messages = conversation.request(()).messages
    pages = [m.text for m in messages if "EXTERNAL_CONTENT" in m.text]
    assert pages == ["<<<EXTERNAL_CONTENT page 6\nEXTERNAL_CONTENT>>>"]
    # rules, task, then the five turns (call and result each), then the page: nothing else
    assert [m.role for m in messages] == ["system", "user", *["assistant", "tool"] * 5, "user"]
