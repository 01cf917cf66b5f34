"""What verifying an access token on every call costs, against an API key: gRPC unary calls per
second (GetRun of one run) to one test-server process that takes both, with the IdP's keys
cached (the test IdP, node oidc-provider, issues the token by client credentials), and the
verification alone in this process (microseconds per token, per key).

Rounds alternate key and token on the same server, so both see the same machine state.

Run from the repo root: `.venv/bin/python -m bench.bench_tokens [--rounds N] [--seconds S]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import grpc

from outrider.server.security.authn import Keyring, authenticate
from outrider.server.security.identity import Door
from outrider.server.settings import Settings
from outrider.v1 import params_pb2, run_service_pb2, run_service_pb2_grpc
from tests.identity.idp import running_idp
from tests.identity.support import API, SERVICES, idp_config, oidc_settings
from tests.security.tenants import CALLER, Keys
from tests.support.harness import ServerProcess

CALLERS = 8  # concurrent calls in flight


async def calls_per_second(
    stub: run_service_pb2_grpc.RunServiceStub, name: str, credential: str, seconds: float
) -> float:
    metadata = (("authorization", f"Bearer {credential}"),)
    request = run_service_pb2.GetRunRequest(name=name)
    deadline = time.perf_counter() + seconds
    done = 0

    async def caller() -> None:
        nonlocal done
        while time.perf_counter() < deadline:
            await stub.GetRun(request, metadata=metadata)
            done += 1

    began = time.perf_counter()
    await asyncio.gather(*(caller() for _ in range(CALLERS)))
    return done / (time.perf_counter() - began)


async def over_grpc(port: int, key: str, token: str, rounds: int, seconds: float) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = run_service_pb2_grpc.RunServiceStub(channel)
        params = params_pb2.AutomateParams(task="bench")
        created = await stub.CreateRun(
            run_service_pb2.CreateRunRequest(automate=params),
            metadata=(("authorization", f"Bearer {key}"),),
        )
        name = created.run.name
        rates: dict[str, list[float]] = {"API key": [], "access token": []}
        for credential in (key, token):  # warm up
            await calls_per_second(stub, name, credential, 1.0)
        for _ in range(rounds):
            rates["API key"].append(await calls_per_second(stub, name, key, seconds))
            rates["access token"].append(await calls_per_second(stub, name, token, seconds))
    print(f"gRPC GetRun, {CALLERS} calls in flight, {rounds} rounds of {seconds:g} s each:")
    for what, found in rates.items():
        print(f"  {what:13} {statistics.median(found):8.0f} calls/s (median; {_spread(found)})")
    key_rate, token_rate = (statistics.median(r) for r in rates.values())
    cost = (1 / token_rate - 1 / key_rate) * 1e6
    print(f"  a token costs {cost:.0f} us more per call than a key ({token_rate / key_rate:.0%})")


def in_process(settings: Settings, key: str, token: str) -> None:
    """authenticate() alone, with the IdP's keys in the cache: CPU time per call (steadier than
    the wall clock on a busy machine)."""
    keyring = Keyring(settings)
    assert keyring.tokens is not None
    asyncio.run(keyring.tokens.principal(token, Door.GRPC))  # reads the keys once
    for name, credential in (("API key", key), ("access token", token)):
        authorization = f"Bearer {credential}"
        count, began = 2000, time.process_time()
        for _ in range(count):
            authenticate(keyring, authorization, None, Door.GRPC)
        micro = (time.process_time() - began) / count * 1e6
        print(f"  authenticate() with an {name:12}: {micro:6.1f} us of CPU")


def _spread(values: list[float]) -> str:
    return f"{min(values):.0f}-{max(values):.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        keys = Keys(folder / "keys.toml")
        key = keys.add("bench", "billing", CALLER)
        with running_idp(folder, idp_config("http://127.0.0.1:9")) as idp:
            token = idp.client_credentials("billing-service", API, SERVICES["billing-service"][1])
            oidc = oidc_settings(idp)
            env = {
                "OUTRIDER_KEYS_FILE": str(keys.file),
                "OUTRIDER_OIDC_ISSUER": idp.issuer,
                "OUTRIDER_OIDC_AUDIENCE": API,
                "OUTRIDER_OIDC_NETWORK_ALLOW": f"127.0.0.1:{idp.port}",
                "OUTRIDER_REST_ENABLED": "false",
                "OUTRIDER_LOG_LEVEL": "WARNING",
            }
            server = ServerProcess(folder / "data")
            server.env = env
            server.start()
            server.drain()
            try:
                asyncio.run(over_grpc(server.port, key, token, args.rounds, args.seconds))
            finally:
                server.kill()
            print("verification alone, in this process:")
            in_process(
                Settings(data_dir=folder / "data", keys_file=keys.file, oidc=oidc), key, token
            )


if __name__ == "__main__":
    main()
