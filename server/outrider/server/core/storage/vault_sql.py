"""The vault's part of the store (`vault_contract.VaultStore`) for both backends: the same SQL
(`%s` placeholders, RETURNING), over the one primitive each backend gives (`_vault_rows`: run a
statement, its effect visible to the next one, and return its rows). Tables: migration 11 on
SQLite, 16 on PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from outrider.server.core.storage.vault_contract import (
    CredentialRow,
    CredentialUseRow,
    ProfileRow,
    ProfileState,
    SealedBox,
    SealedTable,
    WrappedKey,
)

_PROFILE = (
    "tenant, name, version, origins, cookie_count, size, check_url, check_text, create_us, "
    "update_us, used_us, writer, writer_until_us"
)
_CREDENTIAL = "tenant, name, origins, parts, create_us, update_us, used_us"
_USE = "tenant, credential, run_id, origin, part, field_kind, filled, reason, use_us"
_ONE = "tenant = %s AND name = %s"
_SAVE = (
    "UPDATE profiles SET version = %s, origins = %s, cookie_count = %s, size = %s, "
    "update_us = %s, key_id = %s, wrapped_key = %s, body = %s, saved_by = %s "
    f"WHERE {_ONE} AND ((version = %s AND writer = %s) OR (saved_by = %s AND version = %s)) "
    "RETURNING version"
)
_LEASE = (
    "UPDATE profiles SET writer = %s, writer_until_us = %s "
    f"WHERE {_ONE} AND (writer = '' OR writer = %s OR writer_until_us < %s)"
)
_UNUSED = (
    "SELECT tenant, name FROM profiles WHERE (writer = '' OR writer_until_us < %s) "
    "AND update_us < %s AND used_us < %s ORDER BY update_us LIMIT %s"
)
_PUT_CREDENTIAL = (
    f"INSERT INTO credentials ({_CREDENTIAL}, key_id, wrapped_key, body) "
    "VALUES (%s, %s, %s, %s, %s, %s, 0, %s, %s, %s) ON CONFLICT (tenant, name) DO UPDATE SET "
    "origins = excluded.origins, parts = excluded.parts, update_us = excluded.update_us, "
    "key_id = excluded.key_id, wrapped_key = excluded.wrapped_key, body = excluded.body "
    "RETURNING create_us"
)
_TABLES: tuple[SealedTable, ...] = ("profiles", "credentials")


class VaultSql:
    """The vault's store methods; a backend mixes this in and gives `_vault_rows`."""

    def _vault_rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    # profiles

    def create_profile(self, row: ProfileRow) -> bool:
        values = _profile_values(row)
        sql = (
            f"INSERT INTO profiles ({_PROFILE}) VALUES ({', '.join(['%s'] * len(values))}) "
            "ON CONFLICT (tenant, name) DO NOTHING RETURNING name"
        )
        return bool(self._vault_rows(sql, values))

    def get_profile(self, tenant: str, name: str) -> ProfileRow | None:
        rows = self._vault_rows(f"SELECT {_PROFILE} FROM profiles WHERE {_ONE}", (tenant, name))
        return _profile(rows[0]) if rows else None

    def list_profiles(self, tenant: str, limit: int, after: str) -> list[ProfileRow]:
        rows = self._vault_rows(
            f"SELECT {_PROFILE} FROM profiles WHERE tenant = %s AND name > %s "
            "ORDER BY name LIMIT %s",
            (tenant, after, limit),
        )
        return [_profile(row) for row in rows]

    def profile_state(self, tenant: str, name: str) -> ProfileState | None:
        rows = self._vault_rows(
            f"SELECT version, key_id, wrapped_key, body FROM profiles WHERE {_ONE}", (tenant, name)
        )
        if not rows:
            return None
        version, key_id, wrapped, body = rows[0]
        box = SealedBox(str(key_id), bytes(wrapped), bytes(body)) if key_id else None
        return ProfileState(int(version), box)

    def save_profile_state(
        self, row: ProfileRow, box: SealedBox, loaded: int, save_id: str
    ) -> int | None:
        new = loaded + 1
        meta = (new, json.dumps(row.origins), row.cookie_count, row.size, row.update_us)
        sealed = (box.key_id, box.wrapped_key, box.body, save_id)
        condition = (row.tenant, row.name, loaded, row.writer, save_id, new)
        rows = self._vault_rows(_SAVE, (*meta, *sealed, *condition))
        return int(rows[0][0]) if rows else None

    def take_profile_lease(
        self, tenant: str, name: str, holder: str, now_us: int, until_us: int
    ) -> str:
        self._vault_rows(
            f"{_LEASE} RETURNING writer", (holder, until_us, tenant, name, holder, now_us)
        )
        rows = self._vault_rows(f"SELECT writer FROM profiles WHERE {_ONE}", (tenant, name))
        return str(rows[0][0]) if rows else ""

    def release_profile_lease(self, tenant: str, name: str, holder: str) -> None:
        self._vault_rows(
            f"UPDATE profiles SET writer = '', writer_until_us = 0 WHERE {_ONE} AND writer = %s "
            "RETURNING name",
            (tenant, name, holder),
        )

    def profile_used(self, tenant: str, name: str, when_us: int) -> None:
        self._vault_rows(
            f"UPDATE profiles SET used_us = %s WHERE {_ONE} RETURNING name", (when_us, tenant, name)
        )

    def delete_profile(self, tenant: str, name: str) -> bool:
        return bool(
            self._vault_rows(f"DELETE FROM profiles WHERE {_ONE} RETURNING name", (tenant, name))
        )

    def delete_unused_profiles(self, before_us: int, limit: int) -> list[tuple[str, str]]:
        found = self._vault_rows(_UNUSED, (before_us, before_us, before_us, limit))
        return [(str(t), str(n)) for t, n in found if self.delete_profile(str(t), str(n))]

    # credentials

    def put_credential(self, row: CredentialRow, box: SealedBox) -> bool:
        origins, parts = json.dumps(row.origins), json.dumps(row.parts)
        values = (row.tenant, row.name, origins, parts, row.create_us, row.update_us)
        rows = self._vault_rows(_PUT_CREDENTIAL, (*values, box.key_id, box.wrapped_key, box.body))
        return int(rows[0][0]) == row.create_us

    def get_credential(self, tenant: str, name: str) -> CredentialRow | None:
        rows = self._vault_rows(
            f"SELECT {_CREDENTIAL} FROM credentials WHERE {_ONE}", (tenant, name)
        )
        return _credential(rows[0]) if rows else None

    def credential_box(self, tenant: str, name: str) -> SealedBox | None:
        rows = self._vault_rows(
            f"SELECT key_id, wrapped_key, body FROM credentials WHERE {_ONE}", (tenant, name)
        )
        return SealedBox(str(rows[0][0]), bytes(rows[0][1]), bytes(rows[0][2])) if rows else None

    def list_credentials(self, tenant: str, limit: int, after: str) -> list[CredentialRow]:
        rows = self._vault_rows(
            f"SELECT {_CREDENTIAL} FROM credentials WHERE tenant = %s AND name > %s "
            "ORDER BY name LIMIT %s",
            (tenant, after, limit),
        )
        return [_credential(row) for row in rows]

    def delete_credential(self, tenant: str, name: str) -> bool:
        return bool(
            self._vault_rows(f"DELETE FROM credentials WHERE {_ONE} RETURNING name", (tenant, name))
        )

    def record_credential_use(self, use: CredentialUseRow) -> None:
        values = (use.tenant, use.credential, use.run_id, use.origin, use.part, use.field_kind)
        self._vault_rows(
            f"INSERT INTO credential_uses ({_USE}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "RETURNING use_us",
            (*values, use.filled, use.reason, use.use_us),
        )
        if use.filled:
            self._vault_rows(
                f"UPDATE credentials SET used_us = %s WHERE {_ONE} RETURNING name",
                (use.use_us, use.tenant, use.credential),
            )

    def credential_uses(
        self, tenant: str, credential: str, run_id: str, limit: int, before: tuple[int, int] | None
    ) -> list[tuple[int, CredentialUseRow]]:
        clauses, params = ["tenant = %s"], list[Any]([tenant])
        for column, value in (("credential", credential), ("run_id", run_id)):
            if value:
                clauses.append(f"{column} = %s")
                params.append(value)
        if before is not None:
            clauses.append("(use_us < %s OR (use_us = %s AND id < %s))")
            params.extend((before[0], before[0], before[1]))
        rows = self._vault_rows(
            f"SELECT id, {_USE} FROM credential_uses WHERE {' AND '.join(clauses)} "
            "ORDER BY use_us DESC, id DESC LIMIT %s",
            (*params, limit),
        )
        return [(int(row[0]), _use(row[1:])) for row in rows]

    # rotation

    def wrapped_keys(self, table: SealedTable, not_key_id: str, limit: int) -> list[WrappedKey]:
        rows = self._vault_rows(
            f"SELECT tenant, name, key_id, wrapped_key FROM {_table(table)} "
            "WHERE key_id IS NOT NULL AND key_id <> %s ORDER BY tenant, name LIMIT %s",
            (not_key_id, limit),
        )
        return [WrappedKey(str(t), str(n), str(k), bytes(w)) for t, n, k, w in rows]

    def rewrap_key(self, table: SealedTable, old: WrappedKey, key_id: str, wrapped: bytes) -> bool:
        rows = self._vault_rows(
            f"UPDATE {_table(table)} SET key_id = %s, wrapped_key = %s "
            f"WHERE {_ONE} AND key_id = %s AND wrapped_key = %s RETURNING name",
            (key_id, wrapped, old.tenant, old.name, old.key_id, old.wrapped_key),
        )
        return bool(rows)


