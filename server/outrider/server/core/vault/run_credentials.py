"""The credentials one run may use, opened into its memory (and its redactor) when it starts, and
the policy of every fill: the credential must be the run's, the page's origin one it is bound to,
the field of the part's kind, and a one-time code fresh. The harness asks (`grant`); the answer is
the value to fill or a refusal in words; either way an audit row is committed first.

What the model may know: which credentials exist for the page's origin and which parts they
have (`offered`), never a value.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from outrider.server.core import clock
from outrider.server.core.secrets.redaction import Redactor
from outrider.server.core.storage.vault_contract import CredentialUseRow
from outrider.server.core.vault.credentials import PARTS, credential_identity, use_message
from outrider.server.core.vault.names import credential_name
from outrider.server.core.vault.totp import TotpSeed
from outrider.server.core.vault.vault import Vault
from outrider.v1 import credential_pb2

# The kinds of field each part may go into (an input's type; "text" for an input without one).
FIELD_KINDS = {
    "username": frozenset({"text", "email", "tel"}),
    "password": frozenset({"password"}),
    "totp": frozenset({"text", "tel", "number", "password"}),
}
FRESH_CODE_SECONDS = 5.0  # a code with less left is not filled: the next one is waited for
_PART_WORDS = {"username": "username", "password": "password", "totp": "one-time code"}


@dataclass
class RunCredential:
    name: str  # its id
    origins: tuple[str, ...]
    values: dict[str, str]  # part -> value (the TOTP part as its seed)
    steps_used: list[int] = field(default_factory=list)  # TOTP time steps filled so far

    @property
    def parts(self) -> list[str]:
        return [part for part in PARTS if part in self.values]


@dataclass(frozen=True)
class Grant:
    """The answer to a fill request: the value to fill, or why not (refusal, in words)."""

    value: str | None
    use: credential_pb2.CredentialUse  # for the run's credential_used event

    @property
    def refusal(self) -> str:
        return self.use.message


def fresh_step(seed: TotpSeed, now: float, used: list[int]) -> tuple[int, float]:
    """The time step whose code to fill, and how long to wait for it: the current one, unless
    it has under FRESH_CODE_SECONDS left (it could expire before the form is sent) or its code
    was filled already (a site may refuse a code used once); then the next one."""
    step = seed.step(now)
    if seed.remaining(now) < FRESH_CODE_SECONDS or step in used:
        return step + 1, seed.remaining(now) + 0.05
    return step, 0.0


class RunCredentials:
    def __init__(
        self,
        vault: Vault,
        tenant: str,
        run_id: str,
        redactor: Redactor,
        loaded: list[RunCredential],
    ) -> None:
        self._vault = vault
        self._tenant, self._run_id = tenant, run_id
        self._redactor = redactor
        self._by_name = {credential.name: credential for credential in loaded}

    @classmethod
    def load(
        cls, vault: Vault, tenant: str, run_id: str, names: list[str], redactor: Redactor
    ) -> RunCredentials:
        """Opens the named credentials; every value goes to the run's redactor at once. A
        credential deleted since the run was started is left out (its fills are refused)."""
        loaded = []
        for name in names:
            row = vault.store.get_credential(tenant, name)
            box = vault.store.credential_box(tenant, name)
            if row is None or box is None:
                continue
            values = json.loads(vault.open(box, credential_identity(tenant, name)))
            for value in values.values():
                redactor.add(value)
            loaded.append(RunCredential(name, row.origins, values))
        return cls(vault, tenant, run_id, redactor, loaded)

    @property
    def hosts(self) -> list[str]:
        """Hosts of every bound origin: the action firewall trusts them for this run."""
        origins = {origin for c in self._by_name.values() for origin in c.origins}
        return sorted({urlsplit(origin).hostname or "" for origin in origins} - {""})

    def offered(self, origin: str) -> str:
        """What the model is told for a page of `origin`: "" when no credential fits it."""
        fitting = [c for c in self._by_name.values() if origin in c.origins]
        return "; ".join(
            f"{c.name} ({', '.join(_PART_WORDS[p] for p in c.parts)})" for c in fitting
        )

    async def grant(
        self, name: str, part: str, origin: str, field_kind: str, iteration_id: str
    ) -> Grant:
        """The value of `part` of credential `name` for a field of `field_kind` on a page (frame)
        of `origin`, or a refusal; the audit row is committed before this returns."""
        credential = self._by_name.get(name)
        refusal = self._refusal(credential, name, part, origin, field_kind)
        value = None
        if refusal is None and credential is not None:
            if part == "totp":
                value, refusal = await self._fresh_code(credential)
            else:
                value = credential.values[part]
        reason, message = refusal or ("", "")
        use = await self._audit(name, part, origin, field_kind, value is not None, reason)
        use.iteration_id, use.message = iteration_id, message
        return Grant(value, use)

    async def fill_failed(
        self, name: str, part: str, origin: str, field_kind: str, why: str
    ) -> credential_pb2.CredentialUse:
        """A granted fill the page did not take: the trail says so too."""
        use = await self._audit(name, part, origin, field_kind, False, "FILL_FAILED")
        use.message = why
        return use

    def _refusal(
        self,
        credential: RunCredential | None,
        name: str,
        part: str,
        origin: str,
        field_kind: str,
    ) -> tuple[str, str] | None:
        shown = credential_name(name)
        if credential is None:
            return "CREDENTIAL_NOT_GRANTED", (
                f"{shown} is not one of this run's credentials; nothing was filled"
            )
        if part not in credential.values:
            return "PART_MISSING", f"{shown} has no {_PART_WORDS.get(part, part)}"
        if origin not in credential.origins:
            return "ORIGIN_MISMATCH", (
                f"{shown} may be filled only on {', '.join(credential.origins)}, and this field "
                f"is on {origin or 'a page without an origin'}; nothing was filled"
            )
        if field_kind not in FIELD_KINDS[part]:
            kinds = " or ".join(sorted(FIELD_KINDS[part]))
            return "FIELD_KIND_MISMATCH", (
                f"a {_PART_WORDS[part]} goes only into a {kinds} field, and this one is "
                f"{field_kind or 'not an input'}; nothing was filled"
            )
        return None

    async def _fresh_code(
        self, credential: RunCredential
    ) -> tuple[str | None, tuple[str, str] | None]:
        """A code with at least FRESH_CODE_SECONDS left, never one filled before (by this run
        or, as the audit trail says, another); refused once the run filled as many as it may."""
        if len(credential.steps_used) >= self._vault.settings.totp_attempts:
            shown = credential_name(credential.name)
            return None, (
                "TOTP_ATTEMPTS_EXHAUSTED",
                f"{len(credential.steps_used)} one-time codes of {shown} were filled already; "
                "the site may be rejecting them. Ask a person or abort.",
            )
        seed = TotpSeed.parse(credential.values["totp"])
        used = credential.steps_used + self._steps_filled_elsewhere(credential.name, seed)
        step, wait = fresh_step(seed, time.time(), used)
        if wait:
            await asyncio.sleep(wait)
        code = seed.code(step)
        credential.steps_used.append(step)
        self._redactor.add(code)
        return code, None

    def _steps_filled_elsewhere(self, name: str, seed: TotpSeed) -> list[int]:
        """Time steps whose codes other runs filled lately (the audit trail says when): a site
        refuses a code used once, so a run logging in right after another waits for the next."""
        recent = self._vault.store.credential_uses(self._tenant, name, "", 20, None)
        return [
            seed.step(use.use_us / 1_000_000)
            for _, use in recent
            if use.part == "totp" and use.filled
        ]

    async def _audit(
        self, name: str, part: str, origin: str, field_kind: str, filled: bool, reason: str
    ) -> credential_pb2.CredentialUse:
        row = CredentialUseRow(
            self._tenant,
            name,
            self._run_id,
            origin,
            part,
            field_kind,
            filled,
            reason,
            clock.now_us(),
        )
        self._vault.store.record_credential_use(row)
        await self._vault.store.committed()
        return use_message(row)
