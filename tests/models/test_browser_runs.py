"""The production browser agent driven by each provider's adapter and a fake provider server that
plays the model: plan, a malformed tool call (fed back as a validation error), done, a validation
outside its schema (asked again with the errors), a valid validation.
Also: a provider that keeps failing turns into ai:generation:error events and a failed run."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from outrider.server.settings.browser import BrowserSettings
from outrider.v1 import params_pb2, run_pb2, run_service_pb2
from tests.conftest import HarnessFactory
from tests.models.dialects import DIALECTS, OPENAI, Dialect
from tests.models.fake_providers import Answer, FakeProvider, error_body
from tests.support.harness import Harness, eventually
from tests.support.requests import collect, names

ANSWER = "The Red Mug costs $8.25."
PLAN = {"plan": "Read the Red Mug's price.", "success_criteria": "The price is named."}
VERDICT = {"completion_quality": "complete", "observation": "The price is reported."}
BAD_VERDICT = {"completion_quality": "superb"}


class PlaysTheModel:
    """Answers browser-agent requests by what they ask for, in one provider's protocol."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.actor_bodies: list[dict[str, Any]] = []
        self.validations = 0

    def __call__(self, body: dict[str, Any]) -> Answer:
        schema = self.dialect.schema_in(body)
        if schema is not None:
            if "plan" in schema.get("properties", {}):
                return Answer(self.dialect.structured(PLAN))
            self.validations += 1
            return Answer(self.dialect.structured(VERDICT if self.validations > 1 else BAD_VERDICT))
        if not self.dialect.tools_in(body):
            return Answer(self.dialect.text("$8.25"))
        self.actor_bodies.append(body)
        if len(self.actor_bodies) == 1:
            return Answer(self.dialect.malformed("click"))
        return Answer(self.dialect.call("done", {"answer": ANSWER}))


async def start(
    make_harness: HarnessFactory, dialect: Dialect, fake: FakeProvider, sites: str, **kw: Any
) -> Harness:
    return await make_harness(
        production=True,
        model=dialect.spec(fake),
        providers=dialect.provider_settings(fake, **kw),
        network_allow=f"127.0.0.1:{sites.rsplit(':', 1)[1]}",
        browser=BrowserSettings(vision=True),
    )


def automate(sites: str) -> run_service_pb2.AutomateRequest:
    return run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(
            task="What does the Red Mug cost?", url=f"{sites}/shop/index.html"
        )
    )


@pytest.mark.parametrize("dialect", DIALECTS, ids=[d.provider for d in DIALECTS])
async def test_a_browser_run_through_the_provider(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str, dialect: Dialect
) -> None:
    model = PlaysTheModel(dialect)
    fake.respond = model
    # A generous per-attempt timeout: a slow attempt under load, retried, would be one more
    # request than generations counted below.
    harness = await start(make_harness, dialect, fake, sites, timeout=30.0)
    events = await collect(harness.runs.Automate(automate(sites)))
    complete = events[-2].automate.complete
    assert complete.success and complete.final_answer == ANSWER, names(events)
    run = (await harness.runs.GetRun(run_service_pb2.GetRunRequest(name=events[0].run))).run
    assert run.state == run_pb2.RUN_STATE_SUCCEEDED
    setup = next(e.automate.task_setup for e in events if e.automate.HasField("task_setup"))
    assert f"{setup.provider}:{setup.model}" == dialect.spec(fake)

    # the malformed call went back to the model as a validation error, and so did the verdict
    # outside its schema
    call, verdict = [
        e.automate.task_validation_error
        for e in events
        if e.automate.HasField("task_validation_error")
    ]
    assert call.retry_count == 1 and call.errors
    raw = call.raw_response.struct_value.fields["arguments"].struct_value.fields
    assert "invalid_json_arguments" in raw
    second = model.actor_bodies[1]
    [said] = [text for text in dialect.tool_results_in(second) if "Invalid call" in text]
    # what the model is told: its JSON did not parse, and how it began (not "ref is required")
    assert "did not parse as JSON" in said and "is required" not in said, said
    began = "MALFORMED_FUNCTION_CALL" if dialect.provider == "gemini" else """'{"ref": "E1"'"""
    assert began in said, said
    assert verdict.retry_count == 1 and any("completion_quality" in e for e in verdict.errors)
    assert "$.observation is required" in verdict.errors

    # usage of every call in ai:generation events
    usages = [
        e.automate.ai_generation.usage for e in events if e.automate.HasField("ai_generation")
    ]
    assert len(usages) == len(fake.received) == 5  # plan, malformed, done, 2 validations
    assert (usages[2].input_tokens, usages[2].output_tokens, usages[2].total_tokens) == (33, 7, 40)

    # vision is on: the actor saw a screenshot of the page
    [image, *_] = dialect.images_in(model.actor_bodies[0])
    assert base64.urlsafe_b64decode(image).startswith(b"\xff\xd8")  # JPEG

    # the run closed its provider client: no pooled connection outlives it
    await eventually(lambda: fake.open_connections == 0)


async def test_a_provider_that_keeps_failing_fails_the_run(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str
) -> None:
    fake.respond = lambda body: Answer(
        error_body(503, "overloaded"), status=503, headers={"retry-after": "0"}
    )
    # A generous per-attempt timeout: this test is about 503s, not about slow attempts.
    harness = await start(make_harness, OPENAI, fake, sites, max_retries=1, timeout=30.0)
    events = await collect(harness.runs.Automate(automate(sites)))
    errors = [
        e.automate.ai_generation_error.error
        for e in events
        if e.automate.HasField("ai_generation_error")
    ]
    assert errors and "HTTP 503: overloaded (gave up after 2 attempts" in errors[0]
    assert len(fake.received) == 2
    run = (await harness.runs.GetRun(run_service_pb2.GetRunRequest(name=events[0].run))).run
    assert run.state == run_pb2.RUN_STATE_FAILED
