"""The operator's commands: `outrider vault new-key` prints a usable key, `outrider vault rotate`
re-wraps every data key under the new primary (and says only counts and key ids), after which the
old key can go; a server with a malformed key refuses to start, saying which entry."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pydantic import SecretStr

from outrider.server.core.paging import PageTokens
from outrider.server.core.secrets.redaction import Redactor
from outrider.server.core.storage import Store, open_store
from outrider.server.core.vault.credentials import Credentials
from outrider.server.core.vault.keyring import KeyRing
from outrider.server.core.vault.opened_profile import OpenedProfile
from outrider.server.core.vault.profiles import Profiles
from outrider.server.core.vault.run_credentials import RunCredentials
from outrider.server.core.vault.vault import Vault
from outrider.server.settings.vault import VaultSettings
from outrider.v1 import credential_pb2, profile_pb2
from tests.support.harness import settings_for_tests
from tests.vault.support import ACME

CLI = [sys.executable, "-m", "outrider.cli.main"]
STATE = {"cookies": [{"name": "sid", "value": "cookie-canary-77", "domain": "a.example",
                      "path": "/", "expires": -1, "httpOnly": True, "secure": True,
                      "sameSite": "Lax"}], "origins": []}  # fmt: skip


def cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], env=os.environ | env, capture_output=True, text=True, timeout=60
    )


def new_key(key_id: str) -> str:
    made = cli("vault", "new-key", key_id)
    assert made.returncode == 0, made.stderr
    line = made.stdout.strip()
    assert KeyRing.parse(line, "made").primary_id == key_id
    return line


def vault_of(data_dir: Path, keys: str) -> tuple[Vault, Store]:
    store = open_store(settings_for_tests(data_dir))
    return Vault(store, VaultSettings(keys=SecretStr(keys)), PageTokens(b"k" * 32)), store


def test_rotation_moves_every_data_key_to_the_new_key(tmp_path: Path) -> None:
    old, new = new_key("old-2025"), new_key("new-2026")
    vault, store = vault_of(tmp_path, old)
    secret = credential_pb2.CredentialSecret(password="pw-canary-42")
    Credentials(vault).set(ACME, "crm", ["https://a.example"], secret)
    Profiles(vault).create(ACME, "crm", profile_pb2.ProfileCheck())
    OpenedProfile.open(vault, "acme", "crm", "run00001", save=True).save(STATE)
    store.close()
    env = {"OUTRIDER_DATA_DIR": str(tmp_path), "OUTRIDER_DATABASE_URL": ""}
    too_soon = cli("vault", "rotate", OUTRIDER_VAULT_KEYS=new, **env)
    assert too_soon.returncode == 1 and "'old-2025'" in too_soon.stderr
    rotated = cli("vault", "rotate", OUTRIDER_VAULT_KEYS=f"{new},{old}", **env)
    assert rotated.returncode == 0, rotated.stderr
    assert "re-wrapped 1 profiles, 1 credentials under key new-2026 (from: old-2025)" in (
        rotated.stdout
    )
    for key in (old, new):
        assert key.split(":")[1] not in rotated.stdout + rotated.stderr
    vault, store = vault_of(tmp_path, new)  # the old key is gone now
    redactor = Redactor()
    RunCredentials.load(vault, "acme", "run00002", ["crm"], redactor)
    assert redactor.knows("pw-canary-42")
    assert OpenedProfile.open(vault, "acme", "crm", "run00002", save=False).state == STATE
    store.close()


def test_a_server_with_a_malformed_key_refuses_to_start(tmp_path: Path) -> None:
    started = subprocess.run(
        [sys.executable, "-m", "outrider.server", "--port", "0", "--rest-port", "0"],
        env=os.environ | {"OUTRIDER_DATA_DIR": str(tmp_path), "OUTRIDER_VAULT_KEYS": "k1:c2hvcnQ="},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode == 1
    assert "OUTRIDER_VAULT_KEYS: key 'k1' must be 32 bytes in base64" in started.stderr
    assert "c2hvcnQ" not in started.stderr
