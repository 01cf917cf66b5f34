"""`outrider profiles list|show|create|delete|login` and `outrider credentials
set|list|show|delete|uses`: the tenant's profiles and credentials. A credential's password and
TOTP seed are read from a hidden prompt or from stdin (--stdin), never from the command line."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from outrider.cli.run import EXIT_OK, Config, execute
from outrider.client.vault import credential_name, profile_name
from outrider.v1 import credential_pb2, profile_pb2

profiles_app = typer.Typer(
    no_args_is_help=True, rich_markup_mode=None, help="Profiles: saved browser state."
)
credentials_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Credentials: write-only secrets bound to origins.",
)
_PROFILE_COLUMNS = ("NAME", "VERSION", "COOKIES", "ORIGINS", "UPDATED", "LAST USED", "WRITER")
_CREDENTIAL_COLUMNS = ("NAME", "PARTS", "ORIGINS", "UPDATED", "LAST USED")
_USE_COLUMNS = ("TIME", "CREDENTIAL", "RUN", "ORIGIN", "FIELD", "FILLED")


def _time(stamp: Any, present: bool = True) -> str:
    return stamp.ToDatetime().strftime("%Y-%m-%d %H:%M:%S") if present else "-"


def _profile_row(p: profile_pb2.Profile) -> tuple[str, ...]:
    used = _time(p.last_used_time, p.HasField("last_used_time"))
    origins = ",".join(p.origins) or "-"
    return (p.name, str(p.version), str(p.cookie_count), origins, _time(p.update_time), used,
            p.writer or "-")  # fmt: skip


def _credential_row(c: credential_pb2.Credential) -> tuple[str, ...]:
    parts = [n for n, has in (("username", c.has_username), ("password", c.has_password),
                              ("totp", c.has_totp)) if has]  # fmt: skip
    used = _time(c.last_used_time, c.HasField("last_used_time"))
    return (c.name, ",".join(parts), ",".join(c.origins), _time(c.update_time), used)


@profiles_app.command("list")
def profiles_list(ctx: typer.Context, limit: Annotated[int, typer.Option()] = 50) -> None:
    """Lists the tenant's profiles (metadata only)."""

    async def work(config: Config) -> int:
        async with config.client() as client:
            found = (await client.profiles.list(page_size=limit)).profiles
        config.renderer().items(found, _PROFILE_COLUMNS, [_profile_row(p) for p in found])
        return EXIT_OK

    execute(ctx, work(ctx.obj))


@profiles_app.command("show")
def profiles_show(ctx: typer.Context, profile: Annotated[str, typer.Argument()]) -> None:
    """Shows one profile's metadata."""

    async def work(config: Config) -> int:
        async with config.client() as client:
            found = await client.profiles.get(profile)
        config.renderer().items([found], _PROFILE_COLUMNS, [_profile_row(found)])
        return EXIT_OK

    execute(ctx, work(ctx.obj))


@profiles_app.command("create")
def profiles_create(
    ctx: typer.Context,
    profile: Annotated[str, typer.Argument(help="Its id: a-z, 0-9, '-', '_'.")],
    check_url: Annotated[str, typer.Option(help="A page only a signed-in user sees.")] = "",
    check_text: Annotated[str, typer.Option(help="Text that page shows when signed in.")] = "",
) -> None:
    """Creates an empty profile, optionally with a check of its sign-in."""

    async def work(config: Config) -> int:
        async with config.client() as client:
            made = await client.profiles.create(
                profile.removeprefix("profiles/"), check_url=check_url, check_text=check_text
            )
        config.renderer().items([made], _PROFILE_COLUMNS, [_profile_row(made)])
        return EXIT_OK

    execute(ctx, work(ctx.obj))


@profiles_app.command("delete")
def profiles_delete(ctx: typer.Context, profile: Annotated[str, typer.Argument()]) -> None:
    """Deletes a profile and its saved state."""

    async def work(config: Config) -> int:
        async with config.client() as client:
            await client.profiles.delete(profile)
        config.console().print(f"deleted {profile_name(profile)}")
        return EXIT_OK

    execute(ctx, work(ctx.obj))


