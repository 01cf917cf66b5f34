"""The span trees exported over OTLP for a browser run (gRPC) and a research run (REST/SSE)."""

from __future__ import annotations

from typing import Any

from outrider.server.core.events.names import event_name
from tests.telemetry.conftest import (
    BROWSER_PARENT,
    BROWSER_TRACE,
    RESEARCH_PARENT,
    RESEARCH_TRACE,
    Observed,
)
from tests.telemetry.otlp import ReceivedSpan


def one(spans: list[ReceivedSpan]) -> ReceivedSpan:
    assert len(spans) == 1, [s.name for s in spans]
    return spans[0]


def names(spans: list[ReceivedSpan]) -> list[str]:
    return [s.name for s in spans]


USAGE = ("input_tokens", "output_tokens", "cached_input_tokens")
ATTRIBUTES = ("input_tokens", "output_tokens", "cache_read.input_tokens")


def scripted_calls(scenario: dict[str, Any]) -> list[tuple[str, int, int, int]]:
    """(role, input, output and cached input tokens) of every turn the scenario scripts."""
    calls = []
    for turn in scenario["turns"]:
        usage = turn["reply"].get("usage", {})
        calls.append((turn["role"], *(usage.get(name, 0) for name in USAGE)))
    return calls


def model_calls(spans: list[ReceivedSpan]) -> list[tuple[str, int, int, int]]:
    chats = sorted((s for s in spans if s.name.startswith("chat ")), key=lambda s: s.start)
    return [
        (
            s.attributes["outrider.model.role"],
            *(s.attributes[f"gen_ai.usage.{name}"] for name in ATTRIBUTES),
        )
        for s in chats
    ]


def test_the_server_exits_cleanly_after_exporting(observed: Observed) -> None:
    assert observed.exit_code == 0
    assert observed.spans and {s.service for s in observed.spans} == {"outrider-under-test"}
    assert all(s.status != "STATUS_CODE_ERROR" for s in observed.spans)
    assert not observed.named("GET /metrics")  # scrapes (and probes) make no traces


def test_a_browser_run_continues_the_grpc_callers_trace(observed: Observed) -> None:
    server = one(observed.named("outrider.v1.RunService/Automate"))
    assert (server.trace_id, server.parent_id) == (BROWSER_TRACE, BROWSER_PARENT)
    assert server.kind == "SPAN_KIND_SERVER" and server.attributes["rpc.grpc.status_code"] == 0
    run = one(observed.children(server))
    run_id = observed.browser_events[0].run.removeprefix("runs/")
    assert run.name == "run Automate" and run.attributes["outrider.run.id"] == run_id
    assert run.attributes["outrider.run.state"] == "succeeded"
    context = next(
        e.automate.task_trace_context
        for e in observed.browser_events
        if event_name(e) == "task:trace_context"
    )
    assert (context.trace_id, context.span_id) == (BROWSER_TRACE, run.span_id)
    assert all(s.trace_id == BROWSER_TRACE for s in observed.descendants(run))


def test_a_browser_run_has_a_span_per_step_model_call_and_browser_action(
    observed: Observed,
) -> None:
    run = one(observed.named("run Automate"))
    stages = observed.children(run)
    step_events = [e for e in observed.browser_events if event_name(e) == "agent:step"]
    assert names(stages) == ["browser.plan"] + ["browser.step"] * len(step_events)
    plan, extract_step, click_step, done_step = stages
    assert names(observed.children(plan)) == ["chat shop"]
    assert names(observed.children(extract_step)) == ["chat shop", "browser.action extract"]
    extract = observed.children(extract_step)[1]
    assert extract.attributes["outrider.browser.success"] is True
    assert one(observed.children(extract)).attributes["outrider.model.role"] == "extractor"
    assert names(observed.children(click_step)) == ["chat shop", "browser.action click"]
    assert observed.children(click_step)[1].attributes["outrider.browser.ref"].startswith("E")
    assert names(observed.children(done_step)) == ["chat shop", "browser.validate"]
    validate = observed.children(done_step)[1]
    assert one(observed.children(validate)).attributes["outrider.model.role"] == "validator"


def test_browser_model_call_spans_follow_the_genai_conventions(observed: Observed) -> None:
    run = one(observed.named("run Automate"))
    spans = observed.descendants(run)
    assert model_calls(spans) == scripted_calls(observed.browser_scenario)
    for chat in (s for s in spans if s.name.startswith("chat ")):
        assert chat.kind == "SPAN_KIND_CLIENT"
        assert chat.attributes["gen_ai.operation.name"] == "chat"
        assert chat.attributes["gen_ai.provider.name"] == "scripted"
        assert chat.attributes["gen_ai.request.model"] == "shop"
        assert chat.attributes["gen_ai.response.finish_reasons"][0] in {"stop", "tool-calls"}


def test_a_research_run_continues_the_http_callers_trace_with_a_span_per_phase(
    observed: Observed,
) -> None:
    server = one(observed.named("POST /v1/research"))
    assert (server.trace_id, server.parent_id) == (RESEARCH_TRACE, RESEARCH_PARENT)
    assert server.attributes["http.route"] == "/v1/research"
    assert server.attributes["http.response.status_code"] == 200
    run = one(observed.children(server))
    assert run.name == "run Research" and run.attributes["outrider.run.state"] == "succeeded"
    phases = observed.children(run)
    # fast mode: no outline, no judge
    assert names(phases) == [
        "research.prefetch",
        "research.plan",
        "research.iterate",
        "research.write",
        "research.publish",
    ]
    iterations = observed.children(phases[2])
    started = [b for b in observed.research_events if b.event == "iteration:start"]
    assert names(iterations) == ["research.iteration"] * len(started)
    assert all(s.trace_id == RESEARCH_TRACE for s in observed.descendants(run))
    assert model_calls(observed.descendants(run)) == scripted_calls(observed.research_scenario)
    assert names(observed.children(phases[1])) == ["chat research-fast"]
    assert names(observed.children(phases[3])) == ["chat research-fast"]


def test_research_fetches_have_spans_with_their_outcome(observed: Observed) -> None:
    iteration = one(observed.named("research.iteration"))
    fetches = [s for s in observed.children(iteration) if s.name == "fetch"]
    outcomes = {s.attributes["url.full"].split("/", 3)[3]: s.attributes for s in fetches}
    # robots.txt of the fixture web disallows /private/
    private = {path: a for path, a in outcomes.items() if path.startswith("private/")}
    assert private and all(a["outrider.fetch.outcome"] == "blocked" for a in private.values())
    read = [a for path, a in outcomes.items() if path not in private]
    assert read and all(a["outrider.fetch.outcome"] == "ok" for a in read)
