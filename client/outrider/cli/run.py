"""Driving one run from the terminal: stream, save screenshots, ask the person, decide the exit."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from outrider.cli.asking import Asker
from outrider.cli.render import Renderer
from outrider.client import AsyncClient, Options, RPCError, Tls
from outrider.client.aio import Params
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_event_pb2, run_pb2

EXIT_OK, EXIT_RUN_FAILED, EXIT_CALL_FAILED = 0, 1, 3


def execute(ctx: typer.Context, work: Coroutine[Any, Any, int]) -> None:
    """Runs a command's coroutine and exits with its code (3 when the server refused)."""
    config: Config = ctx.obj
    try:
        code = asyncio.run(work)
    except RPCError as error:
        config.renderer().error(error)
        code = EXIT_CALL_FAILED
    except KeyboardInterrupt:
        code = 130
    raise typer.Exit(code)


@dataclass(frozen=True)
class Config:
    target: str
    api_key: str | None
    as_json: bool
    verbose: bool = False
    tls: Tls | None = None

    def client(self) -> AsyncClient:
        return AsyncClient(self.target, api_key=self.api_key, tls=self.tls)

    def renderer(self) -> Renderer:
        return Renderer(self.console(), self.as_json, self.verbose)

    def console(self) -> Console:
        """Prompts and messages go to stderr when stdout carries JSON."""
        return Console(stderr=self.as_json, highlight=False)


@dataclass(frozen=True)
class Start:
    """What to start: the run's parameters, options and request id (None: a new one)."""

    params: Params
    options: Options
    request_id: str | None = None


@dataclass
class Watcher:
    client: AsyncClient
    renderer: Renderer
    screenshots: Path | None = None
    run: str = ""

    async def show(self, event: run_event_pb2.RunEvent) -> None:
        self.run = event.run
        self.renderer.event(event)
        if self.screenshots is not None and event.artifact:
            await self._save(event)

    async def _save(self, event: run_event_pb2.RunEvent) -> None:
        assert self.screenshots is not None
        jpeg = event.automate.browser_screenshot_captured.format == ae.SCREENSHOT_FORMAT_JPEG
        self.screenshots.mkdir(parents=True, exist_ok=True)
        path = self.screenshots / f"{event.sequence:05d}.{'jpg' if jpeg else 'png'}"
        path.write_bytes(await self.client.read_artifact(event.artifact))
        self.renderer.screenshot(path)

    async def watch(self, stream: AsyncIterator[run_event_pb2.RunEvent]) -> int:
        async for event in stream:
            await self.show(event)
        return await self.exit_code()

    async def exit_code(self) -> int:
        """From the run's final state, which also completes its outcome line."""
        state: int | None = None
        try:
            if self.run:
                state = (await self.client.get_run(self.run)).state
        finally:
            self.renderer.finish(state)
        return EXIT_OK if state == run_pb2.RUN_STATE_SUCCEEDED else EXIT_RUN_FAILED


async def interactive(watcher: Watcher, console: Console, start: Start) -> int:
    """The run over the bidirectional stream, asking the person for values and decisions."""
    session = watcher.client.interact(
        start.params, options=start.options, request_id=start.request_id
    )
    with terminal_restored():
        async with session:
            asker = Asker(session, console)
            try:
                async for event in session:
                    await watcher.show(event)
                    asker.handle(event)
            except BaseException:
                asker.abandon()
                raise
            await asker.close()
    return await watcher.exit_code()


@contextmanager
def terminal_restored() -> Iterator[None]:
    """Puts the terminal's settings back on the way out: a password prompt interrupted by Ctrl-C
    must not leave the shell without echo."""
    if not sys.stdin.isatty():
        yield
        return
    import termios

    saved = termios.tcgetattr(sys.stdin)
    try:
        yield
    finally:
        termios.tcsetattr(sys.stdin, termios.TCSADRAIN, saved)
