"""Event-streaming throughput of the Outrider server, against a bare gRPC stream.

What it measures (events per second; each scenario is the median of --repeat repetitions, after
one unmeasured warm-up run; the repetitions are interleaved, one of each scenario per round):

* bare:     a plain grpc.aio server (own process) whose RunService.Automate yields pre-built
            AutomateResponses, to one client in another process: what gRPC alone manages.
* full:     the real OutriderServer (own process) with a bench-only agent that emits --events
            agent:reasoned/agent:action events (~200 bytes of text each) as fast as it can, then
            complete + done. Every event is persisted to SQLite, fanned out, and streamed over
            RunService.Automate to one client in another process.
* watchers: the full path with --watchers clients on one run of --watcher-events events: one
            Automate call plus StreamRunEvents calls from after_sequence=0, spread over
            --client-procs processes, each call on its own connection. The agent starts
            emitting once every watcher follows the run.

Both servers send exactly the same message content (RunEvent envelopes of the same payloads).
Clients count events until `done`. `seconds` runs from the first event to the last one (with
several watchers: from the earliest first event to the latest last event); the time from the
request to the last event is printed below the table. The run's own time is the agent's emitting
time (first to last agent event, persist and fan-out included), carried in the `complete`
event's stats; comparing its rate with and without watchers shows what watchers cost the run.

Servers listen on 127.0.0.1 with a port they pick. By default the server process is pinned to
the first CPU and the clients to the others (see bench/stream_cpus.py); --no-pin turns that off.

Run from the repo root: `.venv/bin/python -m bench.bench_stream [--events N] [--watchers W]`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from bench.stream_clients import ClientPlan, StreamTiming, automate_request, run_clients
from bench.stream_cpus import Cpus, split_cpus
from bench.stream_events import prebuilt_responses
from bench.stream_servers import BARE_RUN, bare_server, full_server, server_process

WARM_UP_EVENTS = 1_000
TERMINAL_EVENTS = 2  # complete, done
GOAL = 0.5  # the project's goal: the full path at least half as fast as the bare stream


@dataclass(frozen=True)
class Measurement:
    """One repetition of a scenario: the timings of all its calls."""

    streams: list[StreamTiming]

    @property
    def events(self) -> int:
        return sum(s.events for s in self.streams)

    @property
    def seconds(self) -> float:
        return max(s.last for s in self.streams) - min(s.first for s in self.streams)

    @property
    def rate(self) -> float:
        return self.events / self.seconds

    @property
    def request_seconds(self) -> float:
        return max(s.last for s in self.streams) - min(s.requested for s in self.streams)

    @property
    def per_stream_rate(self) -> float:
        return statistics.median(s.rate for s in self.streams)

    @property
    def run_seconds(self) -> float:
        return max(s.run_seconds for s in self.streams)

    @property
    def run_rate(self) -> float:
        """Agent events per second of the run's own time."""
        agent_events = max(s.events for s in self.streams) - TERMINAL_EVENTS
        return agent_events / self.run_seconds if self.run_seconds > 0 else 0.0

    @property
    def gaps(self) -> int:
        return sum(s.gaps for s in self.streams)


@dataclass(frozen=True)
class ScenarioResult:
    name: str
    repetitions: list[Measurement]

    @property
    def median(self) -> Measurement:
        ranked = sorted(self.repetitions, key=lambda m: m.rate)
        return ranked[len(ranked) // 2]


# running the scenarios


def client_plans(watchers: int, processes: int) -> list[ClientPlan]:
    """`watchers` calls over `processes` processes; the first call of all is the Automate one."""
    processes = max(1, min(processes, watchers))
    shares = [watchers // processes + (i < watchers % processes) for i in range(processes)]
    return [
        ClientPlan(automate=i == 0, watchers=share - (i == 0)) for i, share in enumerate(shares)
    ]


@dataclass(frozen=True)
class Scenario:
    """One measured configuration: a server, a run size and a number of watchers."""

    name: str
    port: int
    events: int
    watchers: int


def start_servers(stack: ExitStack, args: argparse.Namespace) -> list[Scenario]:
    """Starts one server process per scenario (bare first); they idle while not measured."""
    server_cpus = placement(args)[0]
    bare = stack.enter_context(
        server_process(bare_server, args.events, server_cpus, _profile(args, "bare"))
    )
    scenarios = [
        Scenario("bare gRPC stream", bare, args.events, 1),
        Scenario("full path, 1 client", _full_server(stack, args, "full"), args.events, 1),
    ]
    if args.watchers > 0:
        name = f"full path, {args.watchers} watchers x {args.watcher_events:,} (aggregate)"
        port = _full_server(stack, args, "watchers")
        scenarios.append(Scenario(name, port, args.watcher_events, args.watchers))
    return scenarios


def _full_server(stack: ExitStack, args: argparse.Namespace, label: str) -> int:
    data_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="outrider-bench-"))
    server_cpus = placement(args)[0]
    return stack.enter_context(
        server_process(full_server, data_dir, server_cpus, _profile(args, label))
    )


def measure_once(scenario: Scenario, args: argparse.Namespace, events: int) -> Measurement:
    plans = client_plans(scenario.watchers, args.client_procs)
    request = automate_request(events, scenario.watchers)
    return Measurement(run_clients(scenario.port, plans, request, placement(args)[1]))


