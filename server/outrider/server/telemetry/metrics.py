"""The Prometheus instruments of the catalogue, and one small recording function per event.

Metrics are process-wide by nature (one /metrics per process), so the registry is a module-level
singleton; nothing else here keeps state. Recording never raises into the code it measures.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Protocol

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.metrics import Counter, Gauge, Histogram, MetricWrapperBase

from outrider.server.telemetry.catalogue import LATENCY_BUCKETS, METRICS, MetricDoc

disable_created_metrics()  # type: ignore[no-untyped-call]  # `_created` series double the scrape
REGISTRY = CollectorRegistry(auto_describe=True)
CONTENT_TYPE = CONTENT_TYPE_LATEST


def _build(doc: MetricDoc) -> MetricWrapperBase:
    # prometheus-client appends _total to counters itself.
    if doc.kind == "counter":
        name = doc.name.removesuffix("_total")
        return Counter(name, doc.help, doc.labels, registry=REGISTRY)
    if doc.kind == "gauge":
        return Gauge(doc.name, doc.help, doc.labels, registry=REGISTRY)
    return Histogram(doc.name, doc.help, doc.labels, registry=REGISTRY, buckets=LATENCY_BUCKETS)


_INSTRUMENTS = {doc.name: _build(doc) for doc in METRICS}
# The standard process_* (CPU, memory, open files), python_gc_* and python_info series too.
for _collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
    REGISTRY.register(_collector)


def _counter(name: str) -> Counter:
    instrument = _INSTRUMENTS[name]
    assert isinstance(instrument, Counter)
    return instrument


def _gauge(name: str) -> Gauge:
    instrument = _INSTRUMENTS[name]
    assert isinstance(instrument, Gauge)
    return instrument


def _histogram(name: str) -> Histogram:
    instrument = _INSTRUMENTS[name]
    assert isinstance(instrument, Histogram)
    return instrument


def exposition() -> bytes:
    """The text exposition format served at /metrics."""
    return generate_latest(REGISTRY)


def _version() -> str:
    try:
        return version("outrider")
    except PackageNotFoundError:
        return "unknown"


# runs


def server_info(max_runs: int) -> None:
    """The static series: capacity and version."""
    _gauge("outrider_runs_capacity").set(max_runs)
    _gauge("outrider_build_info").labels(_version()).set(1)


def run_started(kind: str, queue_wait: float) -> None:
    _counter("outrider_runs_started_total").labels(kind).inc()
    _histogram("outrider_run_queue_wait_seconds").labels(kind).observe(queue_wait)


def runs_waiting(count: int) -> None:
    _gauge("outrider_runs_waiting").set(count)


def run_active(kind: str, delta: int) -> None:
    _gauge("outrider_runs_active").labels(kind).inc(delta)


def session_live(kind: str, delta: int) -> None:
    _gauge("outrider_sessions_live").labels(kind).inc(delta)


def session_ended(kind: str, reason: str) -> None:
    _counter("outrider_sessions_ended_total").labels(kind, reason).inc()


def run_finished(kind: str, state: str, error_code: str, seconds: float) -> None:
    _counter("outrider_runs_finished_total").labels(kind, state, error_code).inc()
    _histogram("outrider_run_duration_seconds").labels(kind, state).observe(seconds)


def step_finished(kind: str, step: str, seconds: float) -> None:
    _histogram("outrider_step_duration_seconds").labels(kind, step).observe(seconds)


# models, browser, fetches


class TokenCounts(Protocol):
    """The tokens of one model call (models.base.Usage), as the counters need them."""

    @property
    def input_tokens(self) -> int: ...
    @property
    def output_tokens(self) -> int: ...
    @property
    def cached_input_tokens(self) -> int: ...
    @property
    def cache_write_tokens(self) -> int: ...


def model_call(provider: str, model: str, role: str, ok: bool, seconds: float) -> None:
    outcome = "ok" if ok else "error"
    labels = (provider, model, role, outcome)
    _histogram("outrider_model_call_duration_seconds").labels(*labels).observe(seconds)


def model_usage(provider: str, model: str, usage: TokenCounts, cost: float | None) -> None:
    tokens = _counter("outrider_model_tokens_total")
    tokens.labels(provider, model, "input").inc(usage.input_tokens)
    tokens.labels(provider, model, "output").inc(usage.output_tokens)
    cached = _counter("outrider_model_cache_tokens_total")
    cached.labels(provider, model, "read").inc(usage.cached_input_tokens)
    cached.labels(provider, model, "write").inc(usage.cache_write_tokens)
    if cost is not None:
        _counter("outrider_model_cost_usd_total").labels(provider, model).inc(cost)


def browser_action(action: str, ok: bool, seconds: float) -> None:
    _counter("outrider_browser_actions_total").labels(action, "ok" if ok else "failed").inc()
    _histogram("outrider_browser_action_duration_seconds").labels(action).observe(seconds)


def recipe_run(outcome: str, steps_replayed: int) -> None:
    """A run's use of a recipe: replayed, handed_over or recorded."""
    _counter("outrider_recipe_runs_total").labels(outcome).inc()
    if steps_replayed:
        _counter("outrider_recipe_steps_replayed_total").inc(steps_replayed)


