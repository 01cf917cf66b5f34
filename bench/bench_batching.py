"""Several actions per model turn and prompt caching (issue 27): model calls, billed tokens and
wall time per form task, this checkout against an earlier commit (default d39ed0d, main before
the change).

Both sides run the production server (real Chromium, gRPC on loopback) as a child process,
talking through its real Anthropic or OpenAI adapter to a fake provider server in this process
(tests/models/fake_providers) that plays the model: the tasks of bench/batching_tasks.py, one
action per turn for the earlier commit (its rules asked for exactly one), batched where the
rules say so for this checkout. Every answer waits --latency seconds (a simulated model). The
fake works out from each request's bytes what the provider would bill, its prompt cache
included (bench/cache_billing.py); this checkout's own task:metrics must report the same cached
tokens. Sides alternate task by task, so both see the same machine state.

Run from the repo root (tiktoken and bpe-openai installed for token counts, see
docs/benchmarks.md):
`.venv/bin/python -m bench.bench_batching [--before d39ed0d] [--rounds 1] [--latency 1]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from bench.batching_tasks import TASKS, WARM_UP, Played, Task, WirePlayer
from bench.browser_pages import REPO_ROOT
from bench.browser_report import table
from bench.browser_runs import channel
from bench.browser_server import ServerProcess
from bench.browser_task_tokens import tree_of
from bench.browser_tokens import CL100K, O200K, token_counter
from bench.cache_billing import CLAUDE_SONNET, GPT_41, Bill, Prices
from outrider.v1 import params_pb2, run_service_pb2, run_service_pb2_grpc
from tests.models.fake_providers import FakeProvider, serve
from tests.support.sites import fixture_sites

PRICES = {"anthropic": CLAUDE_SONNET, "openai": GPT_41}
# Token counts: OpenAI publishes GPT-4.1's encoding; Anthropic publishes none (cl100k stands in).
ENCODINGS = {"anthropic": CL100K, "openai": O200K}
SIDES = ("before", "batched")


@dataclass
class Outcome:
    calls: list[int] = field(default_factory=list)
    bills: list[Bill] = field(default_factory=list)
    warm: list[Bill] = field(default_factory=list)
    as_json: list[Bill] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    reported_cached: list[int] = field(default_factory=list)  # task:metrics of the run


def provider_env(provider: str, fake: FakeProvider) -> dict[str, str]:
    if provider == "anthropic":
        return {
            "OUTRIDER_MODEL": "anthropic:claude-sonnet-bench",
            "ANTHROPIC_API_KEY": "sk-ant-bench",
            "ANTHROPIC_BASE_URL": fake.url,
        }
    return {
        "OUTRIDER_MODEL": "openai:gpt-4.1-bench",
        "OPENAI_API_KEY": "sk-bench",
        "OPENAI_BASE_URL": f"{fake.url}/v1",
    }


async def one_task(target: str, sites: str, task: Task) -> tuple[bool, str, int, float]:
    """(success, error, cached input tokens the run reported, seconds)."""
    request = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(
            task=task.task, url=f"{sites}{task.page}", trusted_hostnames=["127.0.0.1"]
        )
    )
    began, success, error, cached = time.perf_counter(), False, "", 0
    async with channel(target) as chan:
        async for response in run_service_pb2_grpc.RunServiceStub(chan).Automate(request):
            event = response.event.automate
            if event.HasField("task_metrics"):
                cached = event.task_metrics.total_cached_input_tokens
            if event.HasField("complete"):
                success, error = event.complete.success, event.complete.error.message
    return success, error, cached, time.perf_counter() - began


class Bench:
    def __init__(self, before: Path, sites: str, latency: float, stack: ExitStack) -> None:
        self._roots = {"before": before, "batched": REPO_ROOT}
        self._sites, self._latency, self._stack = sites, latency, stack
        self.results: dict[tuple[str, str, str], Outcome] = {}  # (provider, task, side)

    def measure(self, provider: str, rounds: int) -> None:
        players, servers = {}, {}
        count = token_counter(ENCODINGS[provider]).count
        allow = self._sites.removeprefix("http://")
        try:
            for side in SIDES:
                players[side] = WirePlayer(provider, count, self._latency)
                fake = self._stack.enter_context(serve(FakeProvider(players[side])))
                env = provider_env(provider, fake) | {"PYTHONDONTWRITEBYTECODE": "1"}
                servers[side] = ServerProcess(allow=allow, root=self._roots[side], **env)
                servers[side].start()
                self._warm_up(provider, players[side], servers[side])
            for _ in range(rounds):
                for task in TASKS:
                    for side in SIDES:
                        self._run(provider, task, side, players[side], servers[side])
        finally:
            for server in servers.values():
                server.cleanup()

    def _warm_up(self, provider: str, player: WirePlayer, server: ServerProcess) -> None:
        """One run not counted: the server's first launches Chromium."""
        task = WARM_UP
        player.start(task.script(True), task.expect)
        success, error, _, _ = asyncio.run(one_task(server.target, self._sites, task))
        if not success:
            raise RuntimeError(f"the warm-up run on {provider} failed: {error}")

    def _run(
        self, provider: str, task: Task, side: str, player: WirePlayer, server: ServerProcess
    ) -> None:
        played: Played = player.start(task.script(side == "batched"), task.expect)
        success, error, cached, seconds = asyncio.run(one_task(server.target, self._sites, task))
        if not success or played.problems:
            raise RuntimeError(f"{provider} {task.name} {side} failed: {error} {played.problems}")
        outcome = self.results.setdefault((provider, task.name, side), Outcome())
        outcome.calls.append(played.calls)
        outcome.bills.append(played.bill)
        outcome.warm.append(played.warm)
        outcome.as_json.append(played.as_json)
        outcome.seconds.append(seconds)
        outcome.reported_cached.append(cached)
        print(f"  {provider} {task.name:7} {side:8} {played.calls:3} calls {seconds:6.2f} s")


