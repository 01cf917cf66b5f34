"""Profiles of a tenant (`profiles/{id}`): created empty, listed and read as metadata only,
deleted; opened by a run (`opened_profile`), which alone ever sees their state."""

from __future__ import annotations

from outrider.server.core import clock, paging
from outrider.server.core.errors import AlreadyExists, NotFound
from outrider.server.core.names import run_name
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.storage.vault_contract import ProfileRow
from outrider.server.core.vault.checks import checked_profile_check
from outrider.server.core.vault.names import check_id, profile_name
from outrider.server.core.vault.vault import Vault
from outrider.v1 import profile_pb2

_LISTING = "profiles"


class Profiles:
    def __init__(self, vault: Vault) -> None:
        self._vault = vault
        self._store = vault.store

    def _allowed(self, principal: Principal) -> str:
        """The tenant the principal acts in, once it may (the scope, a vault key)."""
        principal.require(Scope.PROFILES_MANAGE)
        self._vault.require()
        return principal.tenant

    def create(
        self, principal: Principal, profile_id: str, check: profile_pb2.ProfileCheck
    ) -> profile_pb2.Profile:
        tenant = self._allowed(principal)
        check_id(profile_id, "profile_id")
        checked_profile_check(check, "check")
        now = clock.now_us()
        row = ProfileRow(
            tenant,
            profile_id,
            check_url=check.url,
            check_text=check.text,
            create_us=now,
            update_us=now,
        )
        if not self._store.create_profile(row):
            raise AlreadyExists(f"{profile_name(profile_id)} exists already", "PROFILE_EXISTS")
        return profile_message(row)

    def row(self, principal: Principal, profile_id: str) -> ProfileRow:
        return profile_row(self._vault, self._allowed(principal), profile_id)

    def get(self, principal: Principal, profile_id: str) -> profile_pb2.Profile:
        return profile_message(self.row(principal, profile_id))

    def page(
        self, principal: Principal, size: int, token: str
    ) -> tuple[list[profile_pb2.Profile], str]:
        tenant = self._allowed(principal)
        limit = paging.page_size(size)
        after = self._vault.page_tokens.decode(_LISTING, token)
        rows = self._store.list_profiles(tenant, limit + 1, after[1] if after else "")
        more = len(rows) > limit
        rows = rows[:limit]
        following = (
            self._vault.page_tokens.encode(_LISTING, 0, rows[-1].name) if more and rows else ""
        )
        return [profile_message(row) for row in rows], following

    def delete(self, principal: Principal, profile_id: str) -> None:
        tenant = self._allowed(principal)
        if not self._store.delete_profile(tenant, profile_id):
            raise NotFound(f"{profile_name(profile_id)} does not exist")


def profile_row(vault: Vault, tenant: str, profile_id: str) -> ProfileRow:
    """The tenant's profile; NotFound, the same for another tenant's as for none."""
    row = vault.store.get_profile(tenant, profile_id)
    if row is None:
        raise NotFound(f"{profile_name(profile_id)} does not exist")
    return row


def profile_message(row: ProfileRow) -> profile_pb2.Profile:
    profile = profile_pb2.Profile(
        name=profile_name(row.name),
        origins=row.origins,
        cookie_count=row.cookie_count,
        version=row.version,
        create_time=clock.timestamp(row.create_us),
        update_time=clock.timestamp(row.update_us),
        size_bytes=row.size,
    )
    if row.used_us:
        profile.last_used_time.CopyFrom(clock.timestamp(row.used_us))
    if row.check_url:
        profile.check.CopyFrom(profile_pb2.ProfileCheck(url=row.check_url, text=row.check_text))
    if row.writer and row.writer_until_us > clock.now_us():
        profile.writer = run_name(row.writer)
    return profile
