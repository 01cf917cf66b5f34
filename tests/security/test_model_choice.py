"""Callers name only the models the operator offers (options.model): a name of OUTRIDER_MODELS
or of their tenant's table in the key file, or a scripted scenario in a folder opened to
callers. Anything else is refused on every door with the same words, before a file is opened or
an address reached: the key file, a missing file, `..`, a link out of the opened folder, and an
openai-compatible server of the caller's choosing (which would receive the provider key)."""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
import pytest_asyncio

from outrider.server.core.errors import InvalidArgument
from outrider.server.core.validation import chosen_model
from outrider.server.search.corpus import CorpusIndex
from outrider.server.search.corpus_cli import index_directory
from outrider.server.settings.providers import ProviderSettings
from outrider.server.settings.research import ResearchSettings
from outrider.v1 import run_pb2, run_service_pb2, run_service_pb2_grpc
from tests.research.conftest import render_scenario
from tests.research.web import WEB_DIR, fixture_web
from tests.rest.support import start_rest
from tests.security.model_doors import Doors
from tests.security.tenants import CALLER, Keys
from tests.support.file_watch import FolderWatch
from tests.support.harness import eventually

IN_MODULE_LOOP = pytest.mark.asyncio(loop_scope="module")
PROVIDER_KEY = "sk-operator-secret-for-its-own-server"


@dataclass
class Offered:
    doors: Doors
    keys: Keys
    secret: Path  # the key file's folder: nothing of it may be opened for a caller
    opened: Path  # the scenario folder opened to callers
    fast: str  # the spec the operator offers as "fast"
    listener: socket.socket  # an openai-compatible server a caller names


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def offered(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Offered]:
    folder = tmp_path_factory.mktemp("model-choice")
    secret, opened, operator = folder / "secret", folder / "opened", folder / "operator"
    for each in (secret, opened, operator):
        each.mkdir()
    async with AsyncExitStack() as stack:
        web = stack.enter_context(fixture_web())
        keys = Keys(secret / "keys.toml")
        keys.add("alice", "alpha", CALLER)
        keys.add("gina", "gamma", CALLER)
        fast = f"scripted:{render_scenario('research_fast.yaml', web.url, operator / 'r.yaml')}"
        with keys.file.open("a") as table:
            table.write(f'\n[tenants.gamma]\nmodels = {{ cheap = "{fast}" }}\n')
        render_scenario("research_fast.yaml", web.url, opened / "research.yaml")
        (opened / "link.yaml").symlink_to(keys.file)
        corpus = folder / "corpus.sqlite3"
        index_directory(CorpusIndex(corpus), WEB_DIR, web.url, honour_robots=False)
        case = await start_rest(
            folder / "data",
            production=True,
            keys_file=keys.file,
            models={"fast": fast},
            scripted_model_dirs=(opened,),
            providers=ProviderSettings(openai_compatible_api_key=PROVIDER_KEY),
            network_allow=f"127.0.0.1:{web.port}",
            research=ResearchSettings(
                search_providers=("corpus",), corpus_index=corpus, js_fallback=False
            ),
        )
        stack.push_async_callback(case.stop)
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{case.grpc.port}")
        stack.push_async_callback(channel.close)
        listener = stack.enter_context(socket.create_server(("127.0.0.1", 0)))
        listener.setblocking(False)
        doors = Doors(case.origin, run_service_pb2_grpc.RunServiceStub(channel))
        yield Offered(doors, keys, secret, opened, fast, listener)


def refused_models(offered: Offered) -> dict[str, str]:
    port = offered.listener.getsockname()[1]
    return {
        "the key file": f"scripted:{offered.keys.file}",
        "a missing file": f"scripted:{offered.secret / 'missing.yaml'}",
        "a way up": f"scripted:{offered.opened}/../secret/keys.toml",
        "a link out": f"scripted:{offered.opened / 'link.yaml'}",
        "a relative path": "scripted:keys.toml",
        "a server of its own": f"openai-compatible:x@http://127.0.0.1:{port}/v1",
        "a model not offered": "openai:gpt-4.1-mini",
        "another tenant's name": "cheap",
    }


