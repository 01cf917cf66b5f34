"""Sessions (issue 35): a follow-up in a session against a fresh run that must redo the
navigation (model calls, billed tokens, wall time), memory per idle browser session, and the time
from a session's creation to its first run's first event.

The production server (real Chromium, gRPC on loopback) runs as a child process
(bench/browser_server.py), talking through its real OpenAI adapter to a fake provider in this
process that plays the model (bench/batching_tasks.WirePlayer): each answer waits --latency
seconds, and what OpenAI would bill (GPT-4.1's prices, its prompt cache over the run's own
requests) is worked out from each request's bytes (bench/cache_billing.py). The site is the cart
shop of the tests (tests/support/cart_shop.py), whose cart lives under a session cookie.

- Follow-up: a session's first run logs in, opens Mugs, the Red Mug, and puts it in the cart (not
  measured); its second run is told "Now check out" and, on the cart page the first left, checks
  out. Against it, a fresh run given the whole task (log in, find the mug, add it, check out): the
  script lengths a model needs for each, one batched turn for the login form. Pairs alternate.
- Memory: --sessions idle browser sessions on the shop page; the server's process tree (the
  server, Playwright's driver, Chromium and its renderers) measured from /proc before and after.
- Start to first event: CreateSession, then a run in it, until the run's first event, against a
  fresh run's first event.

Run from the repo root (tiktoken and bpe-openai installed, see docs/benchmarks.md):
`.venv/bin/python -m bench.bench_sessions [--rounds 3] [--latency 1] [--sessions 8]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import AsyncGenerator
from contextlib import ExitStack
from dataclasses import dataclass, field

from bench import browser_procs as procs
from bench.batching_tasks import Call, Played, WirePlayer, ref
from bench.bench_batching import provider_env
from bench.browser_report import table
from bench.browser_runs import channel
from bench.browser_server import REPO_ROOT, ServerProcess
from bench.browser_tokens import O200K, token_counter
from bench.cache_billing import GPT_41
from outrider.v1 import params_pb2, run_pb2, run_service_pb2, run_service_pb2_grpc
from outrider.v1 import session_service_pb2 as ss
from outrider.v1 import session_service_pb2_grpc as ssg
from tests.models.fake_providers import FakeProvider, serve
from tests.support.cart_shop import cart_shop

EMAIL = "ada@example.com"
FIRST = f"Log in as {EMAIL}, find the Red Mug under Mugs and put it in the cart."
FOLLOW_UP = "Now check out."
FRESH = f"Log in as {EMAIL}, find the Red Mug under Mugs, put it in the cart and check out."
LOGIN: list[Call] = [
    ("fill", {"ref": ref('input "Member email"'), "value": EMAIL}),
    ("click", {"ref": ref('button "Log in"')}),
]
TO_THE_CART: list[list[Call]] = [
    [("click", {"ref": ref('link "Log in"')})],
    LOGIN,
    [("click", {"ref": ref('link "Mugs"')})],
    [("click", {"ref": ref('link "Red Mug"')})],
    [("click", {"ref": ref('button "Add Red Mug to cart"')})],
]
CHECK_OUT: list[list[Call]] = [
    [("click", {"ref": ref('button "Check out"')})],
    [("done", {"answer": "Order placed: Red Mug."})],
]


PROBLEMS: list[list[str]] = []


@dataclass
class Side:
    calls: list[int] = field(default_factory=list)
    billed: list[float] = field(default_factory=list)  # GPT-4.1 token-equivalents, cold cache
    warm: list[float] = field(default_factory=list)  # with the earlier runs' requests cached
    tokens: list[str] = field(default_factory=list)  # input/cached/output of the first round
    seconds: list[float] = field(default_factory=list)


async def events(
    target: str, request: run_service_pb2.AutomateRequest
) -> AsyncGenerator[str, None]:
    """The run's event names as they come (the first one, then the rest)."""
    async with channel(target) as chan:
        async for response in run_service_pb2_grpc.RunServiceStub(chan).Automate(request):
            if response.HasField("event"):
                event = response.event
                if event.automate.HasField("complete") and not event.automate.complete.success:
                    why = event.automate.complete.error.message
                    raise RuntimeError(f"a run failed: {why} {PROBLEMS}")
                yield event.WhichOneof("payload") or ""


def automate(task: str, url: str = "", session: str = "") -> run_service_pb2.AutomateRequest:
    return run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(task=task, url=url, trusted_hostnames=["127.0.0.1"]),
        options=params_pb2.RunOptions(session=session),
    )


async def run_to_end(target: str, request: run_service_pb2.AutomateRequest) -> float:
    began = time.perf_counter()
    async for _ in events(target, request):
        pass
    return time.perf_counter() - began


async def create_session(target: str, url: str) -> str:
    async with channel(target) as chan:
        request = ss.CreateSessionRequest(kind=run_pb2.RUN_KIND_AUTOMATE, start_url=url)
        created = await ssg.SessionServiceStub(chan).CreateSession(request)
        return str(created.session.name)


async def end_session(target: str, name: str) -> None:
    async with channel(target) as chan:
        await ssg.SessionServiceStub(chan).EndSession(ss.EndSessionRequest(name=name))


