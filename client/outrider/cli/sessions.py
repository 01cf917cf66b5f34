"""`outrider session start|show|list|end|events`: sessions, a browser (or a research thread) the
server keeps between runs. `outrider automate --session NAME` (and `research --session`) runs in
one: the run starts on the session's page, with its cookies, and knows the earlier runs."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Annotated

import typer
from google.protobuf import json_format
from google.protobuf.message import Message

from outrider.cli.run import EXIT_OK, Config, execute
from outrider.client.session_service import KINDS
from outrider.v1 import run_pb2, session_pb2

session_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Sessions: a browser or a research thread kept between runs (start, show, list, end, "
    "events).",
)


@session_app.command("start")
def start(
    ctx: typer.Context,
    kind: Annotated[str, typer.Option(help="automate (a live browser) or research.")] = "automate",
    url: Annotated[str, typer.Option(help="The browser's first page.")] = "",
    idle_timeout: Annotated[
        int | None, typer.Option(help="Seconds without a run before it ends.")
    ] = None,
    max_life: Annotated[int | None, typer.Option(help="Seconds it may live in all.")] = None,
    profile: Annotated[
        str, typer.Option(help="Start the browser from this profile's saved state (read only).")
    ] = "",
    request_id: Annotated[
        str,
        typer.Option(
            help="UUID that makes the start idempotent: the same id again (e.g. after a failed "
            "call) returns the session it started instead of starting another. Default: none."
        ),
    ] = "",
) -> None:
    """Creates a session and prints it; pass its name to `automate --session`."""
    if kind not in KINDS:
        raise typer.BadParameter("automate or research", param_hint="--kind")
    lives = (_seconds(idle_timeout), _seconds(max_life))
    execute(ctx, _start(ctx.obj, kind, url, lives, profile, request_id))


async def _start(
    config: Config,
    kind: str,
    url: str,
    lives: tuple[timedelta | None, timedelta | None],
    profile: str,
    request_id: str,
) -> int:
    async with config.client() as client:
        session = await client.sessions.create(
            kind,
            start_url=url,
            idle_timeout=lives[0],
            max_life=lives[1],
            profile=profile,
            request_id=request_id,
        )
    _print(config, session)
    return EXIT_OK


@session_app.command("show")
def show(ctx: typer.Context, session: Annotated[str, typer.Argument()]) -> None:
    """Shows one session."""
    execute(ctx, _show(ctx.obj, session))


async def _show(config: Config, session: str) -> int:
    async with config.client() as client:
        _print(config, await client.sessions.get(session))
    return EXIT_OK


@session_app.command("list")
def list_sessions(
    ctx: typer.Context, limit: Annotated[int, typer.Option(help="How many sessions.")] = 20
) -> None:
    """Lists sessions, newest first."""
    execute(ctx, _list(ctx.obj, limit))


async def _list(config: Config, limit: int) -> int:
    async with config.client() as client:
        sessions, _ = await client.sessions.list(page_size=limit)
    if config.as_json:
        for session in sessions:
            _print(config, session)
        return EXIT_OK
    for session in sessions:
        config.console().print(_row(session), markup=False, highlight=False, soft_wrap=True)
    return EXIT_OK


@session_app.command("end")
def end(
    ctx: typer.Context,
    session: Annotated[str, typer.Argument()],
    reason: Annotated[str, typer.Option(help="Why.")] = "",
) -> None:
    """Ends a session (its active run is cancelled first)."""
    execute(ctx, _end(ctx.obj, session, reason))


async def _end(config: Config, session: str, reason: str) -> int:
    async with config.client() as client:
        _print(config, await client.sessions.end(session, reason=reason))
    return EXIT_OK


@session_app.command("events")
def events(
    ctx: typer.Context,
    session: Annotated[str, typer.Argument()],
    after: Annotated[int, typer.Option(help="Only events after this sequence.")] = 0,
) -> None:
    """Prints the session's events (its runs' too) until it ends, one JSON object per line."""
    execute(ctx, _events(ctx.obj, session, after))


async def _events(config: Config, session: str, after: int) -> int:
    async with config.client() as client:
        async for event in client.sessions.events(session, after=after):
            print(json.dumps(json_format.MessageToDict(event)), flush=True)
    return EXIT_OK


def _print(config: Config, message: Message) -> None:
    if config.as_json:
        print(json.dumps(json_format.MessageToDict(message)), flush=True)
        return
    config.console().print(json_format.MessageToJson(message, indent=2), markup=False)


def _row(session: session_pb2.Session) -> str:
    kind = run_pb2.RunKind.Name(session.kind).removeprefix("RUN_KIND_").lower()
    state = session_pb2.SessionState.Name(session.state).removeprefix("SESSION_STATE_").lower()
    created = session.create_time.ToDatetime().isoformat(timespec="seconds") + "Z"
    return f"{kind}  {state}  {created}  runs={session.run_count}  {session.name}"


def _seconds(value: int | None) -> timedelta | None:
    return None if value is None else timedelta(seconds=value)