def run_scenarios(args: argparse.Namespace) -> list[ScenarioResult]:
    """A warm-up run per scenario, then `args.repeat` rounds that each measure every scenario
    once, so that all scenarios see the same background load (the machine may be shared)."""
    with ExitStack() as stack:
        scenarios = start_servers(stack, args)
        for scenario in scenarios:
            measure_once(scenario, args, min(scenario.events, WARM_UP_EVENTS))
        measured: list[list[Measurement]] = [[] for _ in scenarios]
        for round_ in range(1, args.repeat + 1):
            print(f"round {round_}/{args.repeat} ...", flush=True)
            for scenario, measurements in zip(scenarios, measured, strict=True):
                measurements.append(measure_once(scenario, args, scenario.events))
    return [ScenarioResult(s.name, m) for s, m in zip(scenarios, measured, strict=True)]


def placement(args: argparse.Namespace) -> tuple[Cpus, Cpus]:
    """(server CPUs, client CPUs), or no pinning."""
    return split_cpus() if args.pin else (None, None)


def _profile(args: argparse.Namespace, label: str) -> str | None:
    if args.profile_dir is None:
        return None
    args.profile_dir.mkdir(parents=True, exist_ok=True)
    return str(args.profile_dir / f"server-{label}.prof")


# reporting


def render(results: Sequence[ScenarioResult]) -> str:
    """The summary table (the first result is the bare baseline), then the details behind it."""
    base = results[0].median.rate
    rows = [("scenario", "events", "seconds", "events/s", "ratio full/bare")]
    for result in results:
        m = result.median
        rows.append(
            (
                result.name,
                f"{m.events:,}",
                f"{m.seconds:.3f}",
                f"{m.rate:,.0f}",
                f"{m.rate / base:.2f}",
            )
        )
    return "\n".join([*markdown_table(rows), "", *_details(results)])


def markdown_table(rows: Sequence[Sequence[str]]) -> list[str]:
    """A Markdown table; the first column left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]

    def line(row: Sequence[str]) -> str:
        cells = [
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        return "| " + " | ".join(cells) + " |"

    rule = (
        "|"
        + "|".join("-" * (w + 2) if i == 0 else "-" * (w + 1) + ":" for i, w in enumerate(widths))
        + "|"
    )
    return [line(rows[0]), rule, *(line(row) for row in rows[1:])]


def _details(results: Sequence[ScenarioResult]) -> list[str]:
    out = []
    for result in results:
        m = result.median
        reps = " / ".join(f"{r.rate:,.0f}" for r in result.repetitions)
        out.append(
            f"- {result.name}: repetitions {reps} events/s; request to last event "
            f"{m.request_seconds:.3f} s; sequence gaps {m.gaps}"
        )
        if m.run_seconds > 0:
            out.append(
                f"  - run's own time (agent emitting, persist + fan-out included): "
                f"{m.run_seconds:.3f} s = {m.run_rate:,.0f} events/s"
            )
        if len(m.streams) > 1:
            out.append(
                f"  - per-watcher rate (median of {len(m.streams)}): "
                f"{m.per_stream_rate:,.0f} events/s"
            )
    bare, full = results[0].median.rate, results[1].median.rate
    verdict = "met" if full >= GOAL * bare else "NOT met"
    out.append(f"- goal (full path >= {GOAL:.0%} of bare): {verdict}, {full / bare:.0%}")
    return out


def envelope_bytes(events: int) -> float:
    """Average serialized size of an AutomateResponse of the stream."""
    responses = prebuilt_responses(BARE_RUN, events)
    return sum(r.ByteSize() for r in responses) / len(responses)


# command line


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.bench_stream",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--events",
        type=int,
        default=20_000,
        help="agent events per run, bare and full (default 20000)",
    )
    parser.add_argument(
        "--watchers",
        type=int,
        default=50,
        help="clients in the watchers scenario; 0 skips it (default 50)",
    )
    parser.add_argument(
        "--watcher-events",
        type=int,
        default=4_000,
        help="agent events per run in the watchers scenario (default 4000)",
    )
    parser.add_argument(
        "--client-procs",
        type=int,
        default=2,
        help="processes the watchers are spread over (default 2)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="repetitions per scenario; the median counts (default 3)",
    )
    parser.add_argument(
        "--no-pin",
        dest="pin",
        action="store_false",
        help="let the scheduler place servers and clients (default: server on "
        "the first CPU, clients on the others)",
    )
    parser.add_argument(
        "--profile-dir",
        type=Path,
        default=None,
        help="dump a cProfile of each server process here (slows them down)",
    )
    return parser.parse_args(argv)


def describe(args: argparse.Namespace) -> str:
    server_cpus, client_cpus = placement(args)
    where = (
        f"server on CPU {sorted(server_cpus)}, clients on CPU {sorted(client_cpus)}"
        if server_cpus and client_cpus
        else "unpinned"
    )
    return (
        f"{args.events:,} agent events per run (+ complete, done), "
        f"{envelope_bytes(min(args.events, 1_000)):.0f} bytes per response; "
        f"median of {args.repeat}; {where}"
    )


def _load() -> str:
    """The load average, to tell a quiet machine from a busy one."""
    return " / ".join(f"{value:.2f}" for value in os.getloadavg())


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    load_before = _load()
    print(describe(args), flush=True)
    results = run_scenarios(args)
    print()
    print(render(results))
    print(f"- load average (1/5/15 min) before: {load_before}, after: {_load()}")


if __name__ == "__main__":
    main()
