"""The actor's conversation keeps only the newest page: an older one is taken out, with nothing
left in its place, so a request carries one page whatever the number of steps before it. Every
request repeats the one before it, up to that one's page, and marks where those prefixes end."""

from __future__ import annotations

import itertools

from outrider.server.browser.conversation import Conversation
from outrider.server.models.base import ModelReply, ModelRequest, ToolCall


def five_steps(conversation: Conversation) -> list[ModelRequest]:
    requests = []
    for step in range(1, 6):
        conversation.add_page(f"<<<EXTERNAL_CONTENT page {step}\nEXTERNAL_CONTENT>>>")
        requests.append(conversation.request(()))
        calls = (
            ToolCall(f"call_{step}a", "fill", {"ref": "E40", "value": "x"}),
            ToolCall(f"call_{step}b", "click", {"ref": "E41"}),
        )
        conversation.add_reply(ModelReply(text="", tool_calls=calls))
        for call in calls:
            conversation.add_result(call, f"did {call.name}")
    conversation.add_page("<<<EXTERNAL_CONTENT page 6\nEXTERNAL_CONTENT>>>")
    return [*requests, conversation.request(())]


def test_only_the_newest_page_is_sent_and_older_ones_leave_no_placeholder() -> None:
    messages = five_steps(Conversation("rules", "", "read five pages", "")).pop().messages
    pages = [m.text for m in messages if "EXTERNAL_CONTENT" in m.text]
    assert pages == ["<<<EXTERNAL_CONTENT page 6\nEXTERNAL_CONTENT>>>"]
    # rules, task, then the five turns (calls and results), then the page: nothing else
    turn = ["assistant", "tool", "tool"]
    assert [m.role for m in messages] == ["system", "user", *turn * 5, "user"]


def test_each_request_repeats_the_last_up_to_its_page_and_marks_the_prefixes() -> None:
    conversation = Conversation("rules", "Constraints: be quick.", "read five pages", "")
    conversation.set_plan({"plan": "Click through.", "success_criteria": "Page 6 shows."})
    requests = five_steps(conversation)
    for earlier, later in itertools.pairwise(requests):
        kept = earlier.messages[:-1]  # all but its page
        assert later.messages[: len(kept)] == kept
        assert later.messages[len(kept)].role == "assistant"
    first, last = requests[0], requests[-1]
    assert first.messages[2].text == (
        "Task: read five pages\nPlan: Click through.\nDone when: Page 6 shows."
    )
    # the shared rules, this run's rules and task, then the turns up to the newest page
    assert first.cache_points == (0, 2)
    assert last.cache_points == (0, 2, len(last.messages) - 2)
    assert [m.role for m in last.messages[:3]] == ["system", "system", "user"]