@IN_MODULE_LOOP
async def test_every_door_refuses_what_the_operator_did_not_offer_in_the_same_words(
    offered: Offered,
) -> None:
    watch = FolderWatch(offered.secret)
    try:
        answers = {
            (door, what): await start(offered.keys.keys["alice"], model)
            for what, model in refused_models(offered).items()
            for door, start in offered.doors.each().items()
        }
        touched = watch.touched()
        (offered.secret / "keys.toml").read_text()  # the watch sees a read: it can fail
        assert watch.touched(), "the folder watch saw nothing: it cannot tell"
    finally:
        watch.close()
    assert touched == [], f"the server opened {touched} for a caller"
    with pytest.raises(BlockingIOError):
        offered.listener.accept()  # nobody connected: the provider key went nowhere
    descriptions = {description for _, description in answers.values()}  # type: ignore[misc]
    assert len(descriptions) == 1, answers
    (description,) = descriptions
    assert description == (
        "must name a model this server offers its callers: fast; "
        "or scripted:<file> in a scenario folder the operator opened"
    )
    fields = {door: violation[0] for (door, _), violation in answers.items() if violation}
    assert fields == {
        "grpc": "options.model",
        "rest": "options.model",
        "mcp": "options.model",
        "a2a": "message.data.options.model",
    }
    listed = await offered.doors.runs.ListRuns(
        run_service_pb2.ListRunsRequest(), metadata=offered.keys.bearer("alice")
    )
    assert list(listed.runs) == []


@IN_MODULE_LOOP
async def test_offered_names_and_opened_scenarios_run_on_every_door(offered: Offered) -> None:
    alice = offered.keys.keys["alice"]
    for door, start in offered.doors.each().items():
        assert await start(alice, "fast") is None, door
    scenario = f"scripted:{offered.opened / 'research.yaml'}"
    assert await offered.doors.grpc(alice, scenario) is None
    # gamma's table replaces the server's offer for its keys
    gina = offered.keys.keys["gina"]
    assert await offered.doors.grpc(gina, "cheap") is None
    assert await offered.doors.rest(gina, "fast") == (
        "options.model",
        "must name a model this server offers its callers: cheap; "
        "or scripted:<file> in a scenario folder the operator opened",
    )

    async def ended(principal: str) -> list[run_pb2.Run]:
        listed = await offered.doors.runs.ListRuns(
            run_service_pb2.ListRunsRequest(), metadata=offered.keys.bearer(principal)
        )
        return [run for run in listed.runs if run.HasField("outcome")]

    async def all_ended() -> bool:
        return len(await ended("alice")) == 5 and len(await ended("gina")) == 1

    await eventually(all_ended, within=120)
    runs = await ended("alice") + await ended("gina")
    assert all(run.state == run_pb2.RUN_STATE_SUCCEEDED for run in runs), runs
    # the run records the spec its caller's name stood for
    assert sorted(run.options.model for run in runs) == sorted([offered.fast] * 5 + [scenario])


def test_the_refusal_says_what_may_be_chosen(tmp_path: Path) -> None:
    def refusal(offer: dict[str, str], folders: tuple[Path, ...]) -> str:
        with pytest.raises(InvalidArgument) as caught:
            chosen_model("scripted:/etc/passwd", offer, folders, "options.model")
        return caught.value.violations[0].description

    assert refusal({}, ()) == "must be empty: this server offers its callers no choice of model"
    assert refusal({}, (tmp_path,)) == (
        "must be scripted:<file> in a scenario folder the operator opened"
    )
    assert refusal({"b": "openai:x", "a": "openai:y"}, ()) == (
        "must name a model this server offers its callers: a, b"
    )
    assert chosen_model("", {}, (), "options.model") == ""
    loop = tmp_path / "loop.yaml"
    os.symlink(loop, loop)
    with pytest.raises(InvalidArgument):
        chosen_model(f"scripted:{loop}", {}, (tmp_path,), "options.model")
    inside = tmp_path / "inside.yaml"
    assert chosen_model(f"scripted:{inside}", {}, (tmp_path,), "m") == f"scripted:{inside}"
