"""The notifications a tenant's endpoints can receive, and what each carries. A payload is small:
its type, a timestamp and `data` holding ids, states and links, never a form value, a secret or a
page's content (a question's text is the agent's short description of it, cut short)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from outrider.server.core.names import new_id, run_name, session_id_from
from outrider.server.core.principals import DEFAULT_TENANT
from outrider.server.core.storage.webhook_rows import OutboxMessage
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import run_event_pb2, run_pb2, session_pb2

RUN_ENDED = "run.ended"
QUESTION_WAITING = "question.waiting"
QUESTION_RESOLVED = "question.resolved"
RUN_RESUMED = "run.resumed"
SESSION_ENDED = "session.ended"
PROFILE_LOGIN_REQUIRED = "profile.login_required"
ENDPOINT_DISABLED = "endpoint.disabled"
EVENT_TYPES = (
    RUN_ENDED,
    QUESTION_WAITING,
    QUESTION_RESOLVED,
    RUN_RESUMED,
    SESSION_ENDED,
    PROFILE_LOGIN_REQUIRED,
    ENDPOINT_DISABLED,
)
# What an A2A push config follows: its task's state changes.
RUN_TYPES = (RUN_ENDED, QUESTION_WAITING, QUESTION_RESOLVED, RUN_RESUMED)
MESSAGE_PREFIX = "msg_"
_TEXT_CHARS = 160


@dataclass(frozen=True)
class Notice:
    """A notification to write to the outbox: for every endpoint of `tenant` that wants `type`."""

    type: str
    tenant: str
    data: dict[str, object] = field(default_factory=dict)
    run_id: str | None = None
    # "" for a new one; endpoint.disabled (one per episode) and session.ended name their own
    message_id: str = ""

    def message(self, now_us: int) -> OutboxMessage:
        data = json.dumps(self.data, separators=(",", ":"), sort_keys=True)
        message_id = self.message_id or MESSAGE_PREFIX + new_id()
        return OutboxMessage(message_id, self.tenant, self.type, now_us, data, self.run_id)


def lower_name(enum_name: str, prefix: str) -> str:
    return enum_name.removeprefix(prefix).lower()


def run_ended(run: run_pb2.Run, run_id: str) -> Notice:
    outcome: dict[str, object] = {"success": run.outcome.success}
    if run.outcome.error_code:
        outcome["error_code"] = run.outcome.error_code
    data: dict[str, object] = {
        "run": run_name(run_id),
        "kind": lower_name(run_pb2.RunKind.Name(run.kind), "RUN_KIND_"),
        "state": lower_name(run_pb2.RunState.Name(run.state), "RUN_STATE_"),
        "outcome": outcome,
    }
    return Notice(RUN_ENDED, run.tenant or DEFAULT_TENANT, data, run_id)


def question_waiting(interaction: ip.Interaction, tenant: str) -> Notice:
    data = _question(interaction)
    data["text"] = _short(question_text(interaction))
    data["expire_time"] = interaction.expire_time.ToJsonString()
    return Notice(QUESTION_WAITING, tenant, data, interaction.run.removeprefix("runs/"))


def question_resolved(interaction: ip.Interaction, tenant: str) -> Notice:
    data = _question(interaction)
    data["state"] = lower_name(ip.InteractionState.Name(interaction.state), "INTERACTION_STATE_")
    if interaction.resolved_by:
        data["resolved_by"] = interaction.resolved_by
    return Notice(QUESTION_RESOLVED, tenant, data, interaction.run.removeprefix("runs/"))


def run_resumed(
    run_id: str, tenant: str, attempt: int, effects: list[run_event_pb2.SideEffect]
) -> Notice:
    """A lost replica's run resumed here; `effects`: what its earlier attempts did (the journal)."""
    shown = [
        {
            "number": effect.number,
            "attempt": effect.attempt,
            "kind": lower_name(run_event_pb2.SideEffectKind.Name(effect.kind), "SIDE_EFFECT_KIND_"),
            "method": effect.method,
            "url": effect.url,
        }
        for effect in effects
    ]
    data: dict[str, object] = {"run": run_name(run_id), "attempt": attempt}
    data["side_effects"] = shown
    return Notice(RUN_RESUMED, tenant, data, run_id)


def session_ended(session: session_pb2.Session) -> Notice:
    """A session ended (its record marked so): one message per session, named by its id,
    however many processes end it (its holder and a failover sweep may both try)."""
    data: dict[str, object] = {
        "session": session.name,
        "kind": lower_name(run_pb2.RunKind.Name(session.kind), "RUN_KIND_"),
        "reason": lower_name(
            session_pb2.SessionEndReason.Name(session.end_reason), "SESSION_END_REASON_"
        ),
    }
    if session.ended_by:
        data["ended_by"] = session.ended_by
    message_id = f"{MESSAGE_PREFIX}{session_id_from(session.name)}_ended"
    return Notice(SESSION_ENDED, session.tenant or DEFAULT_TENANT, data, message_id=message_id)


def profile_login_required(profile: str, tenant: str, origin: str, run_id: str) -> Notice:
    """A saved profile (its resource name) is signed out at `origin` and the run that found it
    has no credential to log in with: a person must log in (the run asks one, or fails)."""
    data: dict[str, object] = {"profile": profile, "origin": origin, "run": run_name(run_id)}
    return Notice(PROFILE_LOGIN_REQUIRED, tenant, data, run_id)


def endpoint_disabled(endpoint: str, tenant: str, reason: str, episode: str) -> Notice:
    """`episode` names this disabling (the endpoint's id and generation): however many workers
    decide it at once, one message is written."""
    data: dict[str, object] = {"endpoint": endpoint, "reason": reason}
    return Notice(ENDPOINT_DISABLED, tenant, data, message_id=f"{MESSAGE_PREFIX}{episode}")


def question_text(interaction: ip.Interaction) -> str:
    """The question in the harness's or agent's words (never a page's text or a typed value)."""
    arm = interaction.WhichOneof("request")
    if arm == "form_data":
        return interaction.form_data.form_description or "The agent needs form data"
    if arm == "approval":
        approval = interaction.approval
        return (
            f"Approve {approval.action}: {approval.reason}"
            if approval.reason
            else (f"Approve {approval.action}")
        )
    if arm == "takeover":
        return interaction.takeover.reason or "The agent asks a person to take over the browser"
    return ""


def _question(interaction: ip.Interaction) -> dict[str, object]:
    kind = lower_name(ip.InteractionKind.Name(interaction.kind), "INTERACTION_KIND_")
    return {"run": interaction.run, "interaction": interaction.name, "kind": kind}


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _TEXT_CHARS else text[: _TEXT_CHARS - 1] + "…"
