"""The production research agent with its model behind the OpenAI-compatible adapter: the fake
server replays the fast-mode scenario's turns in the OpenAI protocol, chosen per role by the
response format the adapter names after the asking role. The model is the run's override."""

from __future__ import annotations

import json
from typing import Any

import yaml

from outrider.v1 import params_pb2, run_pb2, run_service_pb2
from outrider.v1 import research_events_pb2 as re_pb
from tests.models.dialects import OPENAI
from tests.models.fake_providers import Answer, FakeProvider, openai_body
from tests.research.conftest import SCENARIOS, ResearchCaseFactory
from tests.research.events import complete
from tests.support.harness import eventually


class ReplaysTurns:
    def __init__(self, turns: list[dict[str, Any]]) -> None:
        self.turns = turns
        self.roles: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Answer:
        fmt = body.get("response_format")
        role = fmt["json_schema"]["name"].removesuffix("_reply") if fmt else "writer"
        self.roles.append(role)
        turn = next(t for t in self.turns if t["role"] == role)
        self.turns.remove(turn)
        reply = turn["reply"]
        usage = (reply["usage"]["input_tokens"], reply["usage"]["output_tokens"])
        text = json.dumps(reply["data"]) if "data" in reply else reply["text"]
        return Answer(openai_body(text, usage=usage))


async def test_a_research_run_through_the_openai_compatible_adapter(
    research_case: ResearchCaseFactory, fake: FakeProvider
) -> None:
    spec = OPENAI.spec(fake)
    offered = {"providers": OPENAI.provider_settings(fake), "models": {spec: spec}}
    case = await research_case("research_fast.yaml", settings=offered)
    text = (SCENARIOS / "research_fast.yaml").read_text().replace("$WEB", case.web.url)
    model = ReplaysTurns(yaml.safe_load(text)["turns"])
    fake.respond = model
    events = await case.research(
        "Why do honey bee colonies die?",
        mode=re_pb.RESEARCH_MODE_FAST,
        options=params_pb2.RunOptions(model=spec),
    )
    done = complete(events)
    assert "Varroa mites are the leading cause" in done.report
    assert model.roles == ["planner", "writer"]
    tokens = done.metadata.metrics.tokens
    assert set(tokens) == {spec}
    assert (tokens[spec].input, tokens[spec].output) == (3400, 330)
    planner = fake.bodies[0]
    assert planner["model"] == "fake-model" and planner["messages"][0]["role"] == "system"
    assert "objective" in planner["response_format"]["json_schema"]["schema"]["properties"]
    run = (await case.harness.runs.GetRun(run_service_pb2.GetRunRequest(name=events[0].run))).run
    assert run.state == run_pb2.RUN_STATE_SUCCEEDED
    # the run closed its provider client: no pooled connection outlives it
    await eventually(lambda: fake.open_connections == 0)
