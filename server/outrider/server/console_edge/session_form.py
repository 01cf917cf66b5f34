"""The session form as the core's create call, and a session as its page shows it.

What a person typed becomes the arguments an API create gives SessionManager.create (the core
checks them as it checks every door's); a refused create shows the form again with every value
kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf import duration_pb2

from outrider.server.console_edge.forms import Form
from outrider.server.console_edge.start_form import KINDS, FormProblem, StartValues
from outrider.server.core.names import session_id_from
from outrider.server.core.sessions.checks import KINDS as KIND_WORDS
from outrider.v1 import profile_pb2, session_pb2

STATES = {
    session_pb2.SESSION_STATE_IDLE: ("Idle: ready for a run", "succeeded"),
    session_pb2.SESSION_STATE_RUNNING: ("A run is going on in it", "running"),
    session_pb2.SESSION_STATE_CONTROLLED: ("A person controls its browser", "waiting"),
    session_pb2.SESSION_STATE_ENDED: ("Ended", "cancelled"),
}
END_REASONS = {
    session_pb2.SESSION_END_REASON_IDLE: "it was idle for its whole idle timeout",
    session_pb2.SESSION_END_REASON_EXPIRED: "it reached its maximum life",
    session_pb2.SESSION_END_REASON_ENDED: "someone ended it",
    session_pb2.SESSION_END_REASON_LOST: "what it kept was lost",
}


@dataclass(frozen=True)
class SessionAsk:
    """A create as the form asks for it, in the core call's terms."""

    kind: int
    start_url: str
    durations: tuple[duration_pb2.Duration | None, duration_pb2.Duration | None]
    labels: dict[str, str]
    profile: str  # "profiles/{id}", or "" for a fresh browser


def session_values(form: Form) -> StartValues:
    """The submitted form as typed (a session form holds no secrets)."""
    kind = form.get("kind") if form.get("kind") in KINDS else "browser"
    return StartValues(kind, dict(form.pairs))


def ask_of(form: Form) -> SessionAsk:
    """The create the form asks for; FormProblem for a value its field does not take."""
    kind = KINDS.get(form.get("kind"), KINDS["browser"])
    durations = (_seconds(form, "idle_timeout"), _seconds(form, "max_life"))
    labels = _labels(form.get("labels"))
    # the profile select is hidden for a research session, not emptied: ignored then
    profile = form.get("profile") if kind == KINDS["browser"] else ""
    return SessionAsk(kind, form.get("start_url").strip(), durations, labels, profile)


def profile_choices(profiles: list[profile_pb2.Profile], chosen: str) -> list[tuple[str, str]]:
    """The profile select's options, (name, shown): none first, then the tenant's profiles, and
    the one sent if it is not among them (deleted meanwhile), so that its error shows with it."""
    choices = [("", "None: a fresh browser")]
    choices += [(p.name, p.name.removeprefix("profiles/")) for p in profiles]
    if chosen and all(name != chosen for name, _ in choices):
        choices.append((chosen, chosen.removeprefix("profiles/")))
    return choices


def _seconds(form: Form, name: str) -> duration_pb2.Duration | None:
    text = form.get(name).strip()
    if not text:
        return None  # the server's default
    if not text.isdigit() or len(text) > 9:
        raise FormProblem(name, "must be a whole number of seconds")
    return duration_pb2.Duration(seconds=int(text))


def _labels(text: str) -> dict[str, str]:
    """`key=value`, one a line; the core checks keys and values as for every door."""
    labels: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        key, equals, value = line.partition("=")
        if not equals or not key.strip():
            raise FormProblem("labels", f"line {number} is not key=value")
        labels[key.strip()] = value.strip()
    return labels


@dataclass(frozen=True)
class SessionView:
    """A session as its page shows it."""

    id: str
    name: str
    kind: str  # "browser" or "research"
    state: str
    state_class: str
    live: bool
    record: session_pb2.Session
    labels: list[tuple[str, str]]
    ended_because: str


def session_view(session: session_pb2.Session) -> SessionView:
    state, state_class = STATES.get(session.state, ("Unknown", "unknown"))
    labels = sorted(session.labels.items())
    return SessionView(
        id=session_id_from(session.name),
        name=session.name,
        kind=KIND_WORDS.get(session.kind, "browser"),
        state=state,
        state_class=state_class,
        live=session.state != session_pb2.SESSION_STATE_ENDED,
        record=session,
        labels=labels,
        ended_because=END_REASONS.get(session.end_reason, ""),
    )
