"""`outrider vault new-key|rotate`: the vault's master keys, on the server's machine (they need the
`server` extra and the server's settings: OUTRIDER_VAULT_KEYS and the store)."""

from __future__ import annotations

from typing import Annotated

import typer

vault_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="The vault's master keys (server side): make one, rotate to a new one.",
)


@vault_app.command("new-key")
def new_key(
    key_id: Annotated[str, typer.Argument(help="The key's id, e.g. 2026-05.")],
) -> None:
    """Prints a new master key as `id:base64-key`, for OUTRIDER_VAULT_KEYS or its file."""
    from outrider.server.vault_admin import new_key as make

    raise typer.Exit(make(key_id))


@vault_app.command("rotate")
def rotate() -> None:
    """Re-wraps every data key under the first key of OUTRIDER_VAULT_KEYS (or its file); the
    contents stay sealed. Prints counts and key ids only."""
    from outrider.server.vault_admin import rotate_keys

    raise typer.Exit(rotate_keys())
