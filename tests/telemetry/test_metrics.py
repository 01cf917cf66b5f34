"""/metrics scraped from the production server after a browser run and a research run, parsed
with prometheus-client's own exposition-format parser."""

from __future__ import annotations

import pytest

from outrider.server.core.events.names import event_name
from outrider.server.telemetry.catalogue import METRICS
from tests.telemetry.conftest import PRICE, Observed


def scripted_tokens(observed: Observed, scenario: str) -> tuple[int, int]:
    turns = getattr(observed, f"{scenario}_scenario")["turns"]
    usages = [t["reply"].get("usage", {}) for t in turns]
    return (
        sum(u.get("input_tokens", 0) for u in usages),
        sum(u.get("output_tokens", 0) for u in usages),
    )


def test_every_catalogued_metric_is_served(observed: Observed) -> None:
    for metric in METRICS:
        assert f"# HELP {metric.name} " in observed.metrics_text, metric.name
        assert f"# TYPE {metric.name} {metric.kind}" in observed.metrics_text, metric.name
    assert "_created" not in observed.metrics_text  # no creation-time series per label set


def test_runs_started_finished_and_active_by_kind(observed: Observed) -> None:
    m = observed.metrics
    for kind in ("automate", "research"):
        assert m.get("outrider_runs_started_total", kind=kind) == 1
        assert (
            m.get("outrider_runs_finished_total", kind=kind, state="succeeded", error_code="") == 1
        )
        assert m.get("outrider_runs_active", kind=kind) == 0
        assert m.get("outrider_run_queue_wait_seconds_count", kind=kind) == 1
        assert m.get("outrider_run_duration_seconds_count", kind=kind, state="succeeded") == 1
    assert m.get("outrider_event_watchers") == 0  # both streams have ended


def test_step_latency_per_browser_iteration_and_research_phase(observed: Observed) -> None:
    m = observed.metrics
    steps = sum(event_name(e) == "agent:step" for e in observed.browser_events)
    assert m.get("outrider_step_duration_seconds_count", kind="automate", step="iteration") == steps
    assert m.get("outrider_step_duration_seconds_count", kind="automate", step="plan") == 1
    for phase in ("prefetch", "plan", "iterate", "write", "publish"):
        assert m.get("outrider_step_duration_seconds_count", kind="research", step=phase) == 1
    assert m.get("outrider_step_duration_seconds_count", kind="research", step="outline") == 0


@pytest.mark.parametrize(
    ("scenario", "model"), [("browser", "shop"), ("research", "research-fast")]
)
def test_tokens_by_provider_and_model(observed: Observed, scenario: str, model: str) -> None:
    sent, received = scripted_tokens(observed, scenario)
    m = observed.metrics
    labels = {"provider": "scripted", "model": model}
    assert m.get("outrider_model_tokens_total", direction="input", **labels) == sent
    assert m.get("outrider_model_tokens_total", direction="output", **labels) == received
    cached = sum(
        turn["reply"].get("usage", {}).get("cached_input_tokens", 0)
        for turn in getattr(observed, f"{scenario}_scenario")["turns"]
    )
    assert m.get("outrider_model_cache_tokens_total", operation="read", **labels) == cached
    assert cached == (256 if scenario == "browser" else 0)
    turns = len(getattr(observed, f"{scenario}_scenario")["turns"])
    assert m.total("outrider_model_call_duration_seconds_count", outcome="ok", **labels) == turns
    assert m.total("outrider_model_call_duration_seconds_count", outcome="error") == 0


def test_estimated_cost_only_for_priced_models(observed: Observed) -> None:
    sent, received = scripted_tokens(observed, "browser")
    expected = (sent * PRICE["input"] + received * PRICE["output"]) / 1_000_000
    cost = observed.metrics.get("outrider_model_cost_usd_total", provider="scripted", model="shop")
    assert cost == pytest.approx(expected)
    unpriced = {"provider": "scripted", "model": "research-fast"}
    assert ("outrider_model_cost_usd_total", frozenset(unpriced.items())) not in (
        observed.metrics.values
    )


def test_browser_actions_and_research_fetches(observed: Observed) -> None:
    m = observed.metrics
    assert m.get("outrider_browser_actions_total", action="extract", outcome="ok") == 1
    assert m.get("outrider_browser_actions_total", action="click", outcome="ok") == 1
    assert m.get("outrider_browser_action_duration_seconds_count", action="click") == 1
    fetch_spans = [s for s in observed.spans if s.name == "fetch"]
    for outcome in ("ok", "blocked"):
        spans = [s for s in fetch_spans if s.attributes["outrider.fetch.outcome"] == outcome]
        assert spans and m.get("outrider_fetches_total", outcome=outcome) == len(spans)


def test_grpc_and_http_requests_by_method_and_status(observed: Observed) -> None:
    m = observed.metrics
    grpc = {"method": "outrider.v1.RunService/Automate", "code": "OK"}
    assert m.get("outrider_grpc_requests_total", **grpc) == 1
    assert m.get("outrider_grpc_request_duration_seconds_count", **grpc) == 1
    http = {"method": "POST", "route": "/v1/research", "status": "200"}
    assert m.get("outrider_http_requests_total", **http) == 1
    assert m.get("outrider_http_request_duration_seconds_count", **http) == 1


def test_capacity_version_and_process_series(observed: Observed) -> None:
    m = observed.metrics
    assert m.get("outrider_runs_capacity") == 4  # the default OUTRIDER_MAX_CONCURRENT_RUNS
    assert m.total("outrider_build_info") == 1
    assert m.get("process_resident_memory_bytes") > 0 and m.get("process_open_fds") > 0
