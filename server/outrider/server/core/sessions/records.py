"""A session's record (the `Session` the store keeps and callers read) through its life, and the
words of its endings."""

from __future__ import annotations

from outrider.server.core import clock
from outrider.server.core.principals import Principal
from outrider.server.core.sessions.checks import SessionSpec
from outrider.server.core.vault.names import profile_name
from outrider.v1 import session_pb2

IDLE = session_pb2.SESSION_STATE_IDLE
RUNNING = session_pb2.SESSION_STATE_RUNNING
CONTROLLED = session_pb2.SESSION_STATE_CONTROLLED
ENDED = session_pb2.SESSION_STATE_ENDED

# An ending's reason as ErrorInfo says it to a start that names the ended session.
END_REASONS = {
    session_pb2.SESSION_END_REASON_IDLE: "SESSION_IDLE",
    session_pb2.SESSION_END_REASON_EXPIRED: "SESSION_EXPIRED",
    session_pb2.SESSION_END_REASON_ENDED: "SESSION_ENDED",
    session_pb2.SESSION_END_REASON_LOST: "SESSION_LOST",
}


def new_record(name: str, spec: SessionSpec, principal: Principal) -> session_pb2.Session:
    now = clock.now_us()
    record = session_pb2.Session(
        name=name,
        kind=spec.kind,  # type: ignore[arg-type]
        state=IDLE,
        start_url=spec.start_url,
        labels=spec.labels,
        tenant=principal.tenant,
        created_by=principal.id,
        profile=profile_of(spec),
    )
    record.create_time.FromMicroseconds(now)
    record.update_time.FromMicroseconds(now)
    record.idle_timeout.FromNanoseconds(round(spec.idle_timeout * 1e9))
    record.max_life.FromNanoseconds(round(spec.max_life * 1e9))
    record.expire_time.FromMicroseconds(now + round(spec.max_life * 1e6))
    return record


def profile_of(spec: SessionSpec) -> str:
    """The profile's name as callers see it ("" for none)."""
    return profile_name(spec.profile) if spec.profile else ""


def seconds_left(record: session_pb2.Session) -> float:
    """Seconds until its maximum life is reached (0 or less once it is)."""
    return (record.expire_time.ToMicroseconds() - clock.now_us()) / 1e6


def idle_seconds(record: session_pb2.Session) -> float:
    return record.idle_timeout.ToNanoseconds() / 1e9


def mark_idle(record: session_pb2.Session) -> None:
    """No run is active: it waits for the next one until its idle timeout."""
    now = clock.now_us()
    record.state = IDLE
    record.active_run = ""
    record.update_time.FromMicroseconds(now)
    record.idle_expire_time.FromMicroseconds(now + record.idle_timeout.ToMicroseconds())


def mark_running(record: session_pb2.Session, run_name: str, state: int = RUNNING) -> None:
    """A run has the seat: RUNNING, or CONTROLLED for a person's by-hand run."""
    record.state = state  # type: ignore[assignment]
    record.active_run = run_name
    record.run_count += 1
    record.update_time.FromMicroseconds(clock.now_us())
    record.ClearField("idle_expire_time")


def mark_page(record: session_pb2.Session, where: tuple[str, str]) -> None:
    record.current_url, record.current_title = where


def mark_ended(record: session_pb2.Session, ended: session_pb2.SessionEnded) -> None:
    now = clock.now_us()
    record.state = ENDED
    record.active_run = ""
    record.end_reason = ended.reason
    record.end_message = ended.message
    record.ended_by = ended.ended_by
    record.update_time.FromMicroseconds(now)
    record.end_time.FromMicroseconds(now)
    record.ClearField("idle_expire_time")


def ending(reason: int, message: str, by: str = "") -> session_pb2.SessionEnded:
    return session_pb2.SessionEnded(reason=reason, message=message, ended_by=by)  # type: ignore[arg-type]
