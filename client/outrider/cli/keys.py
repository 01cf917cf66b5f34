"""`outrider keys create`: a new API key, printed once; its hash is appended to the key file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from outrider.client.keys import ADMIN, CALLER_SCOPES, SCOPES, append_key

keys_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="API keys of the key file (OUTRIDER_KEYS_FILE).",
)


@keys_app.command("create")
def create(
    principal_id: Annotated[str, typer.Option("--id", help="Principal id, e.g. billing-worker.")],
    tenant: Annotated[str, typer.Option(help="Tenant whose runs the key may see.")],
    file: Annotated[
        Path, typer.Option(envvar="OUTRIDER_KEYS_FILE", help="TOML key file to append to.")
    ],
    scope: Annotated[
        list[str] | None,
        typer.Option(
            help=f"Repeatable; default every caller scope (all but {ADMIN}). One of "
            f"{', '.join(SCOPES)}."
        ),
    ] = None,
    max_concurrent_runs: Annotated[int | None, typer.Option(min=0)] = None,
    starts_per_minute: Annotated[float | None, typer.Option(min=0)] = None,
    start_burst: Annotated[int | None, typer.Option(min=1)] = None,
) -> None:
    """Creates a key, appends its entry (hash only) to the file and prints the key once."""
    scopes = list(scope or CALLER_SCOPES)
    unknown = sorted(set(scopes) - set(SCOPES))
    if unknown:
        known = ", ".join(SCOPES)
        raise typer.BadParameter(f"unknown scopes {unknown}; known: {known}", param_hint="--scope")
    if file.suffix not in ("", ".toml"):
        raise typer.BadParameter("keys are appended to TOML files only", param_hint="--file")
    limits = {
        name: value
        for name, value in (
            ("max_concurrent_runs", max_concurrent_runs),
            ("starts_per_minute", starts_per_minute),
            ("start_burst", start_burst),
        )
        if value is not None
    }
    key = append_key(file, principal_id, tenant, scopes, limits)
    typer.echo(key)
    typer.echo(
        f"key of {principal_id} ({tenant}) added to {file}; it is shown only now. "
        "Send SIGHUP to a running server to load it.",
        err=True,
    )
