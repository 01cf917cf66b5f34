"""RunOptions.omit_prompts: ai:generation events keep tokens, finish reason and the model's reply
but leave out the prompt, the messages sent and the schema."""

from __future__ import annotations

from outrider.v1 import ai_generation_pb2, params_pb2, run_event_pb2, run_service_pb2
from tests.browser.conftest import BrowserCase, BrowserCaseFactory
from tests.support.requests import collect


async def generations(case: BrowserCase, omit: bool) -> list[ai_generation_pb2.AiGeneration]:
    request = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(task="Price?", url=f"{case.sites}/shop/index.html"),
        options=params_pb2.RunOptions(omit_prompts=omit),
    )
    events: list[run_event_pb2.RunEvent] = await collect(case.harness.runs.Automate(request))
    assert events[-2].automate.complete.success
    return [e.automate.ai_generation for e in events if e.automate.HasField("ai_generation")]


async def test_omit_prompts_keeps_usage_and_reply_but_drops_prompt_bodies(
    browser_case: BrowserCaseFactory,
) -> None:
    full = await generations(await browser_case("shop_navigation.yaml"), omit=False)
    short = await generations(await browser_case("shop_navigation.yaml"), omit=True)
    assert len(full) == len(short) > 1
    for whole, lean in zip(full, short, strict=True):
        assert whole.prompt and not lean.prompt
        assert len(whole.messages) > 1 and len(lean.messages) == 1
        assert lean.messages[0].HasField("assistant") and lean.messages[0] == whole.messages[-1]
        assert not lean.HasField("schema") or not lean.schema.fields
        assert lean.usage == whole.usage and lean.finish_reason == whole.finish_reason
        assert lean.provider_metadata == whole.provider_metadata
        assert lean.ByteSize() < whole.ByteSize() / 2
    # the plan request is short; the actor's, with the rules, tools and page, are most of it
    assert sum(g.ByteSize() for g in short) < sum(g.ByteSize() for g in full) / 4
