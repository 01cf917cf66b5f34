"""The image smoke test, run INSIDE the image by scripts/image-smoke (as the image's user, with its
environment and interpreter). Exits non-zero, naming the step, on any failure.

1. serves ./site on a free loopback port and indexes it into the research corpus (corpus_cli);
2. starts the image's ENTRYPOINT on loopback (OUTRIDER_PORT, else 50051), the network guard
   opened to that port only;
3. polls the image's own HEALTHCHECK command until it prints SERVING;
4. an Automate run (scripted model, real Chromium) on the served page must succeed and leave a
   readable screenshot; a fast Research run over the corpus must succeed with a cited report;
5. SIGTERM must end the server cleanly.

    python drive.py ENTRYPOINT_JSON HEALTHCHECK_JSON
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import grpc

from outrider.v1 import params_pb2, run_pb2, run_service_pb2, run_service_pb2_grpc
from outrider.v1 import research_events_pb2 as re_pb

HERE = Path(__file__).resolve().parent
START_TIMEOUT = 60.0
RUN_TIMEOUT = 180.0


def say(message: str) -> None:
    print(f"image-smoke: {message}", flush=True)


def fail(message: str) -> None:
    say(f"FAILED: {message}")
    sys.exit(1)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # the build log stays readable
        pass


def serve_site() -> int:
    handler = functools.partial(QuietHandler, directory=HERE / "site")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return int(server.server_address[1])


def index_corpus(site: str) -> None:
    command = [sys.executable, "-m", "outrider.server.search.corpus_cli", str(HERE / "site")]
    subprocess.run([*command, "--base-url", site], check=True)


def wait_serving(health: list[str], server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    last = ""
    while time.monotonic() < deadline:
        if server.poll() is not None:
            fail(f"the server exited ({server.returncode}) before SERVING")
        check = subprocess.run(health, capture_output=True, text=True)
        last = (check.stdout or check.stderr).strip().splitlines()[-1:] or [""]
        if check.returncode == 0:
            say(f"grpc.health Check -> {last[0]}")
            return
        time.sleep(0.5)
    fail(f"no SERVING within {START_TIMEOUT:.0f} s (last: {last})")


def finish(stub: run_service_pb2_grpc.RunServiceStub, events: list[Any], what: str) -> run_pb2.Run:
    """The run of a finished stream's events, as stored; it must have succeeded."""
    if not events:
        fail(f"{what}: no events")
    run = stub.GetRun(run_service_pb2.GetRunRequest(name=events[0].run), timeout=10).run
    if run.state != run_pb2.RUN_STATE_SUCCEEDED:
        state = run_pb2.RunState.Name(run.state)
        fail(f"{what}: {state}: {run.outcome.error_code} {run.outcome.error_message}")
    if "$19.50" not in run.outcome.result:
        fail(f"{what}: the result lacks the page's price: {run.outcome.result!r}")
    say(f"{what}: {run.name} SUCCEEDED after {len(events)} events: {run.outcome.result.strip()!r}")
    return run


def automate(stub: run_service_pb2_grpc.RunServiceStub, site: str) -> None:
    request = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(task="What does the Blue Kettle cost?", url=site),
        options=params_pb2.RunOptions(model=f"scripted:{HERE / 'automate.yaml'}"),
    )
    responses = stub.Automate(request, timeout=RUN_TIMEOUT)
    events = [r.event for r in responses if r.HasField("event")]
    finish(stub, events, "Automate")
    artifacts = [e.artifact for e in events if e.artifact]
    if not artifacts:
        fail("Automate: no screenshot artifact")
    chunks = stub.ReadArtifact(run_service_pb2.ReadArtifactRequest(name=artifacts[0]), timeout=30)
    data = b"".join(chunk.data for chunk in chunks)
    if not data.startswith((b"\x89PNG", b"\xff\xd8")):
        fail(f"Automate: artifact {artifacts[0]} is neither PNG nor JPEG")
    say(f"Automate: screenshot {artifacts[0]} ({len(data)} bytes)")


def research(stub: run_service_pb2_grpc.RunServiceStub) -> None:
    request = run_service_pb2.ResearchRequest(
        params=params_pb2.ResearchParams(
            query="What does the Blue Kettle cost?", mode=re_pb.RESEARCH_MODE_FAST
        ),
        options=params_pb2.RunOptions(model=f"scripted:{HERE / 'research.yaml'}"),
    )
    responses = stub.Research(request, timeout=RUN_TIMEOUT)
    finish(stub, [r.event for r in responses if r.HasField("event")], "Research")


def stop(server: subprocess.Popen[bytes]) -> None:
    server.send_signal(signal.SIGTERM)
    try:
        code = server.wait(60)
    except subprocess.TimeoutExpired:
        server.kill()
        fail("the server did not exit within 60 s of SIGTERM")
    if code != 0:
        fail(f"the server exited {code} after SIGTERM")
    say("clean exit after SIGTERM")


def main() -> None:
    entry = json.loads(sys.argv[1])
    health = json.loads(sys.argv[2])
    health = health[1:] if health[:1] == ["CMD"] else health
    port = serve_site()
    site = f"http://127.0.0.1:{port}/"
    index_corpus(site)
    env = os.environ | {
        "OUTRIDER_NETWORK_ALLOW": f"127.0.0.1:{port}",
        "OUTRIDER_REST_PORT": "0",
        # The image binds every address (its ENV); a smoke RUN shares the build host's network,
        # so its server listens on loopback only.
        "OUTRIDER_HOST": "127.0.0.1",
        "OUTRIDER_REST_HOST": "127.0.0.1",
        # the runs below name this folder's scenarios as their models, as an operator allows
        "OUTRIDER_SCRIPTED_MODEL_DIRS": str(HERE),
    }
    say(f"starting {shlex.join(entry)}; smoke site on {site}")
    server = subprocess.Popen(entry, env=env)
    try:
        wait_serving(health, server)
        target = f"127.0.0.1:{os.environ.get('OUTRIDER_PORT', '50051')}"
        with grpc.insecure_channel(target) as channel:
            stub = run_service_pb2_grpc.RunServiceStub(channel)
            automate(stub, site)
            research(stub)
        stop(server)
    finally:
        if server.poll() is None:
            server.kill()


if __name__ == "__main__":
    main()
