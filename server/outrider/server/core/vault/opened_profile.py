"""A profile opened by one holder (a run, a session): the state it loaded (a run in a session
loads none: its session's browser holds the state), its writer lease while it holds one, and its
save, refused rather than lost when it would overwrite a newer version or another holder writes
the profile.

Many readers, one writer: a holder that will save takes the profile's lease in the store when it
opens it (and renews it, `keep_lease`); one that cannot, because another holder's lease runs,
reads only and tries again when it saves. Every save also names the version its state came from:
a save after another holder's is refused (PROFILE_VERSION_CONFLICT), whoever holds the lease.
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, replace

from outrider.server.core import clock
from outrider.server.core.names import run_name
from outrider.server.core.storage.vault_contract import ProfileRow
from outrider.server.core.vault.envelope import Identity
from outrider.server.core.vault.names import profile_name
from outrider.server.core.vault.profile_state import (
    StorageState,
    decode_state,
    encode_state,
    summarise,
)
from outrider.server.core.vault.profiles import profile_row
from outrider.server.core.vault.vault import Vault
from outrider.v1 import profile_pb2


@dataclass
class OpenedProfile:
    vault: Vault
    row: ProfileRow  # as it was opened
    holder: str  # the run id holding it
    version: int  # the version loaded, then the one last saved
    state: StorageState | None  # None: nothing saved yet
    writer: bool

    @classmethod
    def open(
        cls, vault: Vault, tenant: str, profile_id: str, holder: str, save: bool
    ) -> OpenedProfile:
        """Loads the profile's state for `holder`, taking its writer lease when it will save.
        NotFound when the tenant has no such profile."""
        row = profile_row(vault, tenant, profile_id)
        store = vault.store
        writer = save and cls._lease(vault, row, holder) == holder
        stored = store.profile_state(tenant, profile_id)
        state = None
        version = stored.version if stored is not None else row.version
        if stored is not None and stored.box is not None:
            state = decode_state(vault.open(stored.box, _identity(row)))
        store.profile_used(tenant, profile_id, clock.now_us())
        return cls(vault, row, holder, version, state, writer)

    @classmethod
    def to_save(
        cls, vault: Vault, tenant: str, profile_id: str, holder: str, version: int
    ) -> OpenedProfile:
        """The profile for `holder` to save a browser state to that came from `version` of it,
        loaded earlier by another (a run in a session saving to the profile the session started
        from): its writer lease taken, nothing loaded. NotFound when the tenant has no such
        profile (any more)."""
        row = profile_row(vault, tenant, profile_id)
        writer = cls._lease(vault, row, holder) == holder
        vault.store.profile_used(tenant, profile_id, clock.now_us())
        return cls(vault, row, holder, version, None, writer)

    @staticmethod
    def _lease(vault: Vault, row: ProfileRow, holder: str) -> str:
        now = clock.now_us()
        until = now + int(vault.settings.profile_lease * 1_000_000)
        return vault.store.take_profile_lease(row.tenant, row.name, holder, now, until)

    @property
    def name(self) -> str:
        return profile_name(self.row.name)

    def loaded(self) -> profile_pb2.ProfileLoaded:
        """What a run's profile_loaded event says: figures, never the state."""
        summary = summarise(self.state or {}, b"")
        return profile_pb2.ProfileLoaded(
            profile=self.name,
            version=self.version,
            cookie_count=summary.cookie_count,
            origins=summary.origins,
            writer=self.writer,
        )

    async def keep_lease(self) -> None:
        """Renews the writer lease every third of its length until cancelled; a lease lost
        meanwhile (the store was unreachable past it, and another holder took it) is noted,
        and the save tries again."""
        period = self.vault.settings.profile_lease / 3
        while self.writer:
            await asyncio.sleep(period)
            self.writer = self._lease(self.vault, self.row, self.holder) == self.holder

    def save(self, state: StorageState) -> profile_pb2.ProfileSaved:
        encoded = encode_state(state)
        summary = summarise(state, encoded)
        report = profile_pb2.ProfileSaved(
            profile=self.name, cookie_count=summary.cookie_count, origins=summary.origins
        )
        limit = self.vault.settings.profile_max_bytes
        if summary.size > limit:
            return _refused(
                report,
                "PROFILE_TOO_LARGE",
                f"the state is {summary.size:,} bytes; at most "
                f"{limit:,} are kept (OUTRIDER_VAULT_PROFILE_MAX_BYTES)",
            )
        if not self.writer:
            self.writer = self._lease(self.vault, self.row, self.holder) == self.holder
        now = clock.now_us()
        row = replace(
            self.row,
            origins=summary.origins,
            cookie_count=summary.cookie_count,
            size=summary.size,
            update_us=now,
            writer=self.holder,
        )
        box = self.vault.seal(encoded, _identity(self.row))
        saved = self.vault.store.save_profile_state(row, box, self.version, secrets.token_hex(8))
        if saved is None:
            return self._refusal(report)
        self.version, self.state = saved, state
        report.saved, report.version = True, saved
        return report

    def _refusal(self, report: profile_pb2.ProfileSaved) -> profile_pb2.ProfileSaved:
        now = self.vault.store.get_profile(self.row.tenant, self.row.name)
        if now is None:
            return _refused(report, "PROFILE_DELETED", f"{self.name} was deleted meanwhile")
        if now.version != self.version:
            return _refused(
                report,
                "PROFILE_VERSION_CONFLICT",
                f"{self.name} was saved as version {now.version} since version {self.version}, "
                "the one this run's browser state comes from; saving would overwrite it",
            )
        holder = run_name(now.writer) if now.writer else "another run"
        return _refused(
            report, "PROFILE_LEASE_HELD", f"{holder} holds the writer lease of {self.name}"
        )

    def close(self) -> None:
        """Gives the writer lease back (if held)."""
        if self.writer:
            self.writer = False
            self.vault.store.release_profile_lease(self.row.tenant, self.row.name, self.holder)


def _identity(row: ProfileRow) -> Identity:
    return Identity("profile", row.tenant, row.name)


def _refused(
    report: profile_pb2.ProfileSaved, reason: str, message: str
) -> profile_pb2.ProfileSaved:
    report.refusal_reason, report.message = reason, message
    return report
