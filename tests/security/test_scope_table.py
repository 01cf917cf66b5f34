"""One table of scopes, the server's (core/principals.py `Scope`): `outrider keys create` offers
every scope and grants every caller scope by default, the key file takes every scope and names
them all when it refuses one, README's table has a row per scope naming what the access table
gives it, and the console shows a key's scopes in the table's order."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from outrider.client import keys as client_keys
from outrider.server.core.principals import CALLER_SCOPES, Scope
from outrider.server.security.access import GRPC_METHODS, REST_ROUTES
from outrider.server.security.keys import load_key_file
from tests.rest.support import start_rest
from tests.support.harness import REPO_ROOT

SERVER = [scope.value for scope in Scope]
CALLER = [scope.value for scope in Scope if scope in CALLER_SCOPES]


def keys_create(path: Path, *scopes: str) -> subprocess.CompletedProcess[str]:
    options = [part for scope in scopes for part in ("--scope", scope)]
    return subprocess.run(
        [sys.executable, "-m", "outrider.cli.main", "keys", "create", "--id", f"k{len(scopes)}",
         "--tenant", "t", "--file", str(path), *options],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_the_clients_copy_is_the_servers_table() -> None:
    assert list(client_keys.SCOPES) == SERVER
    assert list(client_keys.CALLER_SCOPES) == CALLER


def test_keys_create_offers_every_scope_and_grants_every_caller_scope(tmp_path: Path) -> None:
    path = tmp_path / "keys.toml"
    made = [keys_create(path), keys_create(path, *SERVER)]
    assert all(m.returncode == 0 for m in made), [m.stderr for m in made]
    principals = sorted(load_key_file(path).by_hash.values(), key=lambda p: p.id)
    assert [sorted(p.scopes) for p in principals] == [sorted(CALLER_SCOPES), sorted(Scope)]
    refused = keys_create(path, "runs.fly")
    assert refused.returncode != 0 and ", ".join(SERVER) in " ".join(refused.stderr.split())
    helped = subprocess.run(
        [sys.executable, "-m", "outrider.cli.main", "keys", "create", "--help"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert all(scope in helped.stdout for scope in SERVER)


def test_the_key_file_refusal_names_every_scope(tmp_path: Path) -> None:
    path = tmp_path / "keys.toml"
    entry = 'id = "a"\ntenant = "t"\nscopes = ["runs.fly"]\nhash = "sha256:' + "0" * 64 + '"'
    path.write_text(f"[[keys]]\n{entry}\n")
    with pytest.raises(ValueError, match="unknown scopes") as caught:
        load_key_file(path)
    assert str(caught.value).endswith("known: " + ", ".join(SERVER))


def _readme_rows() -> dict[str, str]:
    """README's scope table: scope -> the rest of its row."""
    text = (REPO_ROOT / "README.md").read_text()
    table = text[text.index("| Scope | gRPC | REST |") :].split("\n\n", 1)[0]
    rows = {}
    for line in table.splitlines()[2:]:
        found = re.match(r"\| `([a-z.]+)` \|(.*)", line)
        if found:
            rows[found.group(1)] = found.group(2)
    return rows


def test_readme_has_a_row_per_scope_naming_what_the_access_table_gives_it() -> None:
    rows = _readme_rows()
    assert list(rows) == SERVER
    for method, need in GRPC_METHODS.items():
        if isinstance(need, Scope) and method.startswith("/outrider."):
            assert f"`{method.rsplit('/', 1)[1]}`" in rows[need.value], (method, need)
    for (verb, path), need in REST_ROUTES.items():
        if isinstance(need, Scope):
            shown = re.sub(r"\{\w+\}", "{id}", path)
            assert shown in rows[need.value], (verb, path, need)


async def test_the_console_shows_a_keys_scopes_in_the_tables_order(tmp_path: Path) -> None:
    path = tmp_path / "keys.toml"
    key = client_keys.append_key(path, "ada", "t", list(reversed(CALLER)))
    case = await start_rest(tmp_path / "data", keys_file=path)
    try:
        async with httpx.AsyncClient(base_url=case.origin, timeout=60) as http:
            form = {"key": key}
            signed_in = await http.post(
                "/console/sign-in", data=form, headers={"Origin": case.origin}
            )
            assert signed_in.status_code == 303
            page = await http.get("/console/")
    finally:
        await case.stop()
    assert f"(tenant t; scopes {', '.join(CALLER)})" in page.text