def fetched(outcome: str, seconds: float) -> None:
    _counter("outrider_fetches_total").labels(outcome).inc()
    _histogram("outrider_fetch_duration_seconds").labels(outcome).observe(seconds)


# people and streams


def interaction_opened(kind: str) -> None:
    _gauge("outrider_interactions_pending").labels(kind).inc()


def interaction_closed(kind: str, state: str, waited: float) -> None:
    _gauge("outrider_interactions_pending").labels(kind).dec()
    _histogram("outrider_interaction_wait_seconds").labels(kind, state).observe(waited)


def watchers(delta: int) -> None:
    _gauge("outrider_event_watchers").inc(delta)


# cluster


def side_effect(kind: str) -> None:
    _counter("outrider_side_effects_total").labels(_short(kind, "SIDE_EFFECT_KIND_")).inc()


def takeover(outcome: str) -> None:
    _counter("outrider_takeovers_total").labels(outcome).inc()


def presence(change: str) -> None:
    _counter("outrider_presence_changes_total").labels(change).inc()


def relay_failed(call: str, reason: str) -> None:
    _counter("outrider_relay_failures_total").labels(call, reason).inc()


def store_unreachable(now: bool, seconds: float) -> None:
    """The store's reachability changed or was checked; `seconds` more of it was unreachable."""
    _gauge("outrider_store_unreachable").set(1 if now else 0)
    if seconds > 0:
        _counter("outrider_store_unreachable_seconds_total").inc(seconds)


def _short(name: str, prefix: str) -> str:
    return name.removeprefix(prefix).lower()


# the store


def store_server_changed() -> None:
    _counter("outrider_store_server_changes_total").inc()


def store_writes_replayed(count: int) -> None:
    _counter("outrider_store_replayed_writes_total").inc(count)


# webhooks


def webhook_attempt(kind: str, outcome: str, seconds: float) -> None:
    _counter("outrider_webhook_deliveries_total").labels(kind, outcome).inc()
    _histogram("outrider_webhook_delivery_seconds").labels(kind).observe(seconds)


def webhook_backlog(count: int) -> None:
    _gauge("outrider_webhook_backlog").set(count)


def webhook_endpoint_disabled(why: str) -> None:
    _counter("outrider_webhook_endpoints_disabled_total").labels(why).inc()


# edges


def grpc_request(method: str, code: str, seconds: float) -> None:
    _counter("outrider_grpc_requests_total").labels(method, code).inc()
    _histogram("outrider_grpc_request_duration_seconds").labels(method, code).observe(seconds)


def http_request(method: str, route: str, status: int, seconds: float) -> None:
    labels = (method, route, str(status))
    _counter("outrider_http_requests_total").labels(*labels).inc()
    _histogram("outrider_http_request_duration_seconds").labels(*labels).observe(seconds)
