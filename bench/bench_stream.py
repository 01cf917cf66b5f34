"""Event-streaming throughput of the Outrider server, against a bare gRPC stream.

What it measures (events per second, each scenario the median of --repeat repetitions):

* bare:     a plain grpc.aio server (own process) whose RunService.Automate yields pre-built
            AutomateResponses, to one client in another process: the most gRPC can do.
* full:     the real OutriderServer (own process) with a bench-only agent that emits --events
            agent:reasoned/agent:action events (~200 bytes of text each) as fast as it can, then
            complete + done. Each event is persisted to SQLite, fanned out, and streamed over
            RunService.Automate to one client in another process.
* watchers: the full path with --watchers clients on the same run (one Automate call plus
            StreamRunEvents calls from after_sequence=0), spread over --client-procs processes,
            each call on its own connection. The agent starts emitting once every watcher
            follows the run.

Clients count events until `done`; `seconds` runs from the first event to the last (for several
watchers: earliest first to latest last), `request s` from the call to the last event. The run's
own time is the agent's emitting time, reported in the `complete` event's stats. Servers and
clients bind/connect 127.0.0.1 on a port the server picks.

Run from the repo root: `.venv/bin/python -m bench.bench_stream [--events N] [--watchers W]`.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.clients import ClientPlan, StreamTiming, automate_request, run_clients
from bench.events import prebuilt_responses
from bench.servers import BARE_RUN, bare_server, full_server, server_process

WARM_UP_EVENTS = 2_000
GOAL = 0.5  # the project's goal: full path at least half the bare stream's rate


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


def client_plans(watchers: int, processes: int) -> list[ClientPlan]:
    """`watchers` calls over `processes` processes; the first call of all is the Automate one."""
    processes = max(1, min(processes, watchers))
    shares = [watchers // processes + (i < watchers % processes) for i in range(processes)]
    return [ClientPlan(automate=i == 0, watchers=share - (i == 0)) for i, share in enumerate(shares)]


def measure(port: int, events: int, watchers: int, processes: int, repeat: int) -> list[Measurement]:
    """A warm-up run, then `repeat` measured runs against the server on `port`."""
    plans = client_plans(watchers, processes)
    run_clients(port, plans, automate_request(min(events, WARM_UP_EVENTS), watchers))
    request = automate_request(events, watchers)
    return [Measurement(run_clients(port, plans, request)) for _ in range(repeat)]


def run_bare(args: argparse.Namespace) -> ScenarioResult:
    with server_process(bare_server, args.events, _profile(args, "bare")) as port:
        return ScenarioResult("bare gRPC stream", measure(port, args.events, 1, 1, args.repeat))


def run_full(args: argparse.Namespace, watchers: int, name: str) -> ScenarioResult:
    with tempfile.TemporaryDirectory(prefix="outrider-bench-") as data_dir, server_process(
        full_server, data_dir, _profile(args, f"full-{watchers}")
    ) as port:
        reps = measure(port, args.events, watchers, args.client_procs, args.repeat)
    return ScenarioResult(name, reps)


def _profile(args: argparse.Namespace, label: str) -> str | None:
    if args.profile_dir is None:
        return None
    args.profile_dir.mkdir(parents=True, exist_ok=True)
    return str(args.profile_dir / f"server-{label}.prof")


def render(bare: ScenarioResult, full: ScenarioResult, crowd: ScenarioResult | None) -> str:
    """The summary table, then the details behind it."""
    rows = [("scenario", "events", "seconds", "events/s", "ratio full/bare")]
    base = bare.median.rate
    for result in (bare, full, crowd):
        if result is not None:
            m = result.median
            rows.append((result.name, f"{m.events:,}", f"{m.seconds:.3f}", f"{m.rate:,.0f}",
                         f"{m.rate / base:.2f}"))
    lines = _table(rows, right_from=1)
    lines += ["", *_details(bare, full, crowd)]
    return "\n".join(lines)


def _table(rows: Sequence[Sequence[str]], right_from: int) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]

    def line(row: Sequence[str]) -> str:
        cells = [c.rjust(w) if i >= right_from else c.ljust(w)
                 for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        return "| " + " | ".join(cells) + " |"

    separator = "|" + "|".join(
        "-" * (w + 1) + ":" if i >= right_from else "-" * (w + 2) for i, w in enumerate(widths)
    ) + "|"
    return [line(rows[0]), separator, *(line(row) for row in rows[1:])]


def _details(bare: ScenarioResult, full: ScenarioResult, crowd: ScenarioResult | None) -> list[str]:
    out = []
    for result in (bare, full, crowd):
        if result is None:
            continue
        m = result.median
        reps = " / ".join(f"{r.rate:,.0f}" for r in result.repetitions)
        out.append(f"{result.name}: repetitions {reps} events/s; request to last event "
                   f"{m.request_seconds:.3f} s; sequence gaps {m.gaps}")
        if result is not bare:
            out.append(f"  run's own time (agent emitting, first event to complete): "
                       f"{m.run_seconds:.3f} s")
        if len(m.streams) > 1:
            out.append(f"  per-watcher rate (median of {len(m.streams)}): "
                       f"{m.per_stream_rate:,.0f} events/s")
    verdict = "met" if full.median.rate >= GOAL * bare.median.rate else "NOT met"
    out.append(f"goal full >= {GOAL:.0%} of bare: {verdict} "
               f"({full.median.rate / bare.median.rate:.0%})")
    return out


def envelope_bytes(events: int) -> float:
    """Average serialized size of an AutomateResponse in the stream."""
    responses = prebuilt_responses(BARE_RUN, events)
    return sum(r.ByteSize() for r in responses) / len(responses)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_stream", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=20_000, help="agent events per run")
    parser.add_argument("--watchers", type=int, default=50, help="clients in the watchers "
                        "scenario (0 skips it)")
    parser.add_argument("--client-procs", type=int, default=2,
                        help="processes the watchers are spread over")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions; the median counts")
    parser.add_argument("--profile-dir", type=Path, default=None,
                        help="dump a cProfile of each server process here (slows it down)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    print(f"{args.events:,} agent events per run (+ complete, done), "
          f"{envelope_bytes(min(args.events, 1000)):.0f} bytes per response; "
          f"median of {args.repeat}", flush=True)
    steps: list[tuple[str, Callable[[], ScenarioResult]]] = [
        ("bare", lambda: run_bare(args)),
        ("full", lambda: run_full(args, 1, "full path (1 client)")),
    ]
    if args.watchers > 0:
        steps.append(("watchers", lambda: run_full(
            args, args.watchers, f"full path, {args.watchers} watchers (aggregate)")))
    results = []
    for label, step in steps:
        print(f"running {label} ...", flush=True)
        results.append(step())
    print()
    print(render(results[0], results[1], results[2] if len(results) > 2 else None))


if __name__ == "__main__":
    main()