def _table(table: SealedTable) -> str:
    if table not in _TABLES:  # never interpolate anything else into the statement
        raise ValueError(f"not a sealed table: {table!r}")
    return table


def _profile_values(row: ProfileRow) -> tuple[Any, ...]:
    return (
        row.tenant,
        row.name,
        row.version,
        json.dumps(row.origins),
        row.cookie_count,
        row.size,
        row.check_url,
        row.check_text,
        row.create_us,
        row.update_us,
        row.used_us,
        row.writer,
        row.writer_until_us,
    )


def _profile(row: Sequence[Any]) -> ProfileRow:
    tenant, name, version, origins, cookies, size, check_url, check_text, *times = row
    create_us, update_us, used_us, writer, writer_until_us = times
    return ProfileRow(
        str(tenant),
        str(name),
        int(version),
        tuple(json.loads(origins)),
        int(cookies),
        int(size),
        str(check_url),
        str(check_text),
        int(create_us),
        int(update_us),
        int(used_us),
        str(writer),
        int(writer_until_us),
    )


def _credential(row: Sequence[Any]) -> CredentialRow:
    tenant, name, origins, parts, create_us, update_us, used_us = row
    return CredentialRow(
        str(tenant),
        str(name),
        tuple(json.loads(origins)),
        tuple(json.loads(parts)),
        int(create_us),
        int(update_us),
        int(used_us),
    )


def _use(row: Sequence[Any]) -> CredentialUseRow:
    tenant, credential, run_id, origin, part, field_kind, filled, reason, use_us = row
    return CredentialUseRow(
        str(tenant),
        str(credential),
        str(run_id),
        str(origin),
        str(part),
        str(field_kind),
        bool(filled),
        str(reason),
        int(use_us),
    )
