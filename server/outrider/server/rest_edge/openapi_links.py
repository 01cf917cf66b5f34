"""Operation ids and OpenAPI links of the REST document: how the answer of one route feeds the
next (start -> get, cancel, events, interactions; list -> get, next page; interactions -> input,
approval). Clients and stateful fuzzers (schemathesis) follow them."""

from __future__ import annotations

from typing import Any

# (path, method) -> operationId
OPERATION_IDS = {
    ("/v1/automate", "post"): "startAutomate",
    ("/v1/research", "post"): "startResearch",
    ("/v1/automate/{requestId}/input", "post"): "answerInput",
    ("/v1/automate/{approvalId}/approval", "post"): "decideApproval",
    ("/v1/runs", "get"): "listRuns",
    ("/v1/runs/{runId}", "get"): "getRun",
    ("/v1/runs/{runId}", "delete"): "deleteRun",
    ("/v1/runs/{runId}/cancel", "post"): "cancelRun",
    ("/v1/runs/{runId}/events", "get"): "streamRunEvents",
    ("/v1/runs/{runId}/artifacts/{artifactId}", "get"): "readArtifact",
    ("/v1/interactions", "get"): "listInteractions",
    ("/v1/interactions/{interactionId}", "get"): "getInteraction",
    ("/v1/webhooks/endpoints", "post"): "createWebhookEndpoint",
    ("/v1/webhooks/endpoints", "get"): "listWebhookEndpoints",
    ("/v1/webhooks/endpoints/{endpointId}", "get"): "getWebhookEndpoint",
    ("/v1/webhooks/endpoints/{endpointId}", "patch"): "updateWebhookEndpoint",
    ("/v1/webhooks/endpoints/{endpointId}", "delete"): "deleteWebhookEndpoint",
    ("/v1/webhooks/endpoints/{endpointId}/rotate", "post"): "rotateWebhookSecret",
    ("/v1/webhooks/endpoints/{endpointId}/deliveries", "get"): "listWebhookDeliveries",
    (
        "/v1/webhooks/endpoints/{endpointId}/deliveries/{messageId}/resend",
        "post",
    ): "resendWebhookDelivery",
    ("/healthz", "get"): "health",
    ("/metrics", "get"): "metrics",
}

# Runtime expressions; names carry a "runs/" or "interactions/" prefix that path ids do not.
_STARTED = "$response.header.Outrider-Run#regex:runs/(.+)"
_SAME_RUN = "$request.path.runId"
_FIRST_LISTED = "$response.body#/runs/0/name#regex:runs/(.+)"
_FIRST_INTERACTION = "$response.body#/interactions/0/name#regex:interactions/(.+)"
_SAME_INTERACTION = "$request.path.interactionId"


def _run_links(run: str) -> dict[str, tuple[str, dict[str, str]]]:
    return {
        "GetRun": ("getRun", {"runId": run}),
        "CancelRun": ("cancelRun", {"runId": run}),
        "StreamRunEvents": ("streamRunEvents", {"runId": run}),
        "ListItsInteractions": ("listInteractions", {"run": run}),
        "DeleteRun": ("deleteRun", {"runId": run}),
    }


def _interaction_links(interaction: str) -> dict[str, tuple[str, dict[str, str]]]:
    return {
        "AnswerInput": ("answerInput", {"requestId": interaction}),
        "DecideApproval": ("decideApproval", {"approvalId": interaction}),
        "GetInteraction": ("getInteraction", {"interactionId": interaction}),
    }


# operationId of the source -> link name -> (target operationId, parameters); all on 200.
_LINKS: dict[str, dict[str, tuple[str, dict[str, str]]]] = {
    "startAutomate": _run_links(_STARTED),
    "startResearch": _run_links(_STARTED),
    "getRun": _run_links(_SAME_RUN),
    "cancelRun": _run_links(_SAME_RUN),
    "listRuns": {
        "GetFirstRun": ("getRun", {"runId": _FIRST_LISTED}),
        "CancelFirstRun": ("cancelRun", {"runId": _FIRST_LISTED}),
        "NextPage": ("listRuns", {"pageToken": "$response.body#/nextPageToken"}),
    },
    "listInteractions": _interaction_links(_FIRST_INTERACTION),
    "getInteraction": _interaction_links(_SAME_INTERACTION),
}


def add_links(paths: dict[str, Any]) -> dict[str, Any]:
    """`paths` with every operation's id and the links of its 200 answer."""
    for (path, method), operation_id in OPERATION_IDS.items():
        operation = paths[path][method]
        operation["operationId"] = operation_id
        links = _LINKS.get(operation_id)
        if links:  # a copy: operations may share one response object
            answer = dict(operation["responses"]["200"])
            answer["links"] = {
                name: {"operationId": target, "parameters": parameters}
                for name, (target, parameters) in links.items()
            }
            operation["responses"] = operation["responses"] | {"200": answer}
    return paths
