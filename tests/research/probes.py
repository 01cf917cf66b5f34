"""Probing the renderer's network guard: listeners on refused addresses that count what reaches
them, and the fixture page (tests/fixtures/probes/probe.html) that tries to reach them from inside
Chromium by every way we know: WebSockets, an iframe and a fetch() behind a 302, a plain image,
WebRTC ICE servers (STUN/TURN over UDP and TCP) and WebTransport."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urlencode

from playwright.async_api import async_playwright

from outrider.server.chromium import CHROMIUM_FLAGS
from outrider.server.settings import Settings
from tests.support.harness import REPO_ROOT
from tests.support.ports import free_port

PROBES_DIR = REPO_ROOT / "tests" / "fixtures" / "probes"
PROBES = ("socket", "frame", "fetched", "image", "ice", "transport")


@dataclass
class Reached:
    """What reached the listeners: TCP connections by (host, first request line or "?"), UDP
    datagrams by host."""

    tcp: Counter[tuple[str, str]] = field(default_factory=Counter)
    udp: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return sum(self.tcp.values()) + sum(self.udp.values())

    def paths(self) -> set[str]:
        return {line.split(" ")[1] for _, line in self.tcp if line.count(" ") >= 2}


class _Datagrams(asyncio.DatagramProtocol):
    def __init__(self, reached: Reached, host: str) -> None:
        self._reached, self._host = reached, host

    def datagram_received(self, data: bytes, addr: tuple[str | int, ...]) -> None:
        self._reached.udp[self._host] += 1


@dataclass
class Listeners:
    port: int
    reached: Reached


@contextlib.asynccontextmanager
async def listeners(hosts: Iterable[str], port: int = 0) -> AsyncIterator[Listeners]:
    """TCP and UDP listeners on one port of every host; the port is free on all when 0."""
    reached = Reached()
    async with contextlib.AsyncExitStack() as stack:
        chosen = await _bind_all(stack, list(hosts), port, reached)
        yield Listeners(chosen, reached)


async def _bind_all(
    stack: contextlib.AsyncExitStack, hosts: list[str], port: int, reached: Reached
) -> int:
    for _ in range(20):
        chosen = port or free_port(hosts[0])
        attempt = contextlib.AsyncExitStack()
        try:
            for host in hosts:
                await _listen(attempt, host, chosen, reached)
        except OSError:
            await attempt.aclose()
            if port:
                raise
            continue
        await stack.enter_async_context(attempt)
        return chosen
    raise RuntimeError("no port was free on every host")


async def _listen(stack: contextlib.AsyncExitStack, host: str, port: int, reached: Reached) -> None:
    handlers: set[asyncio.Task[None]] = set()
    server = await asyncio.start_server(_counter(reached, host, handlers), host, port)
    stack.push_async_callback(_stop, server, handlers)
    datagrams, _ = await asyncio.get_running_loop().create_datagram_endpoint(
        functools.partial(_Datagrams, reached, host), local_addr=(host, port)
    )
    stack.callback(datagrams.close)


Accept = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def _counter(reached: Reached, host: str, handlers: set[asyncio.Task[None]]) -> Accept:
    """Counts a connection by its first line, then closes it."""

    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            handlers.add(task)
            task.add_done_callback(handlers.discard)
        line = "?"
        with contextlib.suppress(TimeoutError, ConnectionError, ValueError):
            first = await asyncio.wait_for(reader.readline(), 2)
            line = first.decode("latin-1").strip() or "?"
        reached.tcp[(host, line)] += 1
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()

    return accepted


async def _stop(server: asyncio.Server, handlers: set[asyncio.Task[None]]) -> None:
    """Stops listening and ends handlers still reading (3.11's wait_closed leaves them)."""
    server.close()
    await server.wait_closed()
    for task in handlers:
        task.cancel()
    await asyncio.gather(*handlers, return_exceptions=True)


def probe_url(base: str, targets: Iterable[str], probes: Iterable[str] = ()) -> str:
    """The probe page at `base` aimed at `targets` ("host:port", "[::1]:port")."""
    query = [("t", target) for target in targets] + [("p", probe) for probe in probes]
    return f"{base}/probe.html?{urlencode(query)}"


def outcomes(html: str) -> list[str]:
    """The page's own account of its attempts ("socket 10.9.9.9:80: error", ...); the page only
    writes it once every attempt has settled, so an empty list means it did not finish."""
    _, done, lines = html.partition("probes done\n")
    return lines.split("</pre>")[0].splitlines() if done else []


async def render_unguarded(url: str) -> str:
    """The control: the probe page in Chromium without proxy, request routing or WebRTC policy
    (how nothing should render), read once the page has finished its attempts."""
    flags = [flag for flag in CHROMIUM_FLAGS if not flag.startswith("--webrtc-")]
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(Settings().chromium_path), args=flags
        )
        try:
            page = await browser.new_page()
            await page.goto(url)
            await page.wait_for_function("document.body.innerText.includes('probes done')")
            return await page.content()
        finally:
            await browser.close()
