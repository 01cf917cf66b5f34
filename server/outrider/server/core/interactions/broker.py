"""Interactions: questions a run asks its caller (form data, approvals) and takeovers of its
browser by a person, each with an id, an expiry and exactly one resolution.

Answer rules: a late answer is refused (INTERACTION_EXPIRED), a different second answer is refused
(INTERACTION_ALREADY_RESOLVED), and repeating the accepted answer is a harmless success. Answers
are compared by an HMAC kept in memory; form values never reach the store, events or logs.

Callers reach only the interactions of their own tenant's runs; others do not exist for them.
"""

from __future__ import annotations

import hashlib
import hmac
import json

from outrider.server.core import clock, paging, validation
from outrider.server.core.errors import FailedPrecondition, InvalidArgument, NotFound
from outrider.server.core.interactions.entries import (
    OpenInteraction,
)
from outrider.server.core.interactions.form_answers import (
    validate_form_answer,
    validate_partial_answer,
)
from outrider.server.core.interactions.life import PENDING
from outrider.server.core.interactions.resolutions import (
    ApprovalAnswer,
    InputAnswer,
    as_error,
    id_of,
    refuse_closed,
)
from outrider.server.core.interactions.takeovers import TakeoverInteractions
from outrider.server.core.names import interaction_name, run_name
from outrider.server.core.principals import Principal, Scope
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import run_event_pb2 as rp

# Digests of accepted answers kept to accept a client's repeat of one (a retry after a lost
# reply): the newest 10,000, about 1 MiB, for the life of the process.
_KEPT_DIGESTS = 10_000


