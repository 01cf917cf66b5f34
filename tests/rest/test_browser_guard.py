"""No cross-site starts: POST bodies must be JSON, and CORS is closed unless origins are listed.

A page on another site can send a `text/plain` (or Content-Type-less) POST without a preflight;
such a request must not start a run. Preflights and cross-origin writes from origins that are not
listed get no CORS headers.
"""

from __future__ import annotations

import httpx
import pytest

from outrider.server.settings import Settings
from tests.rest.conftest import RestFactory
from tests.rest.support import RestCase

START = b'{"task": "t", "data": {"steps": 1}}'
ALLOWED = "https://app.example.com"
FOREIGN = "https://evil.example.net"


def cors_headers(response: httpx.Response) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k.startswith("access-control-")}


async def run_count(http: httpx.AsyncClient) -> int:
    return len((await http.get("/v1/runs")).json()["runs"])


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json; charset=latin-1",
        "application/jsonx",
        None,
    ],
)
async def test_a_post_that_is_not_declared_json_starts_nothing(
    rest: RestCase, content_type: str | None
) -> None:
    headers = {"content-type": content_type} if content_type else {}
    async with httpx.AsyncClient(base_url=rest.origin, timeout=20) as http:
        for path in ("/v1/automate", "/v1/research"):
            refused = await http.post(path, content=START, headers=headers)
            assert refused.status_code == 415, (path, refused.text)
            assert refused.json()["error"]["reason"] == "UNSUPPORTED_MEDIA_TYPE"
        assert await run_count(http) == 0


async def test_json_with_a_utf8_charset_starts_a_run(rest: RestCase) -> None:
    async with httpx.AsyncClient(base_url=rest.origin, timeout=20) as http:
        started = await http.post(
            "/v1/automate",
            content=START,
            headers={"content-type": "Application/JSON; charset=utf-8"},
        )
        assert started.status_code == 200
        assert b"event: done" in started.content
        assert await run_count(http) == 1


async def test_cors_is_closed_by_default(rest: RestCase) -> None:
    async with httpx.AsyncClient(base_url=rest.origin, timeout=20) as http:
        preflight = await http.options(
            "/v1/automate",
            headers={
                "origin": FOREIGN,
                "access-control-request-method": "POST",
                "access-control-request-headers": "content-type",
            },
        )
        read = await http.get("/v1/runs", headers={"origin": FOREIGN})
        write = await http.post("/v1/automate", content=START, headers=json_from(FOREIGN))
        assert await run_count(http) == 0
    assert preflight.status_code == 403 and cors_headers(preflight) == {}
    assert preflight.json()["error"]["reason"] == "CORS_ORIGIN_NOT_ALLOWED"
    assert read.status_code == 200 and cors_headers(read) == {}
    assert write.status_code == 403 and cors_headers(write) == {}


async def test_listed_origins_get_cors_headers_and_others_none(make_rest: RestFactory) -> None:
    case = await make_rest(cors_origins=(ALLOWED,))
    async with httpx.AsyncClient(base_url=case.origin, timeout=20) as http:
        allowed = await http.options("/v1/automate", headers=preflight_from(ALLOWED))
        foreign = await http.options("/v1/automate", headers=preflight_from(FOREIGN))
        started = await http.post("/v1/automate", content=START, headers=json_from(ALLOWED))
        refused = await http.post("/v1/automate", content=START, headers=json_from(FOREIGN))
        assert await run_count(http) == 1
    assert allowed.status_code == 204
    assert allowed.headers["access-control-allow-origin"] == ALLOWED
    assert "POST" in allowed.headers["access-control-allow-methods"]
    assert "authorization" in allowed.headers["access-control-allow-headers"]
    assert "access-control-allow-credentials" not in allowed.headers
    assert foreign.status_code == 403 and cors_headers(foreign) == {}
    assert started.status_code == 200
    assert started.headers["access-control-allow-origin"] == ALLOWED
    assert "outrider-run" in started.headers["access-control-expose-headers"]
    assert refused.status_code == 403 and cors_headers(refused) == {}


def test_cors_origins_are_origins() -> None:
    assert Settings(cors_origins="https://a.example, http://b.example:8080").cors_origins == (
        "https://a.example",
        "http://b.example:8080",
    )
    for bad in ("a.example", "https://a.example/path", "javascript:alert(1)"):
        with pytest.raises(ValueError, match="is not an origin"):
            Settings(cors_origins=bad)


def preflight_from(origin: str) -> dict[str, str]:
    return {"origin": origin, "access-control-request-method": "POST"}


def json_from(origin: str) -> dict[str, str]:
    return {"origin": origin, "content-type": "application/json"}


async def test_a_wildcard_allows_any_origin_without_credentials(make_rest: RestFactory) -> None:
    case = await make_rest(cors_origins=("*",))
    async with httpx.AsyncClient(base_url=case.origin, timeout=20) as http:
        preflight = await http.options("/v1/runs", headers=preflight_from(FOREIGN))
        read = await http.get("/v1/runs", headers={"origin": FOREIGN})
        plain = await http.post("/v1/automate", content=START, headers={"origin": FOREIGN})
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert "access-control-allow-credentials" not in preflight.headers
    assert read.headers["access-control-allow-origin"] == "*"
    assert plain.status_code == 415  # an allowed origin still has to send JSON
