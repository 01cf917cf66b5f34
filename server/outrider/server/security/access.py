"""The one table of what every RPC and REST route needs.

A scope, AUTHENTICATED (any valid principal) or OPEN (no credentials). A method or route missing
from the table is refused, and a test fails for it. The core checks the same scopes again (and
the finer ones inside Interact: start, answer, cancel), so the table is a gate, not the only one.
"""

from __future__ import annotations

from typing import Final, Literal

from outrider.server.core.principals import Scope
from outrider.server.settings import Settings

OPEN: Final = "open"
AUTHENTICATED: Final = "authenticated"
Requirement = Scope | Literal["open", "authenticated"]

_RUNS = "/outrider.v1.RunService/"
_INTERACTIONS = "/outrider.v1.InteractionService/"
_BROWSER = "/outrider.v1.BrowserControlService/"
_SESSIONS = "/outrider.v1.SessionService/"
_PROFILES = "/outrider.v1.ProfileService/"
_CREDENTIALS = "/outrider.v1.CredentialService/"
_WEBHOOKS = "/outrider.v1.WebhookService/"
_WEBHOOK_RPCS = (
    "CreateWebhookEndpoint",
    "GetWebhookEndpoint",
    "ListWebhookEndpoints",
    "UpdateWebhookEndpoint",
    "DeleteWebhookEndpoint",
    "RotateWebhookSecret",
    "ListWebhookDeliveries",
    "ResendWebhookDelivery",
)
HEALTH_METHODS = tuple(f"/grpc.health.v1.Health/{name}" for name in ("Check", "Watch", "List"))
REFLECTION_METHODS = (
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
)

GRPC_METHODS: dict[str, Requirement] = {
    _RUNS + "Automate": Scope.RUNS_START,
    _RUNS + "Research": Scope.RUNS_START,
    _RUNS + "CreateRun": Scope.RUNS_START,
    _RUNS + "GetRun": Scope.RUNS_READ,
    _RUNS + "ListRuns": Scope.RUNS_READ,
    _RUNS + "CancelRun": Scope.RUNS_CANCEL,
    _RUNS + "DeleteRun": Scope.RUNS_DELETE,
    _RUNS + "StreamRunEvents": Scope.RUNS_READ,
    _RUNS + "ReadArtifact": Scope.RUNS_READ,
    # Attaching reads; starting, answering and cancelling on the stream need their own scopes.
    _INTERACTIONS + "Interact": Scope.RUNS_READ,
    _INTERACTIONS + "SubmitInput": Scope.INTERACTIONS_ANSWER,
    _INTERACTIONS + "DecideApproval": Scope.INTERACTIONS_ANSWER,
    _INTERACTIONS + "ListInteractions": Scope.RUNS_READ,
    _INTERACTIONS + "GetInteraction": Scope.RUNS_READ,
    # Watching shows what screenshots show; driving a run's browser is a power of its own.
    _BROWSER + "WatchScreen": Scope.RUNS_READ,
    _BROWSER + "TakeOver": Scope.BROWSER_CONTROL,
    _BROWSER + "ForwardInput": Scope.BROWSER_CONTROL,
    _BROWSER + "HandBack": Scope.BROWSER_CONTROL,
    _BROWSER + "DeclineTakeover": Scope.INTERACTIONS_ANSWER,
    # A session holds a browser as a run does: the runs' scopes, verb for verb.
    _SESSIONS + "CreateSession": Scope.RUNS_START,
    _SESSIONS + "GetSession": Scope.RUNS_READ,
    _SESSIONS + "ListSessions": Scope.RUNS_READ,
    _SESSIONS + "EndSession": Scope.RUNS_CANCEL,
    _SESSIONS + "StreamSessionEvents": Scope.RUNS_READ,
    # Profiles and credentials: a scope each; starting the by-hand login run needs runs.start too
    # (the core checks it, as for every start).
    **{
        _PROFILES + name: Scope.PROFILES_MANAGE
        for name in (
            "CreateProfile",
            "GetProfile",
            "ListProfiles",
            "DeleteProfile",
            "StartProfileLogin",
        )
    },
    **{
        _CREDENTIALS + name: Scope.CREDENTIALS_MANAGE
        for name in (
            "SetCredential",
            "GetCredential",
            "ListCredentials",
            "DeleteCredential",
            "ListCredentialUses",
        )
    },
    **{_WEBHOOKS + name: Scope.WEBHOOKS_MANAGE for name in _WEBHOOK_RPCS},
    **dict.fromkeys(HEALTH_METHODS, OPEN),
    **dict.fromkeys(REFLECTION_METHODS, OPEN),
}