def _ratio(after: float, before: float) -> str:
    return f"{after / before:.2f}" if before else "-"


def calls_table(bench: Bench, provider: str) -> str:
    rows = []
    for task in TASKS:
        before, after = (bench.results[(provider, task.name, s)].calls[0] for s in SIDES)
        rows.append([_label(task), str(before), str(after), _ratio(after, before)])
    return table(["task", "calls before", "calls batched", "ratio"], rows)


def billing_table(bench: Bench, provider: str, prices: Prices, kind: str = "bills") -> str:
    """`kind`: bills (a cache of the run's own requests), warm (and the earlier runs'), as_json
    (bills with every block counted as its JSON)."""
    rows = []
    for task in TASKS:
        runs = [bench.results[(provider, task.name, side)] for side in SIDES]
        # the first round's: later rounds would find the same task's requests in a warm cache
        bills = [getattr(run, kind)[0] for run in runs]
        equivalents = [prices.token_equivalents(bill) for bill in bills]
        rows.append(
            [
                _label(task),
                *(_tokens(bill) for bill in bills),
                *(f"{value:,.0f}" for value in equivalents),
                _ratio(equivalents[1], equivalents[0]),
            ]
        )
    headers = ["task", "before: in/cached/written/out", "batched: in/cached/written/out"]
    return table([*headers, "billed before", "billed batched", "ratio"], rows)


def _tokens(bill: Bill) -> str:
    return f"{bill.input:,}/{bill.cached:,}/{bill.written:,}/{bill.output:,}"


def _label(task: Task) -> str:
    return task.name if task.in_issue else f"{task.name} (not in the issue's set)"


def time_table(bench: Bench, provider: str) -> str:
    rows = []
    for task in TASKS:
        runs = [bench.results[(provider, task.name, side)] for side in SIDES]
        medians = [statistics.median(run.seconds) for run in runs]
        rows.append([_label(task), *(f"{m:.2f}" for m in medians), _ratio(medians[1], medians[0])])
    return table(["task", "seconds before", "seconds batched", "ratio"], rows)


def check_reports(bench: Bench, provider: str) -> str:
    """This checkout's task:metrics against what the fake provider reported."""
    wrong = [
        f"{task.name}: reported {o.reported_cached} != {[b.cached for b in o.bills]}"
        for task in TASKS
        if (o := bench.results[(provider, task.name, "batched")]).reported_cached
        != [b.cached for b in o.bills]
    ]
    same = "this checkout's task:metrics cached tokens = the provider's, every run"
    return "; ".join(wrong) or same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="d39ed0d", help="a commit or a checkout directory")
    parser.add_argument("--rounds", type=int, default=1, help="runs per task and side")
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model answer")
    parser.add_argument("--providers", nargs="+", default=["anthropic", "openai"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-batching-") as temp, ExitStack() as stack:
        given = Path(args.before)
        before = given if given.is_dir() else tree_of(args.before, Path(temp) / "before")
        sites = stack.enter_context(fixture_sites())
        bench = Bench(before, sites, args.latency, stack)
        for provider in args.providers:
            bench.measure(provider, args.rounds)
    methods = ", ".join(f"{p}: {token_counter(ENCODINGS[p]).method}" for p in args.providers)
    out = [f"before = {args.before}; latency {args.latency:g} s per model answer; {methods}\n"]
    for provider in args.providers:
        prices = PRICES[provider]
        out += [
            f"\n## {provider}\n\nmodel calls per task\n\n{calls_table(bench, provider)}",
            f"\nbilled token-equivalents per task ({prices.name}); a cache of the run's own "
            "requests only\n",
            billing_table(bench, provider, prices),
            "\nthe same with the cache also holding the earlier runs' requests on that server\n",
            billing_table(bench, provider, prices, "warm"),
            *(
                [
                    "\nthe first table's runs with every block counted as its JSON (an upper "
                    "bound: OpenAI renders tools more compactly)\n",
                    billing_table(bench, provider, prices, "as_json"),
                ]
                if provider == "openai"
                else []
            ),
            f"\nwall time per task, median of {args.rounds}\n\n{time_table(bench, provider)}",
            f"\n{check_reports(bench, provider)}\n",
        ]
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
