"""Sessions on the REST port (an extension beside the Tabstack routes): create, run in one with
`options.session`, a busy start refused the same way as on gRPC, read, list, end, and the
session's event stream resumed with Last-Event-ID."""

from __future__ import annotations

import httpx

from tests.rest.conftest import RestFactory
from tests.rest.support import sse_events


async def test_a_session_over_rest_from_create_to_its_resumed_stream(
    make_rest: RestFactory,
) -> None:
    case = await make_rest()
    async with httpx.AsyncClient(base_url=case.origin, timeout=30) as http:
        created = await http.post(
            "/v1/sessions", json={"kind": "automate", "idleTimeout": 60, "labels": {"app": "t"}}
        )
        assert created.status_code == 201, created.text
        session = created.json()
        assert session["state"] == "idle" and session["idleTimeout"] == 60.0
        options = {"session": session["name"]}
        body = {"task": "hold", "data": {"hold": True}, "options": options}
        async with http.stream("POST", "/v1/automate", json=body) as holding:
            assert holding.status_code == 200
            busy = await http.post("/v1/automate", json={"task": "again", "options": options})
            assert busy.status_code == 409
            assert busy.json()["error"]["reason"] == "SESSION_BUSY"
            run = holding.headers["Outrider-Run"]
            cancelled = await http.post(f"/v1/{run}/cancel", json={"reason": "enough"})
            assert cancelled.status_code == 200
        session_id = session["name"].removeprefix("sessions/")
        got = (await http.get(f"/v1/sessions/{session_id}")).json()
        assert got["runCount"] == 1 and got["state"] == "idle"
        listed = (await http.get("/v1/sessions", params={"state": "idle"})).json()
        assert [s["name"] for s in listed["sessions"]] == [session["name"]]
        ended = await http.post(f"/v1/sessions/{session_id}/end", json={"reason": "done"})
        assert ended.json()["state"] == "ended" and ended.json()["endReason"] == "ended"

        async with http.stream("GET", f"/v1/sessions/{session_id}/events") as stream:
            blocks = [block async for block in sse_events(stream)]
        assert [b.id for b in blocks] == [str(n) for n in range(1, len(blocks) + 1)]
        assert blocks[0].event == "session:started" and blocks[-1].event == "session:ended"
        assert {b.data["invocation"] for b in blocks[1:-1]} == {run}
        assert "done" in [b.event for b in blocks]
        headers = {"Last-Event-ID": "3"}
        async with http.stream("GET", f"/v1/sessions/{session_id}/events", headers=headers) as s:
            rest = [block async for block in sse_events(s)]
        assert [b.id for b in rest] == [b.id for b in blocks[3:]]


async def test_bad_session_requests_are_400_with_field_violations_and_foreign_ones_404(
    make_rest: RestFactory,
) -> None:
    case = await make_rest()
    async with httpx.AsyncClient(base_url=case.origin, timeout=30) as http:
        bad = await http.post(
            "/v1/sessions", json={"kind": "nope", "startUrl": "file:///etc", "idleTimeout": 0}
        )
        assert bad.status_code == 400
        fields = {v["field"] for v in bad.json()["error"]["fieldViolations"]}
        assert fields == {"kind"}  # the body's own shape first
        bad = await http.post(
            "/v1/sessions", json={"kind": "automate", "startUrl": "file:///etc", "idleTimeout": 0}
        )
        fields = {v["field"] for v in bad.json()["error"]["fieldViolations"]}
        assert fields == {"start_url", "idle_timeout"}
        missing = await http.get("/v1/sessions/" + "0" * 24)
        assert missing.status_code == 404
        malformed = await http.get("/v1/sessions/NOT-AN-ID")
        assert malformed.status_code == 404
        run = await http.post("/v1/automate", json={"task": "x", "options": {"session": "s"}})
        assert run.status_code == 400
        assert run.json()["error"]["fieldViolations"][0]["field"] == "options.session"
        bare = (await http.post("/v1/sessions", json={"kind": "automate"})).json()["name"]
        saving = {"session": bare, "profileSave": "on_success"}
        run = await http.post("/v1/automate", json={"task": "x", "options": saving})
        assert run.status_code == 400  # as on gRPC: the session has no profile to save to
        [violation] = run.json()["error"]["fieldViolations"]
        assert violation["field"] == "options.profile_save"
        assert "the session has no profile to save to" in violation["description"]
