"""`outrider`: serve, migrate, demo, automate, research, runs list|show|cancel|delete|events,
session start|show|list|end|events, keys create, profiles, credentials, vault, webhooks ..., and
mcp (the stdio bridge for MCP clients).

Exit codes: 0 the run (or call) succeeded, 1 the run failed or was cancelled, 2 bad usage,
3 the server refused the call or could not be reached, 130 interrupted.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from outrider.cli.argv import hoist_global_options, option_arity
from outrider.cli.demo import demo
from outrider.cli.keys import keys_app
from outrider.cli.run import EXIT_OK, Config, Start, Watcher, execute, interactive
from outrider.cli.sessions import session_app
from outrider.cli.vault import vault_app
from outrider.cli.vault_commands import credentials_app, profiles_app
from outrider.cli.webhooks import webhooks_app
from outrider.client import Options, Tls, automate_params, research_params
from outrider.client.requests import RECIPE_MODES
from outrider.client.session_service import session_name
from outrider.client.vault import PROFILE_SAVES

# Plain click help (rich_markup_mode=None): typer's rich panels print a type beside every flag
# (`--json <bool>`), which reads as an option that takes a value.
app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    help="Outrider's command line.",
)
runs_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Runs: list, show, cancel, delete, events.",
)
app.add_typer(runs_app, name="runs")
app.add_typer(keys_app, name="keys")
app.add_typer(session_app, name="session")
app.add_typer(vault_app, name="vault")
app.add_typer(profiles_app, name="profiles")
app.add_typer(credentials_app, name="credentials")
app.add_typer(webhooks_app, name="webhooks")
SESSION_HELP = "Run in this session (its name or id, from `outrider session start`)."


@app.callback()
def main(
    ctx: typer.Context,
    target: Annotated[
        str, typer.Option(envvar="OUTRIDER_TARGET", help="Server address, host:port.")
    ] = "localhost:50051",
    api_key: Annotated[
        str | None, typer.Option(envvar="OUTRIDER_API_KEY", help="API key (Bearer).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="A line per event instead of per step.")
    ] = False,
    tls: Annotated[bool, typer.Option("--tls", envvar="OUTRIDER_TLS", help="Use TLS.")] = False,
    ca_file: Annotated[
        Path | None,
        typer.Option(envvar="OUTRIDER_CA_FILE", help="PEM CA to trust (implies --tls)."),
    ] = None,
    cert_file: Annotated[
        Path | None,
        typer.Option(envvar="OUTRIDER_CLIENT_CERT", help="PEM client certificate (mutual TLS)."),
    ] = None,
    key_file: Annotated[
        Path | None, typer.Option(envvar="OUTRIDER_CLIENT_KEY", help="PEM key of --cert-file.")
    ] = None,
) -> None:
    """Global options work before or after the subcommand."""
    if (cert_file is None) != (key_file is None):
        raise typer.BadParameter("give both --cert-file and --key-file", param_hint="--cert-file")
    wants_tls = tls or ca_file is not None or cert_file is not None
    tls_settings = Tls(ca_file, cert_file, key_file) if wants_tls else None
    ctx.obj = Config(target, api_key, as_json, verbose, tls_settings)


def run() -> None:
    """The `outrider` command: global options may also follow the subcommand."""
    arity = option_arity(typer.main.get_command(app).params)
    app(args=hoist_global_options(arity, sys.argv[1:]))


@app.command(
    context_settings={
        # The server parses its own options (and --help): one list, also for python -m.
        "allow_extra_args": True,
        "ignore_unknown_options": True,
        "help_option_names": [],
    }
)
def serve(ctx: typer.Context) -> None:
    """Runs the server (needs the `server` extra); `outrider serve --help` lists its options."""
    try:
        from outrider.server.__main__ import main as serve_main  # heavy and optional
    except ImportError as error:
        typer.echo(
            f"outrider serve needs the server extra (missing: {error.name or error}): "
            "pip install 'outrider[server,cli]'",
            err=True,
        )
        raise typer.Exit(2) from None
    serve_main(ctx.args, "outrider serve")


@app.command()
def migrate() -> None:
    """Applies pending store migrations (the SQLite file, or OUTRIDER_DATABASE_URL) and exits:
    run it before rolling out a new version."""
    from outrider.server.migrate import main as migrate_main  # needs the `server` extra

    raise typer.Exit(migrate_main())


@app.command("mcp")
def mcp_bridge(ctx: typer.Context) -> None:
    """Serves Outrider's MCP tools on stdin/stdout for a desktop MCP client, calling the server
    at --target over gRPC (with --api-key). Logs go to stderr."""
    from outrider.cli.mcp_bridge import serve_stdio  # needs the `mcp` package (cli extra)

    raise typer.Exit(asyncio.run(serve_stdio(ctx.obj)))


@app.command()
def automate(
    ctx: typer.Context,
    task: Annotated[str, typer.Argument(help="What the browser agent should do.")],
    url: Annotated[str, typer.Option(help="Starting URL.")] = "",
    data: Annotated[str, typer.Option(help="JSON object the agent may use.")] = "",
    guardrails: Annotated[str, typer.Option(help="Constraints in natural language.")] = "",
    interactive_: Annotated[
        bool, typer.Option("--interactive", help="Answer form requests and approvals here.")
    ] = False,
    trusted_host: Annotated[
        list[str] | None,
        typer.Option(
            "--trusted-host",
            metavar="HOST",
            help="Host where filling and submitting forms needs no approval (repeatable).",
        ),
    ] = None,
    max_iterations: Annotated[int | None, typer.Option(help="1..100.")] = None,
    screenshots: Annotated[Path | None, typer.Option(help="Folder to save screenshots in.")] = None,
    model: Annotated[str, typer.Option(help="Model for this run.")] = "",
    prompts: Annotated[
        bool, typer.Option("--prompts", help="Keep prompt bodies in ai:generation events.")
    ] = False,
    recipes: Annotated[
        str,
        typer.Option(
            help="record: keep this run as a recipe when it succeeds; replay: replay the task's "
            "recipe without the model (else record one). Needs OUTRIDER_RECIPES on the server."
        ),
    ] = "",
    request_id: Annotated[
        str | None,
        typer.Option(
            help="UUID that makes the start idempotent: the same id again (e.g. after a failed "
            "call) returns the run it started instead of starting another. Default: a new one."
        ),
    ] = None,
    session: Annotated[str, typer.Option(help=SESSION_HELP)] = "",
    profile: Annotated[str, typer.Option(help="Start from this profile's saved state.")] = "",
    profile_save: Annotated[
        str, typer.Option(help="never, on_success or always: save the state to --profile.")
    ] = "",
    credential: Annotated[
        list[str] | None,
        typer.Option("--credential", help="A credential the run may fill (repeatable)."),
    ] = None,
) -> None:
    """Runs a browser agent and shows its progress live, one line per step."""
    if recipes not in RECIPE_MODES:
        raise typer.BadParameter("off, record or replay", param_hint="--recipes")
    if profile_save not in PROFILE_SAVES:
        raise typer.BadParameter("never, on_success or always", param_hint="--profile-save")
    params = automate_params(
        task,
        url=url,
        data=_json_object(data),
        guardrails=guardrails,
        interactive=interactive_,
        max_iterations=max_iterations,
        trusted_hostnames=trusted_host or (),
    )
    options = Options(
        model=model,
        omit_prompts=not prompts,
        recipes=recipes,
        session=session_name(session),
        profile=profile,
        profile_save=profile_save,
        credentials=tuple(credential or ()),
    )
    execute(ctx, _automate(ctx.obj, Start(params, options, request_id), interactive_, screenshots))


def _json_object(text: str) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError as error:
        raise typer.BadParameter(f"not JSON: {error}", param_hint="--data") from None
    if not isinstance(value, dict):
        raise typer.BadParameter("must be a JSON object", param_hint="--data")
    return value


async def _automate(config: Config, start: Start, ask: bool, screenshots: Path | None) -> int:
    console = config.console()
    async with config.client() as client:
        watcher = Watcher(client, config.renderer(), screenshots)
        if ask:
            return await interactive(watcher, console, start)
        stream = client.stream(start.params, options=start.options, request_id=start.request_id)
        return await watcher.watch(stream)


@app.command()
def research(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="The research question.")],
    mode: Annotated[str, typer.Option(help="fast, balanced, deep, max or ultra.")] = "fast",
    model: Annotated[str, typer.Option(help="Model for this run.")] = "",
    request_id: Annotated[
        str | None,
        typer.Option(
            help="UUID that makes the start idempotent: the same id again (e.g. after a failed "
            "call) returns the run it started instead of starting another. Default: a new one."
        ),
    ] = None,
    session: Annotated[str, typer.Option(help=SESSION_HELP)] = "",
) -> None:
    """Runs a research agent, shows its phases and renders the cited report."""
    try:
        params = research_params(query, mode=mode)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--mode") from None
    options = Options(model=model, session=session_name(session))
    execute(ctx, _research(ctx.obj, Start(params, options, request_id)))


async def _research(config: Config, start: Start) -> int:
    async with config.client() as client:
        watcher = Watcher(client, config.renderer())
        stream = client.stream(start.params, options=start.options, request_id=start.request_id)
        return await watcher.watch(stream)


@runs_app.command("list")
def runs_list(
    ctx: typer.Context, limit: Annotated[int, typer.Option(help="How many runs.")] = 20
) -> None:
    """Lists runs, newest first."""
    execute(ctx, _list(ctx.obj, limit))


async def _list(config: Config, limit: int) -> int:
    async with config.client() as client:
        page = await client.list_runs(page_size=limit)
        config.renderer().runs(page.items)
    return EXIT_OK


@runs_app.command("show")
def runs_show(ctx: typer.Context, run: Annotated[str, typer.Argument()]) -> None:
    """Shows one run."""
    execute(ctx, _show(ctx.obj, run))


async def _show(config: Config, run: str) -> int:
    async with config.client() as client:
        config.renderer().run(await client.get_run(run))
    return EXIT_OK


@runs_app.command("cancel")
def runs_cancel(
    ctx: typer.Context,
    run: Annotated[str, typer.Argument()],
    reason: Annotated[str, typer.Option()] = "cancelled from the command line",
) -> None:
    """Cancels a run (idempotent)."""
    execute(ctx, _cancel(ctx.obj, run, reason))


async def _cancel(config: Config, run: str, reason: str) -> int:
    async with config.client() as client:
        config.renderer().run(await client.cancel_run(run, reason=reason))
    return EXIT_OK


@runs_app.command("delete")
def runs_delete(ctx: typer.Context, run: Annotated[str, typer.Argument()]) -> None:
    """Deletes a finished run with its events, interactions and artifacts (cancel it first)."""
    execute(ctx, _delete(ctx.obj, run))


async def _delete(config: Config, run: str) -> int:
    async with config.client() as client:
        deleted = await client.delete_run(run)
    config.renderer().deleted(deleted.run, deleted.freed_artifact_bytes)
    return EXIT_OK


@runs_app.command("events")
def runs_events(
    ctx: typer.Context,
    run: Annotated[str, typer.Argument()],
    after: Annotated[int, typer.Option(help="Only events with a greater sequence.")] = 0,
    screenshots: Annotated[Path | None, typer.Option(help="Folder for screenshots.")] = None,
) -> None:
    """Prints a run's events after a sequence, then follows it live until it ends."""
    execute(ctx, _events(ctx.obj, run, after, screenshots))


async def _events(config: Config, run: str, after: int, screenshots: Path | None) -> int:
    async with config.client() as client:
        watcher = Watcher(client, config.renderer(), screenshots)
        watcher.run = run if run.startswith("runs/") else f"runs/{run}"
        return await watcher.watch(client.events(run, after=after))


app.command()(demo)

if __name__ == "__main__":
    run()
