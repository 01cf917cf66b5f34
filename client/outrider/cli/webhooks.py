"""`outrider webhooks ...`: the tenant's webhook endpoints (create, list, show, enable, disable,
delete, rotate) and their deliveries (deliveries, resend), over gRPC with the global options."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Annotated, Any

import typer
from google.protobuf import json_format
from google.protobuf.message import Message

from outrider.cli.run import EXIT_OK, Config, execute
from outrider.client import AsyncClient
from outrider.v1 import webhook_pb2 as wp

webhooks_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Webhook endpoints: create, list, show, enable, disable, delete, rotate, deliveries, "
    "resend.",
)
Endpoint = Annotated[str, typer.Argument(help="The endpoint's id or name.")]


def _call(ctx: typer.Context, work: Callable[[AsyncClient], Awaitable[Any]]) -> None:
    """Runs one call and prints what it returns, one JSON object per line."""
    config: Config = ctx.obj

    async def main() -> int:
        async with config.client() as client:
            result = await work(client)
        for item in result if isinstance(result, list) else [result]:
            typer.echo(json.dumps(_plain(item)))
        return EXIT_OK

    execute(ctx, main())


def _plain(item: Any) -> Any:
    if isinstance(item, Message):
        return json_format.MessageToDict(item)
    if isinstance(item, tuple):  # (endpoint, secret)
        return {"endpoint": _plain(item[0]), "secret": item[1]}
    return item


@webhooks_app.command("create")
def create(
    ctx: typer.Context,
    url: Annotated[str, typer.Argument(help="Where deliveries go (http or https).")],
    event: Annotated[
        list[str] | None,
        typer.Option(help="An event type it wants (repeatable; default: every type)."),
    ] = None,
    description: Annotated[str, typer.Option(help="What it is for.")] = "",
    answer_links: Annotated[
        bool, typer.Option("--answer-links", help="Questions carry their one-time answer link.")
    ] = False,
) -> None:
    """Creates an endpoint; prints it with its signing secret (shown this once)."""
    _call(ctx, lambda c: c.webhooks.create(url, event or (), description=description,
                                           carry_answer_links=answer_links))  # fmt: skip


@webhooks_app.command("list")
def list_endpoints(ctx: typer.Context) -> None:
    """Lists the tenant's endpoints, oldest first."""

    async def every(client: AsyncClient) -> list[wp.WebhookEndpoint]:
        found, token = await client.webhooks.list_endpoints()
        while token:
            more, token = await client.webhooks.list_endpoints(page_token=token)
            found += more
        return found

    _call(ctx, every)


@webhooks_app.command("show")
def show(ctx: typer.Context, endpoint: Endpoint) -> None:
    """Shows one endpoint."""
    _call(ctx, lambda c: c.webhooks.get(endpoint))


@webhooks_app.command("enable")
def enable(ctx: typer.Context, endpoint: Endpoint) -> None:
    """Enables an endpoint again (after it was disabled by hand or by failing deliveries)."""
    _call(ctx, lambda c: c.webhooks.update(endpoint, enabled=True))


@webhooks_app.command("disable")
def disable(ctx: typer.Context, endpoint: Endpoint) -> None:
    """Disables an endpoint: deliveries to it wait until it is enabled again."""
    _call(ctx, lambda c: c.webhooks.update(endpoint, enabled=False))


@webhooks_app.command("delete")
def delete(ctx: typer.Context, endpoint: Endpoint) -> None:
    """Deletes an endpoint and its deliveries."""
    _call(ctx, lambda c: c.webhooks.delete(endpoint))


@webhooks_app.command("rotate")
def rotate(
    ctx: typer.Context,
    endpoint: Endpoint,
    overlap: Annotated[
        float, typer.Option(help="Hours the previous secret keeps signing beside the new one.")
    ] = 24.0,
) -> None:
    """Makes a new signing secret; prints it (shown this once)."""
    _call(ctx, lambda c: c.webhooks.rotate(endpoint, timedelta(hours=overlap)))


@webhooks_app.command("deliveries")
def deliveries(
    ctx: typer.Context,
    endpoint: Endpoint,
    limit: Annotated[int, typer.Option(help="How many, newest first.")] = 20,
) -> None:
    """Lists an endpoint's deliveries, newest first: state, attempts, response code, latency."""

    async def newest(client: AsyncClient) -> list[wp.WebhookDelivery]:
        return (await client.webhooks.deliveries(endpoint, page_size=limit))[0]

    _call(ctx, newest)


@webhooks_app.command("resend")
def resend(
    ctx: typer.Context,
    endpoint: Endpoint,
    message_id: Annotated[str, typer.Argument(help="The delivery's message id (webhook-id).")],
) -> None:
    """Sends a delivery again, with the same webhook-id."""
    _call(ctx, lambda c: c.webhooks.resend(endpoint, message_id))