WEBHOOK_ROUTES = (
    ("POST", "/v1/webhooks/endpoints"),
    ("GET", "/v1/webhooks/endpoints"),
    ("GET", "/v1/webhooks/endpoints/{endpointId}"),
    ("PATCH", "/v1/webhooks/endpoints/{endpointId}"),
    ("DELETE", "/v1/webhooks/endpoints/{endpointId}"),
    ("POST", "/v1/webhooks/endpoints/{endpointId}/rotate"),
    ("GET", "/v1/webhooks/endpoints/{endpointId}/deliveries"),
    ("POST", "/v1/webhooks/endpoints/{endpointId}/deliveries/{messageId}/resend"),
)
REST_ROUTES: dict[tuple[str, str], Requirement] = {
    ("POST", "/v1/automate"): Scope.RUNS_START,
    ("POST", "/v1/automate/{requestId}/input"): Scope.INTERACTIONS_ANSWER,
    ("POST", "/v1/automate/{approvalId}/approval"): Scope.INTERACTIONS_ANSWER,
    ("POST", "/v1/research"): Scope.RUNS_START,
    ("GET", "/v1/runs"): Scope.RUNS_READ,
    ("GET", "/v1/runs/{runId}"): Scope.RUNS_READ,
    ("POST", "/v1/runs/{runId}/cancel"): Scope.RUNS_CANCEL,
    ("DELETE", "/v1/runs/{runId}"): Scope.RUNS_DELETE,
    ("GET", "/v1/runs/{runId}/events"): Scope.RUNS_READ,
    ("GET", "/v1/runs/{runId}/artifacts/{artifactId}"): Scope.RUNS_READ,
    ("POST", "/v1/sessions"): Scope.RUNS_START,
    ("GET", "/v1/sessions"): Scope.RUNS_READ,
    ("GET", "/v1/sessions/{sessionId}"): Scope.RUNS_READ,
    ("POST", "/v1/sessions/{sessionId}/end"): Scope.RUNS_CANCEL,
    ("GET", "/v1/sessions/{sessionId}/events"): Scope.RUNS_READ,
    ("GET", "/v1/interactions"): Scope.RUNS_READ,
    ("GET", "/v1/interactions/{interactionId}"): Scope.RUNS_READ,
    **{
        (method, path): Scope.PROFILES_MANAGE
        for method, path in (
            ("GET", "/v1/profiles"),
            ("POST", "/v1/profiles"),
            ("GET", "/v1/profiles/{profileId}"),
            ("DELETE", "/v1/profiles/{profileId}"),
            ("POST", "/v1/profiles/{profileId}/login"),
        )
    },
    **{
        (method, path): Scope.CREDENTIALS_MANAGE
        for method, path in (
            ("GET", "/v1/credentials"),
            ("GET", "/v1/credentials/{credentialId}"),
            ("PUT", "/v1/credentials/{credentialId}"),
            ("DELETE", "/v1/credentials/{credentialId}"),
            ("GET", "/v1/credential-uses"),
        )
    },
    **{route: Scope.WEBHOOKS_MANAGE for route in WEBHOOK_ROUTES},
    ("GET", "/healthz"): OPEN,
    ("GET", "/openapi.json"): AUTHENTICATED,
    # Counts by kind, state, model and route: no tenant's run ids or data.
    ("GET", "/metrics"): AUTHENTICATED,
}


