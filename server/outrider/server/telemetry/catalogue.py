"""Every metric and span Outrider produces, in one table that code and docs both read.

`METRICS` defines the Prometheus instruments (telemetry.metrics builds them from it, so the table
cannot drift from what /metrics serves); `SPANS` lists span names and their attributes. A doc
generator can render both, e.g. `python -m outrider.server.telemetry.catalogue`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MetricKind = Literal["counter", "gauge", "histogram"]

# Seconds: from sub-millisecond REST calls to twenty-minute research runs.
LATENCY_BUCKETS = (0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200)


@dataclass(frozen=True)
class MetricDoc:
    name: str
    kind: MetricKind
    labels: tuple[str, ...]
    help: str


@dataclass(frozen=True)
class SpanDoc:
    name: str
    where: str
    attributes: tuple[str, ...]


METRICS: tuple[MetricDoc, ...] = (
    MetricDoc("outrider_build_info", "gauge", ("version",), "Always 1; the running version."),
    MetricDoc(
        "outrider_runs_capacity",
        "gauge",
        (),
        "Runs executing at once (OUTRIDER_MAX_CONCURRENT_RUNS); more wait in line.",
    ),
    MetricDoc("outrider_runs_started_total", "counter", ("kind",), "Runs started."),
    MetricDoc(
        "outrider_runs_finished_total",
        "counter",
        ("kind", "state", "error_code"),
        "Runs ended, by final state and error code (empty on success).",
    ),
    MetricDoc("outrider_runs_active", "gauge", ("kind",), "Runs queued or running now."),
    MetricDoc(
        "outrider_sessions_live",
        "gauge",
        ("kind",),
        "Sessions this replica holds now (a browser session keeps a browser context open).",
    ),
    MetricDoc(
        "outrider_sessions_ended_total",
        "counter",
        ("kind", "reason"),
        "Sessions ended here, by why (SESSION_IDLE, SESSION_EXPIRED, SESSION_ENDED, SESSION_LOST).",
    ),
    MetricDoc(
        "outrider_runs_waiting",
        "gauge",
        (),
        "Runs waiting in line for an execution slot (admission control) now.",
    ),
    MetricDoc(
        "outrider_run_queue_wait_seconds",
        "histogram",
        ("kind",),
        "From accepting a run to its agent starting.",
    ),
    MetricDoc("outrider_run_duration_seconds", "histogram", ("kind", "state"), "Run wall time."),
    MetricDoc(
        "outrider_step_duration_seconds",
        "histogram",
        ("kind", "step"),
        "Agent steps: browser plan, iteration and validate; research prefetch, plan, iterate, "
        "iteration, outline, write and publish.",
    ),
    MetricDoc(
        "outrider_model_call_duration_seconds",
        "histogram",
        ("provider", "model", "role", "outcome"),
        "Model calls, retries included; outcome is ok or error.",
    ),
    MetricDoc(
        "outrider_model_tokens_total",
        "counter",
        ("provider", "model", "direction"),
        "Tokens sent (direction=input) and received (direction=output).",
    ),
    MetricDoc(
        "outrider_model_cache_tokens_total",
        "counter",
        ("provider", "model", "operation"),
        "Input tokens the provider read from its prompt cache (operation=read) or wrote to it "
        "(operation=write); both are part of the input tokens.",
    ),
    MetricDoc(
        "outrider_model_cost_usd_total",
        "counter",
        ("provider", "model"),
        "Estimated model cost in US dollars (models with a configured price only).",
    ),
    MetricDoc(
        "outrider_browser_actions_total",
        "counter",
        ("action", "outcome"),
        "Browser actions performed; outcome is ok or failed.",
    ),
    MetricDoc(
        "outrider_browser_action_duration_seconds",
        "histogram",
        ("action",),
        "Browser action latency, approvals and form waits included.",
    ),
    MetricDoc(
        "outrider_recipe_runs_total",
        "counter",
        ("outcome",),
        "Browser runs with recipes on: replayed (the task without the model), handed_over (the "
        "model took over where the page no longer matched), recorded (a new recipe kept).",
    ),
    MetricDoc(
        "outrider_recipe_steps_replayed_total",
        "counter",
        (),
        "Recipe steps carried out without asking the model.",
    ),
    MetricDoc(
        "outrider_fetches_total",
        "counter",
        ("outcome",),
        "Research page fetches: ok, cached, blocked (robots, guard) or failed.",
    ),
    MetricDoc(
        "outrider_fetch_duration_seconds", "histogram", ("outcome",), "Research fetch latency."
    ),
    MetricDoc(
        "outrider_interaction_wait_seconds",
        "histogram",
        ("kind", "state"),
        "How long form-data requests, approvals and takeovers waited for (or, for a takeover, "
        "were held by) a person, by how they ended.",
    ),
    MetricDoc(
        "outrider_interactions_pending", "gauge", ("kind",), "Interactions waiting for a person."
    ),
    MetricDoc(
        "outrider_event_watchers", "gauge", (), "Open event streams (gRPC and SSE watchers)."
    ),
    MetricDoc(
        "outrider_side_effects_total",
        "counter",
        ("kind",),
        "Side effects browser runs journaled (form_submit, request, download, upload, "
        "approval_granted): what a takeover must not repeat without consent.",
    ),
    MetricDoc(
        "outrider_takeovers_total",
        "counter",
        ("outcome",),
        "Runs of lost replicas this replica took over: resumed, asked (resumes once the caller "
        "approves), ended_unsafe (RESUME_UNSAFE), closed (SERVER_RESTARTED: secret data, budget "
        "spent, ended already, or nothing here could execute it).",
    ),
    MetricDoc(
        "outrider_presence_changes_total",
        "counter",
        ("change",),
        "This replica's presence in PostgreSQL: lost (its session, and the lock that says it "
        "lives, was gone) and retaken.",
    ),
    MetricDoc(
        "outrider_relay_failures_total",
        "counter",
        ("call", "reason"),
        "Calls relayed to another replica (answer, cancel, start, browser) that failed between "
        "replicas (EXECUTOR_LOST, RELAY_FAILED, NO_WORKER, unreachable), not those the executor "
        "refused.",
    ),
    MetricDoc(
        "outrider_store_unreachable",
        "gauge",
        (),
        "1 while this replica cannot reach its PostgreSQL store, else 0.",
    ),
    MetricDoc(
        "outrider_store_unreachable_seconds_total",
        "counter",
        (),
        "Seconds this replica could not reach its PostgreSQL store (counted when it is reached "
        "again, and at every check meanwhile).",
    ),
    MetricDoc(
        "outrider_store_server_changes_total",
        "counter",
        (),
        "PostgreSQL servers this replica's writer found itself on after losing its connection: a "
        "standby promoted by a failover, or the same server restarted. Each time, the writes of "
        "OUTRIDER_DATABASE_REPLAY_WINDOW are sent again.",
    ),
    MetricDoc(
        "outrider_store_replayed_writes_total",
        "counter",
        (),
        "Writes sent again to a new PostgreSQL server (what an asynchronous standby may have "
        "missed; kept where the server has them already).",
    ),
    MetricDoc(
        "outrider_grpc_requests_total",
        "counter",
        ("method", "code"),
        "gRPC calls handled, by full method name and status code.",
    ),
    MetricDoc(
        "outrider_grpc_request_duration_seconds",
        "histogram",
        ("method", "code"),
        "gRPC call latency (streams: until the stream ends).",
    ),
    MetricDoc(
        "outrider_http_requests_total",
        "counter",
        ("method", "route", "status"),
        "REST/SSE requests, by route template (e.g. /v1/runs/{runId}) and status.",
    ),
    MetricDoc(
        "outrider_http_request_duration_seconds",
        "histogram",
        ("method", "route", "status"),
        "REST latency (SSE: until the stream ends).",
    ),
    MetricDoc(
        "outrider_webhook_deliveries_total",
        "counter",
        ("kind", "outcome"),
        "Webhook and A2A push delivery attempts, by endpoint kind (webhook, a2a) and outcome: "
        "delivered, retry (failed, tried again later), failed (given up) or disabled (the "
        "endpoint was disabled by this attempt).",
    ),
    MetricDoc(
        "outrider_webhook_delivery_seconds",
        "histogram",
        ("kind",),
        "How long one delivery attempt took, to the endpoint's answer or the failure.",
    ),
    MetricDoc(
        "outrider_webhook_backlog",
        "gauge",
        (),
        "Deliveries not made yet (pending, every endpoint's), as this replica last counted.",
    ),
    MetricDoc(
        "outrider_webhook_endpoints_disabled_total",
        "counter",
        ("why",),
        "Endpoints disabled by deliveries: gone (410) or failing (for too long).",
    ),
)

SPANS: tuple[SpanDoc, ...] = (
    SpanDoc(
        "<package.Service>/<Method>",
        "gRPC edge: one SERVER span per call, child of the caller's `traceparent` metadata",
        ("rpc.system", "rpc.service", "rpc.method", "rpc.grpc.status_code"),
    ),
    SpanDoc(
        "<METHOD> <route>",
        "REST edge: one SERVER span per request, child of the caller's `traceparent` header",
        ("http.request.method", "http.route", "http.response.status_code"),
    ),
    SpanDoc(
        "run <Kind>",
        "core: one span per run, from its agent starting to its terminal events",
        ("outrider.run.id", "outrider.run.kind", "outrider.run.state", "outrider.error.code"),
    ),
    SpanDoc(
        "browser.plan / browser.step / browser.validate",
        "browser agent: planning, each observe-decide-act iteration, each validation",
        ("outrider.iteration_id",),
    ),
    SpanDoc(
        "browser.action <action>",
        "browser agent: one browser action (click, fill, navigate, ...)",
        ("outrider.browser.action", "outrider.browser.ref", "outrider.browser.success"),
    ),
    SpanDoc(
        "research.<phase>",
        "research agent: prefetch, plan, iterate, outline, write, publish",
        ("outrider.research.mode",),
    ),
    SpanDoc(
        "fetch",
        "research fetcher: one page (cache hits included)",
        ("url.full", "outrider.fetch.outcome", "outrider.fetch.cached"),
    ),
    SpanDoc(
        "chat <model>",
        "any model call (GenAI semantic conventions), CLIENT kind",
        (
            "gen_ai.operation.name",
            "gen_ai.provider.name",
            "gen_ai.request.model",
            "gen_ai.response.model",
            "gen_ai.usage.input_tokens",
            "gen_ai.usage.output_tokens",
            "gen_ai.usage.cache_read.input_tokens",
            "gen_ai.usage.cache_creation.input_tokens",
            "gen_ai.response.finish_reasons",
            "outrider.model.role",
        ),
    ),
)


# Fields of a JSON log line (OUTRIDER_LOG_FORMAT=json); context fields appear only where known.
LOG_FIELDS: tuple[tuple[str, str], ...] = (
    ("time", "UTC, ISO 8601 with milliseconds"),
    ("level", "DEBUG, INFO, WARNING, ERROR, CRITICAL"),
    ("logger", "e.g. outrider.server.core.runs.manager; access lines: outrider.access"),
    ("message", "the formatted message"),
    ("run_id", "the run the line is about (the run's own task, or the call that started it)"),
    ("trace_id", "W3C trace id of the current span (the caller's when it sent traceparent)"),
    ("span_id", "the current span"),
    ("principal", "who called, once the auth layer binds it (telemetry.logs.bind_principal)"),
    ("exception", "the stack trace of a logged exception"),
    ("protocol", "access lines: grpc or http"),
    ("method", "access lines: full gRPC method, or the HTTP method"),
    ("code / status", "access lines: gRPC status code name / HTTP status"),
    ("path / route", "HTTP access lines: the path (no query string) and its route template"),
    ("duration_ms", "access lines: call duration (streams: until they end)"),
    ("peer", "access lines: the client's address"),
    ("run_kind / run_state / error_code / duration_s", "run started and run ended lines"),
)


def markdown() -> str:
    """Both tables as Markdown, for docs."""
    lines = ["| Metric | Type | Labels | Meaning |", "|---|---|---|---|"]
    lines += [
        f"| `{m.name}` | {m.kind} | {', '.join(m.labels) or '-'} | {m.help} |" for m in METRICS
    ]
    lines += ["", "| Span | Where | Attributes |", "|---|---|---|"]
    lines += [f"| `{s.name}` | {s.where} | {', '.join(s.attributes)} |" for s in SPANS]
    lines += ["", "| Log field | Meaning |", "|---|---|"]
    lines += [f"| `{name}` | {meaning} |" for name, meaning in LOG_FIELDS]
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown())
