"""A simple task end to end: events in the documented order, multi-page navigation, final answer."""

from __future__ import annotations

import base64

from outrider.server.settings.providers import Price, ProviderSettings
from outrider.v1 import ai_generation_pb2, params_pb2, run_pb2, run_service_pb2
from outrider.v1 import automate_events_pb2 as ae
from tests.browser.conftest import BrowserCaseFactory
from tests.support.requests import collect, names


async def test_multi_page_navigation_with_a_final_answer(browser_case: BrowserCaseFactory) -> None:
    case = await browser_case("shop_navigation.yaml")
    request = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(
            task="What does the Red Mug cost, and what does the login page say?",
            url=f"{case.sites}/shop/index.html",
        )
    )
    events = await collect(case.harness.runs.Automate(request))
    seen = names(events)
    complete = events[-2].automate.complete
    assert seen[-2:] == ["complete", "done"], seen
    assert complete.success, complete
    assert complete.final_answer == "The Red Mug costs $8.25; the login page says Log in."
    assert complete.stats.iterations == 3 and complete.stats.actions == 2
    navigated = [
        e.automate.browser_navigated.url for e in events if e.automate.HasField("browser_navigated")
    ]
    assert navigated == [f"{case.sites}/shop/index.html", f"{case.sites}/shop/login.html"]
    extracted = [
        e.automate.agent_extracted.extracted_data
        for e in events
        if e.automate.HasField("agent_extracted")
    ]
    assert extracted == ["$8.25"]
    validated = next(
        e.automate.task_validated for e in events if e.automate.HasField("task_validated")
    )
    assert validated.completion_quality == ae.COMPLETION_QUALITY_COMPLETE
    run = (await case.harness.runs.GetRun(run_service_pb2.GetRunRequest(name=events[0].run))).run
    assert run.state == run_pb2.RUN_STATE_SUCCEEDED


def first_positions(seen: list[str], wanted: list[str]) -> list[int]:
    return [seen.index(name) for name in wanted]


async def test_event_order_of_a_simple_task_follows_the_documented_order(
    browser_case: BrowserCaseFactory,
) -> None:
    case = await browser_case("shop_navigation.yaml")
    request = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(
            task="What does the Red Mug cost?", url=f"{case.sites}/shop/index.html"
        )
    )
    seen = names(await collect(case.harness.runs.Automate(request)))
    documented = [
        "task:setup",
        "task:trace_context",
        "cdp:endpoint_connected",
        "agent:processing",
        "browser:navigated",
        "task:started",
        "agent:step",
    ]
    assert seen[: len(documented)] != []  # the run emitted events
    assert first_positions(seen, documented) == sorted(first_positions(seen, documented))
    step = seen.index("agent:step")
    first_iteration = seen[step : seen.index("agent:step", step + 1)]
    for name in [
        "agent:processing",
        "ai:generation",
        "agent:reasoned",
        "agent:action",
        "browser:action_started",
        "browser:action_completed",
        "task:metrics_incremental",
    ]:
        assert name in first_iteration, (name, first_iteration)
    tail = ["task:validated", "task:completed", "task:metrics", "complete", "done"]
    assert seen[-len(tail) :] == tail


async def test_generation_metrics_and_screenshots_reach_the_caller(
    browser_case: BrowserCaseFactory,
) -> None:
    case = await browser_case("shop_navigation.yaml")
    request = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(task="Price?", url=f"{case.sites}/shop/index.html"),
        options=params_pb2.RunOptions(include_screenshot_images=True),
    )
    events = await collect(case.harness.runs.Automate(request))
    generations = [e.automate.ai_generation for e in events if e.automate.HasField("ai_generation")]
    actor = generations[1]
    assert actor.usage.input_tokens == 300 and actor.usage.total_tokens == 320
    assert actor.finish_reason == ai_generation_pb2.FINISH_REASON_TOOL_CALLS
    assert actor.messages[0].HasField("system") and "EXTERNAL_CONTENT" in actor.prompt
    assert actor.messages[-1].assistant.parts.parts[-1].tool_call.tool_name == "extract"
    metrics = next(e.automate.task_metrics for e in events if e.automate.HasField("task_metrics"))
    assert metrics.ai_generation_count == len(generations) and metrics.total_input_tokens >= 420
    assert metrics.event_counts["agent:step"] == 3 and metrics.step_count == 3
    shots = [e for e in events if e.automate.HasField("browser_screenshot_captured")]
    images = [e for e in events if e.automate.HasField("browser_screenshot_captured_image")]
    assert len(shots) == len(images) == 2  # extract left the page as it was: no new shot
    chunks = [
        c
        async for c in case.harness.runs.ReadArtifact(
            run_service_pb2.ReadArtifactRequest(name=shots[0].artifact)
        )
    ]
    data = b"".join(c.data for c in chunks)
    assert (
        data[:2] == b"\xff\xd8" and len(data) == shots[0].automate.browser_screenshot_captured.size
    )
    assert base64.b64decode(images[0].automate.browser_screenshot_captured_image.image) == data
    compression = next(
        e.automate.system_debug_compression
        for e in events
        if e.automate.HasField("system_debug_compression")
    )
    assert 0 < compression.compressed_size < compression.original_size


async def test_vision_sends_the_screenshot_to_the_model(browser_case: BrowserCaseFactory) -> None:
    case = await browser_case("shop_navigation.yaml", browser={"vision": True})
    request = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(task="Price?", url=f"{case.sites}/shop/index.html")
    )
    events = await collect(case.harness.runs.Automate(request))
    assert events[0].automate.task_setup.vision
    actor_requests = [p for p in case.prompts() if p["role"] == "actor"]
    assert actor_requests and all(p["images"] == ["image/jpeg"] for p in actor_requests)
    generation = next(
        e.automate.ai_generation
        for e in events
        if e.automate.HasField("ai_generation")
        and e.automate.ai_generation.messages[-2].user.HasField("parts")
    )
    image = generation.messages[-2].user.parts.parts[1].image
    assert image.media_type == "image/jpeg" and not image.image.encoded  # bytes stay in artifacts


async def test_usage_per_model_with_estimated_cost(browser_case: BrowserCaseFactory) -> None:
    prices = {"scripted:scenario": Price(input=1.0, output=2.0)}
    case = await browser_case("shop_navigation.yaml", providers=ProviderSettings(prices=prices))
    request = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(task="Price?", url=f"{case.sites}/shop/index.html")
    )
    events = await collect(case.harness.runs.Automate(request))
    metrics = next(e.automate.task_metrics for e in events if e.automate.HasField("task_metrics"))
    usage = metrics.model_usage["scripted:scenario"]
    assert (usage.input_tokens, usage.output_tokens) == (420, 24)
    assert usage.estimated_cost_usd == (420 * 1.0 + 24 * 2.0) / 1_000_000
    actor = [e.automate.ai_generation for e in events if e.automate.HasField("ai_generation")][1]
    about = actor.provider_metadata["outrider"]
    assert about["model"] == "scripted:scenario"
    assert about["estimated_cost_usd"] == (300 * 1.0 + 20 * 2.0) / 1_000_000