class Bench:
    def __init__(self, server: ServerProcess, player: WirePlayer, shop: str) -> None:
        self.server, self.player, self.shop = server, player, shop
        self.sides = {"follow-up in a session": Side(), "fresh run, navigation again": Side()}

    def played(self, turns: list[list[Call]], expect: str) -> Played:
        played = self.player.start(turns, expect)
        PROBLEMS[:] = [played.problems]  # shown when a run fails
        return played

    async def round(self) -> None:
        target = self.server.target
        session = await create_session(target, f"{self.shop}/")
        self.played([*TO_THE_CART, [("done", {"answer": "In the cart."})]], "Your cart")
        await run_to_end(target, automate(FIRST, session=session))
        played = self.played(CHECK_OUT, "Order")
        seconds = await run_to_end(target, automate(FOLLOW_UP, session=session))
        self._keep("follow-up in a session", played, seconds)
        await end_session(target, session)
        played = self.played([*TO_THE_CART, *CHECK_OUT], "Order")
        seconds = await run_to_end(target, automate(FRESH, url=f"{self.shop}/"))
        self._keep("fresh run, navigation again", played, seconds)

    def _keep(self, side: str, played: Played, seconds: float) -> None:
        if played.problems:
            raise RuntimeError(f"{side}: {played.problems}")
        kept = self.sides[side]
        kept.calls.append(played.calls)
        kept.billed.append(GPT_41.token_equivalents(played.bill))
        kept.warm.append(GPT_41.token_equivalents(played.warm))
        bill = played.bill
        kept.tokens.append(f"{bill.input:,}/{bill.cached:,}/{bill.output:,}")
        kept.seconds.append(seconds)
        print(f"  {side:28} {played.calls} calls {seconds:6.2f} s")

    def report(self) -> str:
        rows = []
        for name, side in self.sides.items():
            rows.append(
                [
                    name,
                    statistics.median(side.calls),
                    side.tokens[0],
                    f"{statistics.median(side.billed):,.0f}",
                    f"{statistics.median(side.warm):,.0f}",
                    f"{statistics.median(side.seconds):.2f}",
                ]
            )
        follow, fresh = self.sides.values()
        ratios = [
            statistics.median(getattr(follow, name)) / statistics.median(getattr(fresh, name))
            for name in ("calls", "billed", "warm", "seconds")
        ]
        rows.append(["ratio", f"{ratios[0]:.2f}", "", *(f"{r:.2f}" for r in ratios[1:])])
        headers = [
            "run",
            "model calls",
            "input/cached/output (cold)",
            "billed, cold cache",
            "billed, warm cache",
            "seconds",
        ]
        return table(headers, rows)


async def memory_per_session(server: ServerProcess, shop: str, count: int) -> str:
    await asyncio.sleep(1.5)
    idle = procs.memory(server.pid)
    names = [await create_session(server.target, f"{shop}/") for _ in range(count)]
    await asyncio.sleep(1.5)
    held = procs.memory(server.pid)
    for name in names:
        await end_session(server.target, name)
    await asyncio.sleep(1.5)
    after = procs.memory(server.pid)
    each = held.minus(idle).per(count)
    rows: list[list[object]] = [
        ["before (Chromium up)", f"{idle.pss_mb:,.0f}", f"{idle.uss_mb:,.0f}", idle.processes],
        [f"{count} idle sessions", f"{held.pss_mb:,.0f}", f"{held.uss_mb:,.0f}", held.processes],
        ["after ending them", f"{after.pss_mb:,.0f}", f"{after.uss_mb:,.0f}", after.processes],
        ["per session", f"{each.pss_mb:,.1f}", f"{each.uss_mb:,.1f}", ""],
    ]
    return table(["", "PSS MB", "USS MB", "processes"], rows)


async def first_events(bench: Bench, rounds: int) -> str:
    target, shop = bench.server.target, bench.shop
    created, session_first, fresh_first = [], [], []
    for _ in range(rounds):
        bench.played(CHECK_OUT, "")
        began = time.perf_counter()
        session = await create_session(target, f"{shop}/cart")
        created.append(time.perf_counter() - began)
        stream = events(target, automate(FOLLOW_UP, session=session))
        await anext(stream)
        session_first.append(time.perf_counter() - began)
        await stream.aclose()
        await end_session(target, session)
        bench.played(CHECK_OUT, "")
        began = time.perf_counter()
        stream = events(target, automate(FOLLOW_UP, url=f"{shop}/cart"))
        await anext(stream)
        fresh_first.append(time.perf_counter() - began)
        await stream.aclose()
    rows = [
        ["CreateSession returned", f"{statistics.median(created) * 1000:,.0f}"],
        ["its first run's first event", f"{statistics.median(session_first) * 1000:,.0f}"],
        ["a fresh run's first event", f"{statistics.median(fresh_first) * 1000:,.0f}"],
    ]
    return table(["from the call to", "p50 ms"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model answer")
    parser.add_argument("--sessions", type=int, default=8, help="idle sessions for memory")
    args = parser.parse_args()
    player = WirePlayer("openai", token_counter(O200K).count, args.latency)
    with ExitStack() as stack:
        shop = stack.enter_context(cart_shop())
        fake = stack.enter_context(serve(FakeProvider(player)))
        env = provider_env("openai", fake) | {"OUTRIDER_SESSION_MAX_LIVE": str(args.sessions + 2)}
        server = ServerProcess(shop.url.removeprefix("http://"), 512, REPO_ROOT, **env)
        server.start()
        stack.callback(server.cleanup)
        bench = Bench(server, player, shop.url)
        asyncio.run(bench.round())  # warm-up: the first run launches Chromium
        bench.sides = {name: Side() for name in bench.sides}
        for _ in range(args.rounds):
            asyncio.run(bench.round())
        print(bench.report())
        print(asyncio.run(memory_per_session(server, shop.url, args.sessions)))
        print(asyncio.run(first_events(bench, args.rounds * 3)))


if __name__ == "__main__":
    main()
