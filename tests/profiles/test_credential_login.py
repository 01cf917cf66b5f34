"""A saved credential in real Chromium: the model names fields and parts, the harness fills them.
A login with a password and a TOTP second factor (checked by the site with pyotp) passes with no
person; the same form on a look-alike origin gets nothing; a part into a field of the wrong kind
or a credential the run was not given is refused; every attempt is in the audit trail, and the
password and codes are nowhere else. One server for the module."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from outrider.v1 import credential_pb2
from outrider.v1 import credential_service_pb2 as cs
from tests.browser.secret_checks import leaks_in_files, leaks_in_messages, leaks_in_text
from tests.profiles.support import VaultServer, named, questions, vault_server
from tests.support.login_site import PASSWORD, SEED, USER

pytestmark = pytest.mark.asyncio(loop_scope="module")
FILLED = ("username", "password", "totp")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[VaultServer]:
    async with vault_server(tmp_path_factory.mktemp("credentials")) as started:
        await started.set_acme()
        yield started


async def test_a_password_and_a_one_time_code_sign_in_with_no_person(server: VaultServer) -> None:
    run, events = await server.run(
        "Sign in to Acme and read who is signed in.",
        f"{server.site.url}/login",
        credentials=["credentials/acme"],
    )
    assert run.outcome.success, run.outcome
    assert questions(events) == 0 and server.site.sign_ins == 1
    used = [e.credential_used for e in named(events, "credential_used")]
    parts = [credential_pb2.CredentialPart.Name(u.part).split("_")[-1].lower() for u in used]
    assert parts == list(FILLED) and all(u.filled for u in used)
    assert {u.origin for u in used} == {server.site.url}
    assert [u.field_kind for u in used] == ["email", "password", "text"]
    codes = [f["code"] for path, f in server.site.received if path == "/verify"]
    assert len(codes) == 1 and server.site.received[0][1]["password"] == PASSWORD
    trail = await server.credentials.ListCredentialUses(
        cs.ListCredentialUsesRequest(credential="credentials/acme", run=run.name)
    )
    assert [u.filled for u in trail.uses] == [True, True, True]
    for secret in (PASSWORD, SEED, *codes):
        assert_nowhere(server, secret, events)


async def test_a_look_alike_origin_gets_nothing_and_the_run_says_why(server: VaultServer) -> None:
    before = len(server.lookalike.received)
    run, events = await server.run(
        "Sign in to the look-alike.",
        f"{server.lookalike.url}/login",
        credentials=["credentials/acme"],
    )
    assert not run.outcome.success and run.outcome.error_code == "TASK_ABORTED"
    assert "not the one the saved login is for" in run.outcome.error_message
    refused = [e.credential_used for e in named(events, "credential_used")]
    assert [(u.filled, u.refusal_reason) for u in refused] == [(False, "ORIGIN_MISMATCH")]
    assert refused[0].origin == server.lookalike.url
    assert f"may be filled only on {server.site.url}" in refused[0].message
    assert len(server.lookalike.received) == before  # nothing was sent, nothing was filled
    trail = await server.credentials.ListCredentialUses(cs.ListCredentialUsesRequest(run=run.name))
    assert [(u.filled, u.refusal_reason) for u in trail.uses] == [(False, "ORIGIN_MISMATCH")]


async def test_a_wrong_field_kind_or_a_credential_not_granted_is_refused(
    server: VaultServer,
) -> None:
    run, events = await server.run(
        "Put the password in the email field.",
        f"{server.site.url}/login",
        credentials=["credentials/acme"],
    )
    assert run.outcome.error_code == "TASK_ABORTED"
    reasons = [e.credential_used.refusal_reason for e in named(events, "credential_used")]
    assert reasons == ["FIELD_KIND_MISMATCH", "CREDENTIAL_NOT_GRANTED"]
    assert_nowhere(server, PASSWORD, events)


def assert_nowhere(server: VaultServer, secret: str, events: list) -> None:  # type: ignore[type-arg]
    """Not in the events, the model's prompts, the log lines, or any file of the data dir (the
    store, its WAL, artifacts): the value was filled into the page and went nowhere else."""
    server.harness.server.store.flush()
    assert leaks_in_messages(secret, events) == []
    assert leaks_in_text(secret, server.transcript.read_text()) == []
    assert not any(secret in line for line in server.logs.lines)
    assert leaks_in_files(secret, server.folder / "data") == []
    assert USER not in server.transcript.read_text()