class InteractionBroker(TakeoverInteractions):
    """Asks form-data and approval questions for agents and takes callers' answers; each
    interaction's life is `InteractionLife`'s (life.py), takeovers are in takeovers.py."""

    # asked by agents

    async def ask_input(
        self,
        run_id: str,
        request: ae.InteractiveFormDataRequest,
        field_errors: dict[str, str] | None = None,
    ) -> InputAnswer:
        """Emits the request (or, with field_errors, a re-request) and waits for its resolution."""
        entry = self._open_interaction(run_id, ip.INTERACTION_KIND_FORM_DATA, request)
        entry.refs = [f.ref for f in request.fields]
        request.request_id = entry.interaction.form_data.request_id
        if field_errors is None:
            self._log.append(run_id, ae.AutomateEvent(interactive_form_data_request=request))
        else:
            self._log.append(
                run_id,
                ae.AutomateEvent(interactive_form_data_error=as_error(request, field_errors)),
            )
        answer = await self._wait(entry)
        assert isinstance(answer, InputAnswer)
        return answer

    async def ask_approval(self, run_id: str, request: rp.ApprovalRequested) -> ApprovalAnswer:
        entry = self._open_interaction(run_id, ip.INTERACTION_KIND_APPROVAL, request)
        self._log.append(run_id, entry.interaction.approval)
        answer = await self._wait(entry)
        assert isinstance(answer, ApprovalAnswer)
        return answer

    # answered by callers

    def submit_input(
        self,
        interaction_id: str,
        values: list[tuple[str, str]],
        cancelled: bool,
        principal: Principal,
        run_id: str | None = None,
    ) -> ip.Interaction:
        """Answers a form-data request; with `run_id`, only one that run asked."""
        self._check_answerable_by(interaction_id, principal, run_id)
        digest = self._digest({"values": sorted(values), "cancelled": cancelled})
        entry = self._answerable(interaction_id, ip.INTERACTION_KIND_FORM_DATA, digest)
        if entry is None:
            return self._get(interaction_id)
        refs = [f.ref for f in entry.interaction.form_data.fields]
        declined = tuple(ref for ref in refs if ref not in entry.held)
        if cancelled and entry.held and declined:  # the rest declined: the part given is kept
            answer = InputAnswer(
                True, dict(entry.held), rp.RESOLUTION_SOURCE_CALLER, principal.id, declined
            )
            return self._resolve(entry, answer, digest)
        if not cancelled:
            values = _with_held(values, entry.held)
            validate_form_answer(entry.interaction.form_data, values)
        answer = InputAnswer(
            not cancelled,
            {} if cancelled else dict(values),
            rp.RESOLUTION_SOURCE_CALLER,
            principal.id,
        )
        return self._resolve(entry, answer, digest)

    def hold_input(
        self,
        interaction_id: str,
        values: list[tuple[str, str]],
        principal: Principal,
        run_id: str | None = None,
    ) -> list[str]:
        """Keeps part of a form-data answer in this process (the one executing the run) until
        the rest arrives: the next `submit_input` of the interaction takes these values for the
        fields it leaves out or empty. The interaction stays pending. For an answer given in
        two places (an MCP client's form for the plain fields, the one-time answer page for a
        password). A decline of the rest keeps these values: the agent gets them, and is told
        which fields the person declined to give (a decline when every field is held declines
        the whole request). Values stay in memory only, like every answer.
        Returns the refs now held; ExecutedElsewhere when another replica executes the run."""
        self._check_answerable_by(interaction_id, principal, run_id)
        stored, entry = self._open_of(interaction_id, ip.INTERACTION_KIND_FORM_DATA)
        if entry is None:
            refuse_closed(stored)  # another replica's, or answered already
        assert entry is not None
        validate_partial_answer(entry.interaction.form_data, values)
        entry.held.update(values)
        return sorted(entry.held)

    def held_refs(self, interaction_id: str) -> frozenset[str]:
        """The fields of a pending form-data request whose values are held here already."""
        entry = self._open.get(interaction_id)
        return frozenset(entry.held) if entry is not None else frozenset()

    def decide_approval(
        self,
        interaction_id: str,
        decision: int,
        scope: int,
        reason: str,
        principal: Principal,
        run_id: str | None = None,
    ) -> ip.Interaction:
        """Decides an approval; with `run_id`, only one that run asked."""
        self._check_answerable_by(interaction_id, principal, run_id)
        validation.check_reason(reason)
        if decision == rp.APPROVAL_DECISION_UNSPECIFIED:
            raise InvalidArgument.single("decision", "must be APPROVE or REJECT")
        scope = scope or rp.APPROVAL_SCOPE_ONCE
        digest = self._digest({"decision": decision, "scope": scope, "reason": reason})
        entry = self._answerable(interaction_id, ip.INTERACTION_KIND_APPROVAL, digest)
        if entry is None:
            return self._get(interaction_id)
        answer = ApprovalAnswer(decision, scope, reason, rp.RESOLUTION_SOURCE_CALLER, principal.id)
        return self._resolve(entry, answer, digest)

    def _check_answerable_by(
        self, interaction_id: str, principal: Principal, run_id: str | None
    ) -> None:
        principal.require(Scope.INTERACTIONS_ANSWER)
        self._check_visible(interaction_id, principal)
        if run_id is not None:
            self._check_belongs_to(interaction_id, run_id)

    def _check_belongs_to(self, interaction_id: str, run_id: str) -> None:
        """A caller who names a run answers only that run's questions, never another's."""
        stored = self._get(interaction_id)
        if stored.run != run_name(run_id):
            raise FailedPrecondition(
                f"{stored.name} belongs to another run, not {run_name(run_id)}",
                "INTERACTION_OF_ANOTHER_RUN",
            )

    def _check_visible(self, interaction_id: str, principal: Principal) -> None:
        """Another tenant's interaction is reported exactly like one that does not exist."""
        if self._store.get_interaction(interaction_id, principal.tenant_filter) is None:
            raise NotFound(f"{interaction_name(interaction_id)} does not exist")

    def _answerable(self, interaction_id: str, kind: int, digest: bytes) -> OpenInteraction | None:
        """The open interaction to resolve, None for a harmless identical repeat, or an error."""
        stored, entry = self._open_of(interaction_id, kind)
        if entry is not None:
            return entry
        if not self._is_accepted_repeat(stored, digest):
            refuse_closed(stored)
        return None

    def _open_of(
        self, interaction_id: str, kind: int
    ) -> tuple[ip.Interaction, OpenInteraction | None]:
        """The stored interaction, of `kind` or an error, and its open entry here: None when it
        is open elsewhere or closed (expired now, if its time ran out before its timer fired)."""
        stored = self._get(interaction_id)
        if stored.kind != kind:
            raise FailedPrecondition(
                f"{stored.name} is a {ip.InteractionKind.Name(stored.kind)}, not a "
                f"{ip.InteractionKind.Name(kind)}",
                reason="INTERACTION_KIND_MISMATCH",
            )
        entry = self._open.get(interaction_id)
        if entry is not None and clock.now_us() >= stored.expire_time.ToMicroseconds():
            self._expire(interaction_id)
            stored, entry = self._get(interaction_id), None
        return stored, entry

    def _is_accepted_repeat(self, stored: ip.Interaction, digest: bytes) -> bool:
        previous = self._digests.get(id_of(stored))
        return previous is not None and hmac.compare_digest(previous, digest)

    def _resolve(
        self, entry: OpenInteraction, answer: InputAnswer | ApprovalAnswer, digest: bytes
    ) -> ip.Interaction:
        self._digests[id_of(entry.interaction)] = digest
        if len(self._digests) > _KEPT_DIGESTS:  # the oldest answers' repeats are refused
            del self._digests[next(iter(self._digests))]
        if isinstance(answer, ApprovalAnswer):
            entry.interaction.decision = answer.decision  # type: ignore[assignment]
        else:
            entry.interaction.declined = not answer.submitted
        entry.interaction.resolved_by = answer.resolved_by
        self._finish(entry, ip.INTERACTION_STATE_RESOLVED, answer)
        return entry.interaction

    # reading

    def get(self, interaction_id: str, principal: Principal) -> ip.Interaction:
        principal.require(Scope.RUNS_READ)
        self._check_visible(interaction_id, principal)
        return self._get(interaction_id)

    def list(
        self, run_id: str | None, states: list[int], size: int, token: str, principal: Principal
    ) -> tuple[list[ip.Interaction], str]:
        """Interactions of the caller's tenant (every tenant for an admin), oldest first."""
        principal.require(Scope.RUNS_READ)
        limit = paging.page_size(size)
        filters = paging.filter_text(run=run_id or "", states=states)
        after = self._page_tokens.decode("interactions", token, filters=filters)
        for index, state in enumerate(states):
            if state not in ip.InteractionState.values() or not state:
                raise InvalidArgument.single(
                    f"states[{index}]", f"unknown interaction state {state}"
                )
        rows = self._store.list_interactions(
            run_id, states or [PENDING], limit + 1, after, principal.tenant_filter
        )
        if len(rows) <= limit:
            return rows, ""
        last = rows[limit - 1]
        token = self._page_tokens.encode(
            "interactions", last.create_time.ToMicroseconds(), id_of(last), filters
        )
        return rows[:limit], token

    def _digest(self, answer: object) -> bytes:
        canonical = json.dumps(answer, sort_keys=True, separators=(",", ":")).encode()
        return hmac.new(self._key, canonical, hashlib.sha256).digest()


def _with_held(values: list[tuple[str, str]], held: dict[str, str]) -> list[tuple[str, str]]:
    """The submitted values, with the held ones for the fields left out or empty."""
    given = {ref for ref, value in values if value}
    kept = [(ref, value) for ref, value in values if value or ref not in held]
    return kept + [(ref, value) for ref, value in held.items() if ref not in given]
