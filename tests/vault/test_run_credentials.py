"""Credentials in the core: write-only for callers; for a run, filled only on a bound origin,
into a field of the right kind, a one-time code fresh and capped, every use in the audit trail
(committed first) and every value known to the run's redactor."""

from __future__ import annotations

import pyotp
import pytest

from outrider.server.core.errors import InvalidArgument, NotFound
from outrider.server.core.secrets.redaction import Redactor
from outrider.server.core.storage import Store
from outrider.server.core.vault.credentials import Credentials
from outrider.server.core.vault.run_credentials import RunCredentials, fresh_step
from outrider.server.core.vault.totp import TotpSeed
from outrider.v1 import credential_pb2
from tests.vault.support import ACME, OTHER, a_vault

SEED = pyotp.random_base32()
SECRET = credential_pb2.CredentialSecret(
    username="ada@example.com", password="Tr0ub4dor&3", totp_seed=SEED
)
ORIGIN = "http://127.0.0.1:8123"


def test_credentials_are_write_only_and_bound_to_exact_origins(store: Store) -> None:
    credentials = Credentials(a_vault(store))
    made, created = credentials.set(ACME, "crm", [ORIGIN + "/", "HTTP://Example.COM:80"], SECRET)
    assert created and made.origins == [ORIGIN, "http://example.com"]
    assert made.has_username and made.has_password and made.has_totp
    assert "Tr0ub4dor" not in str(made) and SEED not in str(made)
    replaced, created = credentials.set(
        ACME, "crm", [ORIGIN], credential_pb2.CredentialSecret(password="new")
    )
    assert not created and not replaced.has_totp and not replaced.has_username
    with pytest.raises(NotFound):
        credentials.get(OTHER, "crm")
    box = store.credential_box("acme", "crm")
    assert box is not None and b"new" not in box.body


@pytest.mark.parametrize(
    ("origins", "secret", "field"),
    [
        (["https://a.example/login"], SECRET, "origins[0]"),
        (["https://*.example.com"], SECRET, "origins[0]"),
        (["ftp://a.example"], SECRET, "origins[0]"),
        ([], SECRET, "origins"),
        ([ORIGIN], credential_pb2.CredentialSecret(totp_seed=SEED), "secret"),
        (
            [ORIGIN],
            credential_pb2.CredentialSecret(password="p", totp_seed="nope!"),
            "secret.totp_seed",
        ),
    ],
)
def test_bad_credentials_are_field_violations_that_never_quote_a_secret(
    store: Store, origins: list[str], secret: credential_pb2.CredentialSecret, field: str
) -> None:
    with pytest.raises(InvalidArgument) as refused:
        Credentials(a_vault(store)).set(ACME, "crm", origins, secret)
    assert refused.value.violations[0].field == field
    assert SEED not in str(refused.value) and "nope!" not in str(refused.value)


async def test_a_run_gets_a_value_only_where_and_as_it_may(store: Store) -> None:
    vault = a_vault(store)
    Credentials(vault).set(ACME, "crm", [ORIGIN], SECRET)
    redactor = Redactor()
    mine = RunCredentials.load(vault, "acme", "run00001", ["crm", "deleted"], redactor)
    assert redactor.knows("Tr0ub4dor&3") and redactor.knows("ada@example.com")
    assert mine.offered(ORIGIN) == "crm (username, password, one-time code)"
    assert mine.offered("http://127.0.0.1:9999") == "" and mine.hosts == ["127.0.0.1"]
    password = await mine.grant("crm", "password", ORIGIN, "password", "step-1")
    assert password.value == "Tr0ub4dor&3" and password.use.filled
    refusals = {
        "ORIGIN_MISMATCH": await mine.grant(
            "crm", "password", "http://127.0.0.1:9", "password", "s"
        ),
        "FIELD_KIND_MISMATCH": await mine.grant("crm", "password", ORIGIN, "text", "s"),
        "CREDENTIAL_NOT_GRANTED": await mine.grant("deleted", "password", ORIGIN, "password", "s"),
    }
    for reason, grant in refusals.items():
        assert grant.value is None and grant.use.refusal_reason == reason
        assert "nothing was filled" in grant.refusal
    code = await mine.grant("crm", "totp", ORIGIN, "tel", "step-2")
    assert code.value is not None and pyotp.TOTP(SEED).verify(code.value, valid_window=1)
    assert redactor.knows(code.value)
    uses, _ = Credentials(vault).uses(ACME, "credentials/crm", "runs/run00001", 10, "")
    assert [(u.filled, u.refusal_reason) for u in uses][::-1] == [
        (True, ""),
        (False, "ORIGIN_MISMATCH"),
        (False, "FIELD_KIND_MISMATCH"),
        (True, ""),
    ]
    assert all("Tr0ub4dor" not in str(u) and code.value not in str(u) for u in uses)
    assert Credentials(vault).get(ACME, "crm").HasField("last_used_time")


async def test_one_time_codes_stop_at_the_runs_cap(store: Store) -> None:
    vault = a_vault(store, totp_attempts=1)
    Credentials(vault).set(ACME, "crm", [ORIGIN], SECRET)
    mine = RunCredentials.load(vault, "acme", "run00001", ["crm"], Redactor())
    assert (await mine.grant("crm", "totp", ORIGIN, "text", "s")).value is not None
    second = await mine.grant("crm", "totp", ORIGIN, "text", "s")
    assert second.value is None and second.use.refusal_reason == "TOTP_ATTEMPTS_EXHAUSTED"


def test_a_code_about_to_expire_or_used_already_waits_for_the_next() -> None:
    seed = TotpSeed.parse(SEED)
    start = 1_800_000_010.0  # 20 s left in its 30 s step
    step = seed.step(start)
    assert fresh_step(seed, start, []) == (step, 0.0)
    late_step, late_wait = fresh_step(seed, start + 16, [])
    assert late_step == step + 1 and late_wait == pytest.approx(4.05)
    used_step, used_wait = fresh_step(seed, start + 1, [step])
    assert used_step == step + 1 and used_wait == pytest.approx(19.05)


async def test_a_run_never_fills_a_code_another_run_filled(store: Store) -> None:
    vault = a_vault(store)
    seed = f"otpauth://totp/x?secret={SEED}&period=10"  # a short period: the test waits less
    Credentials(vault).set(
        ACME, "crm", [ORIGIN], credential_pb2.CredentialSecret(password="p", totp_seed=seed)
    )
    first = RunCredentials.load(vault, "acme", "run00001", ["crm"], Redactor())
    second = RunCredentials.load(vault, "acme", "run00002", ["crm"], Redactor())
    one = await first.grant("crm", "totp", ORIGIN, "text", "s")
    two = await second.grant("crm", "totp", ORIGIN, "text", "s")
    assert one.value and two.value and one.value != two.value
    totp = pyotp.TOTP(SEED, interval=10)
    assert totp.verify(two.value, valid_window=1)
