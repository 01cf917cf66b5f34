"""Request bodies on every door of the REST port (the API, the console, /a2a, /mcp): a declared
size over the door's limit is refused before the body is read (413), a chunked body is refused
once it passes the limit, and a body that stalls is cut by the read timeout (408); each answer
in the door's own error shape, closing the connection."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from outrider.server.a2a_edge import auth as a2a_auth
from outrider.server.console_edge import live_view
from outrider.server.mcp_edge import app as mcp_app
from outrider.server.rest_edge import bodies
from tests.rest.support import RestCase, start_rest
from tests.support.uploads import Answer, Upload

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
# path, content type, limit
DOORS = {
    "api": ("/v1/automate", JSON, bodies.MAX_BODY_BYTES),
    "console": ("/console/sign-in", FORM, live_view.MAX_INPUT_BYTES),
    "a2a": ("/a2a", JSON, a2a_auth.MAX_BODY_BYTES),
    "mcp": ("/mcp", JSON, mcp_app.MAX_BODY_BYTES),
}
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def case(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[RestCase]:
    started = await start_rest(tmp_path_factory.mktemp("bodies"), body_read_timeout=1.0)
    yield started
    await started.stop()


def refusal(door: str, answer: Answer) -> tuple[int, str, str]:
    """(status, reason, message) from the door's own error shape."""
    body: Any = answer.json()
    assert answer.headers["connection"] == "close"
    if door in ("api", "console"):
        error = body["error"]
        assert error["status"] == answer.status
        return answer.status, error["reason"], error["message"]
    assert body["jsonrpc"] == "2.0" and body["id"] is None
    error = body["error"]
    if door == "a2a":
        assert error["code"] == -32000
        return answer.status, error["data"][0]["reason"], error["message"]
    assert error["code"] == (-32000 if answer.status >= 500 else -32600)
    return answer.status, "", error["message"]


@pytest.mark.parametrize("door", DOORS)
async def test_a_declared_size_over_the_limit_is_refused_unread(case: RestCase, door: str) -> None:
    path, media, limit = DOORS[door]
    # 100 MB declared, 64 KiB sent, the rest never: the answer comes at once all the same
    upload = await Upload.begin(case.rest.port, path, media, 100_000_000, b"x" * 65536)
    status, reason, message = refusal(door, await upload.answer())
    assert status == 413 and reason in ("TOO_LARGE", "")
    assert message == f"request bodies here are at most {limit:,} bytes"


# The console's forms refuse a quarter of its limit themselves (its live input takes it all).
@pytest.mark.parametrize("door", [door for door in DOORS if door != "console"])
async def test_a_chunked_body_is_refused_once_past_the_limit(case: RestCase, door: str) -> None:
    path, media, limit = DOORS[door]
    upload = await Upload.begin(case.rest.port, path, media, None, b"x" * 65536)
    for _ in range(limit // 65536):
        await upload.send(b"x" * 65536, chunked=True)
    status, _, message = refusal(door, await upload.answer())
    assert (status, message) == (413, f"request bodies here are at most {limit:,} bytes")


@pytest.mark.parametrize("door", DOORS)
async def test_a_stalled_body_is_cut_by_the_read_timeout(case: RestCase, door: str) -> None:
    path, media, _ = DOORS[door]
    upload = await Upload.begin(case.rest.port, path, media, 1000, b"{")
    status, reason, message = refusal(door, await upload.answer())
    assert status == 408 and reason in ("BODY_TIMEOUT", "")
    assert message == "the request body stalled for 1 s"


async def test_a_whole_body_within_the_limit_still_goes_through(case: RestCase) -> None:
    body = b'{"task": "t", "data": {"steps": 0}}'
    upload = await Upload.begin(case.rest.port, "/v1/automate", JSON, len(body), body)
    answer = await upload.answer(within=60)
    assert answer.status == 200, answer.body