# The A2A agent (a2a_edge): its card is OPEN; each JSON-RPC method (1.0 and 0.3 names) needs
# these scopes. Every answer is a task, which is read, hence runs.read throughout; a message
# that names a task answers its question (interactions.answer) instead of starting a run.
A2A_CARD_PATH = "/.well-known/agent-card.json"
A2A_RPC_PATH = "/a2a"
MCP_PATH = "/mcp"  # the MCP server (mcp_edge), where each tool needs its RPC's scope
_A2A_READ = (Scope.RUNS_READ,)
A2A_METHODS: dict[str, tuple[Scope, ...]] = {
    **dict.fromkeys(
        ("SendMessage", "SendStreamingMessage", "message/send", "message/stream"),
        (Scope.RUNS_READ, Scope.RUNS_START),
    ),
    **dict.fromkeys(
        ("GetTask", "ListTasks", "SubscribeToTask", "tasks/get", "tasks/resubscribe"), _A2A_READ
    ),
    **dict.fromkeys(("CancelTask", "tasks/cancel"), (Scope.RUNS_READ, Scope.RUNS_CANCEL)),
    # A task's push configs: whoever reads the task may have its updates pushed
    **dict.fromkeys(
        (
            "CreateTaskPushNotificationConfig",
            "GetTaskPushNotificationConfig",
            "ListTaskPushNotificationConfigs",
            "DeleteTaskPushNotificationConfig",
            "tasks/pushNotificationConfig/set",
            "tasks/pushNotificationConfig/get",
            "tasks/pushNotificationConfig/list",
            "tasks/pushNotificationConfig/delete",
        ),
        _A2A_READ,
    ),
}
A2A_ANSWER = (Scope.RUNS_READ, Scope.INTERACTIONS_ANSWER)


# The MCP edge's tools and the scopes each needs (the core checks them again); a tools/call
# without them is refused with 403 insufficient_scope before it reaches the tool, so an OAuth
# client can ask the IdP for more. Opening a session needs only a valid principal.
MCP_TOOLS: dict[str, tuple[Scope, ...]] = {
    "automate": (Scope.RUNS_START,),
    "research": (Scope.RUNS_START,),
    "get_run": (Scope.RUNS_READ,),
    "list_runs": (Scope.RUNS_READ,),
    "read_artifact": (Scope.RUNS_READ,),
    "cancel_run": (Scope.RUNS_CANCEL,),
}
# What an MCP client asks the IdP for: every tool, and answering the agent's questions.
MCP_SCOPES = (
    Scope.RUNS_START.value,
    Scope.RUNS_READ.value,
    Scope.RUNS_CANCEL.value,
    Scope.INTERACTIONS_ANSWER.value,
)


def a2a_requirement(method: str, names_a_task: bool) -> tuple[Scope, ...]:
    """The scopes a JSON-RPC call needs; none beyond authentication for the methods the agent
    does not support (the extended card: it answers "not supported") and
    names no method has (the SDK answers "method not found")."""
    if method in A2A_METHODS and names_a_task and Scope.RUNS_START in A2A_METHODS[method]:
        return A2A_ANSWER
    return A2A_METHODS.get(method, ())


def grpc_requirement(method: str, settings: Settings) -> Requirement | None:
    """What `method` needs; None when it is not in the table (refuse it)."""
    if method in HEALTH_METHODS and not settings.open_health:
        return AUTHENTICATED
    if method in REFLECTION_METHODS and not settings.open_reflection:
        return AUTHENTICATED
    return GRPC_METHODS.get(method)


def rest_requirement(method: str, path: str, settings: Settings) -> Requirement | None:
    if path == "/healthz" and not settings.open_health:
        return AUTHENTICATED
    return REST_ROUTES.get((method, path))