@profiles_app.command("login")
def profiles_login(
    ctx: typer.Context,
    profile: Annotated[str, typer.Argument()],
    url: Annotated[
        str, typer.Option(help="The login page; the profile's check page if unset.")
    ] = "",
) -> None:
    """Opens a browser with no agent for a person to log in (take it over in the console or
    with the API); the state is saved to the profile when they hand it back. Prints the run."""

    async def work(config: Config) -> int:
        async with config.client() as client:
            run = await client.profiles.start_login(profile, url=url)
        config.renderer().run(run)
        return EXIT_OK

    execute(ctx, work(ctx.obj))


def _read_secrets(totp: bool, from_stdin: bool) -> tuple[str, str]:
    """(password, TOTP seed) from stdin lines (password first) or hidden prompts."""
    if from_stdin:
        lines = sys.stdin.read().splitlines()
        password = lines[0] if lines else ""
        seed = lines[1] if totp and len(lines) > 1 else ""
        return password, seed
    password = typer.prompt("Password (empty: none)", hide_input=True, default="",
                            show_default=False)  # fmt: skip
    seed = typer.prompt("TOTP seed or otpauth:// URI", hide_input=True) if totp else ""
    return password, seed


@credentials_app.command("set")
def credentials_set(
    ctx: typer.Context,
    credential: Annotated[str, typer.Argument(help="Its id: a-z, 0-9, '-', '_'.")],
    origin: Annotated[
        list[str], typer.Option("--origin", help="Where it may be filled (repeatable).")
    ],
    username: Annotated[str, typer.Option(help="The username or email.")] = "",
    totp: Annotated[bool, typer.Option("--totp", help="Also ask for a TOTP seed.")] = False,
    stdin: Annotated[
        bool, typer.Option("--stdin", help="Read the password (then the seed) from stdin lines.")
    ] = False,
) -> None:
    """Creates or replaces a credential. The password and seed are asked for (hidden) or read
    from stdin, never taken from the command line."""
    password, seed = _read_secrets(totp, stdin)

    async def work(config: Config) -> int:
        async with config.client() as client:
            answer = await client.credentials.set(
                credential, origin, username=username, password=password, totp_seed=seed
            )
        made = answer.credential
        config.renderer().items([made], _CREDENTIAL_COLUMNS, [_credential_row(made)])
        return EXIT_OK

    execute(ctx, work(ctx.obj))


@credentials_app.command("list")
def credentials_list(ctx: typer.Context, limit: Annotated[int, typer.Option()] = 50) -> None:
    """Lists the tenant's credentials: names, parts, origins, last use; never values."""

    async def work(config: Config) -> int:
        async with config.client() as client:
            found = (await client.credentials.list(page_size=limit)).credentials
        config.renderer().items(found, _CREDENTIAL_COLUMNS, [_credential_row(c) for c in found])
        return EXIT_OK

    execute(ctx, work(ctx.obj))


@credentials_app.command("delete")
def credentials_delete(ctx: typer.Context, credential: Annotated[str, typer.Argument()]) -> None:
    """Deletes a credential (its audit trail stays)."""

    async def work(config: Config) -> int:
        async with config.client() as client:
            await client.credentials.delete(credential)
        config.console().print(f"deleted {credential_name(credential)}")
        return EXIT_OK

    execute(ctx, work(ctx.obj))


@credentials_app.command("uses")
def credentials_uses(
    ctx: typer.Context,
    credential: Annotated[str, typer.Option(help="Only this credential.")] = "",
    run: Annotated[str, typer.Option(help="Only this run, runs/{id}.")] = "",
    limit: Annotated[int, typer.Option()] = 50,
) -> None:
    """The audit trail: every fill and every refused one, newest first."""

    async def work(config: Config) -> int:
        async with config.client() as client:
            uses = (await client.credentials.uses(credential=credential, run=run,
                                                  page_size=limit)).uses  # fmt: skip
        rows: list[tuple[str, ...]] = [
            (_time(u.time), u.credential, u.run, u.origin, u.field_kind,
             "yes" if u.filled else f"no ({u.refusal_reason})")
            for u in uses
        ]  # fmt: skip
        config.renderer().items(uses, _USE_COLUMNS, rows)
        return EXIT_OK

    execute(ctx, work(ctx.obj))
