"""Credentials of a tenant (`credentials/{id}`): write-only. Set (created or replaced whole),
read and listed as metadata, deleted; their values are opened only for a run that names them
(`run_credentials`). The audit trail of their uses is listed here."""

from __future__ import annotations

import json

from outrider.server.core import clock, paging
from outrider.server.core.errors import FieldViolation, InvalidArgument, NotFound
from outrider.server.core.names import parse_run_name, run_name
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.storage.vault_contract import CredentialRow, CredentialUseRow
from outrider.server.core.vault.checks import MAX_SECRET_CHARS, checked_origins
from outrider.server.core.vault.envelope import Identity
from outrider.server.core.vault.names import (
    check_id,
    credential_name,
    parse_credential_name,
)
from outrider.server.core.vault.totp import TotpSeed, TotpSeedError
from outrider.server.core.vault.vault import Vault
from outrider.v1 import credential_pb2

_LISTING = "credentials"
_USES = "credential uses"
PARTS = {
    "username": credential_pb2.CREDENTIAL_PART_USERNAME,
    "password": credential_pb2.CREDENTIAL_PART_PASSWORD,
    "totp": credential_pb2.CREDENTIAL_PART_TOTP,
}


class Credentials:
    def __init__(self, vault: Vault) -> None:
        self._vault = vault
        self._store = vault.store

    def _allowed(self, principal: Principal) -> str:
        """The tenant the principal acts in, once it may (the scope, a vault key)."""
        principal.require(Scope.CREDENTIALS_MANAGE)
        self._vault.require()
        return principal.tenant

    def set(
        self,
        principal: Principal,
        credential_id: str,
        origins: list[str],
        secret: credential_pb2.CredentialSecret,
    ) -> tuple[credential_pb2.Credential, bool]:
        tenant = self._allowed(principal)
        check_id(credential_id, "name")
        bound = checked_origins(origins, "origins")
        values = secret_values(secret, "secret")
        now = clock.now_us()
        row = CredentialRow(tenant, credential_id, bound, tuple(values), now, now)
        box = self._vault.seal(
            json.dumps(values).encode(), credential_identity(row.tenant, row.name)
        )
        created = self._store.put_credential(row, box)
        stored = self._store.get_credential(tenant, credential_id)
        return credential_message(stored or row), created

    def get(self, principal: Principal, credential_id: str) -> credential_pb2.Credential:
        tenant = self._allowed(principal)
        row = self._store.get_credential(tenant, credential_id)
        if row is None:
            raise NotFound(f"{credential_name(credential_id)} does not exist")
        return credential_message(row)

    def page(
        self, principal: Principal, size: int, token: str
    ) -> tuple[list[credential_pb2.Credential], str]:
        tenant = self._allowed(principal)
        limit = paging.page_size(size)
        after = self._vault.page_tokens.decode(_LISTING, token)
        rows = self._store.list_credentials(tenant, limit + 1, after[1] if after else "")
        more, rows = len(rows) > limit, rows[:limit]
        following = (
            self._vault.page_tokens.encode(_LISTING, 0, rows[-1].name) if more and rows else ""
        )
        return [credential_message(row) for row in rows], following

    def delete(self, principal: Principal, credential_id: str) -> None:
        tenant = self._allowed(principal)
        if not self._store.delete_credential(tenant, credential_id):
            raise NotFound(f"{credential_name(credential_id)} does not exist")

    def uses(
        self, principal: Principal, credential: str, run: str, size: int, token: str
    ) -> tuple[list[credential_pb2.CredentialUse], str]:
        tenant = self._allowed(principal)
        credential_id = parse_credential_name(credential, "credential") if credential else ""
        run_id = parse_run_name(run, "run") if run else ""
        limit = paging.page_size(size)
        filters = paging.filter_text(credential=credential_id, run=run_id)
        after = self._vault.page_tokens.decode(_USES, token, filters=filters)
        before = (after[0], int(after[1])) if after else None
        rows = self._store.credential_uses(tenant, credential_id, run_id, limit + 1, before)
        more, rows = len(rows) > limit, rows[:limit]
        following = ""
        if more and rows:
            number, last = rows[-1]
            following = self._vault.page_tokens.encode(_USES, last.use_us, str(number), filters)
        return [use_message(row) for _, row in rows], following


def secret_values(secret: credential_pb2.CredentialSecret, field: str) -> dict[str, str]:
    """The parts given, checked, the TOTP seed normalised; never quoted in an error."""
    values = {
        part: value
        for part, value in (
            ("username", secret.username),
            ("password", secret.password),
            ("totp", secret.totp_seed),
        )
        if value
    }
    violations = [
        FieldViolation(f"{field}.{part}", f"must be at most {MAX_SECRET_CHARS} characters")
        for part, value in values.items()
        if len(value) > MAX_SECRET_CHARS or "\0" in value
    ]
    if not ({"username", "password"} & values.keys()):
        violations.append(FieldViolation(field, "give a username or a password (or both)"))
    if "totp" in values and not violations:
        try:
            values["totp"] = TotpSeed.parse(values["totp"]).encoded()
        except TotpSeedError as error:
            violations.append(FieldViolation(f"{field}.totp_seed", str(error)))
    if violations:
        raise InvalidArgument(violations)
    return values


def credential_identity(tenant: str, credential_id: str) -> Identity:
    return Identity("credential", tenant, credential_id)


def credential_message(row: CredentialRow) -> credential_pb2.Credential:
    credential = credential_pb2.Credential(
        name=credential_name(row.name),
        origins=row.origins,
        has_username="username" in row.parts,
        has_password="password" in row.parts,
        has_totp="totp" in row.parts,
        create_time=clock.timestamp(row.create_us),
        update_time=clock.timestamp(row.update_us),
    )
    if row.used_us:
        credential.last_used_time.CopyFrom(clock.timestamp(row.used_us))
    return credential


def use_message(row: CredentialUseRow) -> credential_pb2.CredentialUse:
    return credential_pb2.CredentialUse(
        credential=credential_name(row.credential),
        run=run_name(row.run_id),
        origin=row.origin,
        part=PARTS.get(row.part, credential_pb2.CREDENTIAL_PART_UNSPECIFIED),
        field_kind=row.field_kind,
        filled=row.filled,
        refusal_reason=row.reason,
        time=clock.timestamp(row.use_us),
    )
