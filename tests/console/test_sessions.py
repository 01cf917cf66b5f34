"""Console sessions (security/sessions.py) and their cookie, without a browser: what a session
cookie is good for, and when it stops being good."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from starlette.requests import Request
from starlette.responses import Response

from outrider.server.console_edge.auth import ConsoleAuth
from outrider.server.core.errors import Unauthenticated
from outrider.server.core.paging import b64url, unb64url
from outrider.server.security.authn import Keyring
from outrider.server.security.sessions import SessionSigner
from tests.security.tenants import CALLER, Keys, certificate_entry
from tests.support.harness import settings_for_tests

KEY = b"k" * 32
HOUR = 3600.0


@pytest.fixture
def keys(tmp_path: Path) -> Keys:
    keys = Keys(tmp_path / "keys.toml")
    keys.add("alice", "alpha", CALLER)
    keys.add("carol", "alpha", ["runs.read"])
    certificate_entry(keys.file, "robot", "alpha", "robot-cn")
    return keys


def keyring(keys: Keys, tmp_path: Path) -> Keyring:
    return Keyring(settings_for_tests(tmp_path / "data", keys_file=keys.file))


def test_a_session_names_its_principal_and_never_holds_the_key(keys: Keys, tmp_path: Path) -> None:
    ring = keyring(keys, tmp_path)
    signer = SessionSigner(KEY, HOUR)
    cookie, session = signer.with_key(ring, keys.keys["alice"])
    assert keys.keys["alice"] not in cookie and session.principal.id == "alice"
    again = signer.verify(cookie, ring, None)
    assert again.principal.tenant == "alpha" and again.session_id == session.session_id
    assert signer.csrf_ok(again, signer.csrf_token(session))
    assert not signer.csrf_ok(
        again, signer.csrf_token(signer.with_key(ring, keys.keys["alice"])[1])
    )


@pytest.mark.parametrize("spoil", ["tamper", "expire", "other key", "garbage"])
def test_a_spoilt_or_expired_cookie_is_refused(keys: Keys, tmp_path: Path, spoil: str) -> None:
    ring = keyring(keys, tmp_path)
    signer = SessionSigner(KEY, HOUR)
    cookie, _ = signer.with_key(ring, keys.keys["carol"])
    body, mac = cookie.split(".")
    now = time.time()
    cases = {
        "tamper": (signer, b64url(unb64url(body).replace(b"carol", b"alice")), mac, now),
        "expire": (signer, body, mac, now + HOUR + 1),
        "other key": (SessionSigner(b"x" * 32, HOUR), body, mac, now),
        "garbage": (signer, "{}", "AAAA", now),
    }
    checker, body, mac, moment = cases[spoil]
    with pytest.raises(Unauthenticated):
        checker.verify(f"{body}.{mac}", ring, None, now=moment)


def test_removing_a_key_ends_its_sessions_and_new_scopes_apply_at_once(
    keys: Keys, tmp_path: Path
) -> None:
    ring = keyring(keys, tmp_path)
    signer = SessionSigner(KEY, HOUR)
    cookie, _ = signer.with_key(ring, keys.keys["carol"])
    text = keys.file.read_text()
    keys.file.write_text(
        text.replace('scopes = ["runs.read"]', 'scopes = ["runs.read", "runs.cancel"]')
    )
    assert ring.reload()
    assert "runs.cancel" in {s.value for s in signer.verify(cookie, ring, None).principal.scopes}
    keys.file.write_text(text.split('[[keys]]\nid = "carol"')[0])
    assert ring.reload()
    with pytest.raises(Unauthenticated):
        signer.verify(cookie, ring, None)


def test_a_certificate_session_holds_only_on_a_connection_with_that_certificate(
    keys: Keys, tmp_path: Path
) -> None:
    ring = keyring(keys, tmp_path)
    signer = SessionSigner(KEY, HOUR)
    cookie, session = signer.with_certificate(ring, "robot-cn")
    assert session.principal.id == "robot" and session.by_certificate
    assert signer.verify(cookie, ring, "robot-cn").principal.id == "robot"
    for elsewhere in (None, "someone-else"):  # a copied cookie without the certificate
        with pytest.raises(Unauthenticated):
            signer.verify(cookie, ring, elsewhere)
    with pytest.raises(Unauthenticated):
        signer.with_certificate(ring, "unmapped-cn")


def test_an_anonymous_session_ends_when_authentication_is_turned_on(
    keys: Keys, tmp_path: Path
) -> None:
    open_ring = Keyring(settings_for_tests(tmp_path / "open"))
    signer = SessionSigner(KEY, HOUR)
    cookie, session = signer.with_key(open_ring, "")
    assert session.principal.id == "anonymous"
    assert signer.verify(cookie, open_ring, None).principal.id == "anonymous"
    with pytest.raises(Unauthenticated):
        signer.verify(cookie, keyring(keys, tmp_path), None)


def test_under_tls_the_cookie_is_secure_and_host_only(tmp_path: Path) -> None:
    ring = Keyring(settings_for_tests(tmp_path))
    auth = ConsoleAuth(SessionSigner(KEY, HOUR), ring, secure=True, public="")
    response = Response()
    request = Request({"type": "http", "root_path": "/console", "headers": [], "path": "/"})
    auth.set_cookie(request, response, "value")
    header = response.headers["set-cookie"]
    assert header.startswith("__Host-outrider-console=value;")
    for flag in ("HttpOnly", "Secure", "Path=/;", "SameSite=strict", "Max-Age=3600"):
        assert flag in header, header
    assert "Domain" not in header
