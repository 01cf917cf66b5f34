"""A model scripted at the wire: an OpenAI-compatible HTTP server (tests/models/fake_providers)
answering each chat-completions request with the next turn of a script. The agent talks to it
through its real OpenAI adapter, so the test sees exactly the bytes a real model would receive.

Tool arguments may name elements as `{{ref: <text on the snapshot line>}}`; the ref is looked up
in the newest page the request carries. A turn whose `expect` texts are missing from the request
is recorded in `problems` and answered with an abort, so the run ends and the test can say why.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from outrider.server.settings.browser import BrowserSettings
from tests.conftest import HarnessFactory
from tests.models.fake_providers import Answer, FakeProvider, openai_body, serve
from tests.support.harness import Harness

_REF_QUERY = re.compile(r"\{\{ref:\s*(.+?)\s*\}\}")
_REF_IN_LINE = re.compile(r"\[(E\d+)\]")


@dataclass(frozen=True)
class Turn:
    tool: str = ""  # a tool call; else `data` is the JSON reply (planner, validator)
    arguments: dict[str, Any] = field(default_factory=dict)
    data: dict[str, Any] | None = None
    expect: tuple[str, ...] = ()
    also: tuple[Turn, ...] = ()  # more tool calls in the same reply, in order


def plan() -> Turn:
    return Turn(data={"plan": "Do the task on the page.", "success_criteria": "It is done."})


def verdict(quality: str = "complete") -> Turn:
    return Turn(data={"completion_quality": quality, "observation": "Looked at the page."})


def act(tool: str, expect: Sequence[str] = (), **arguments: Any) -> Turn:
    return Turn(tool=tool, arguments=arguments, expect=tuple(expect))


def batch(*acts: Turn) -> Turn:
    """One reply calling each act's tool in turn; every act's `expect` applies to the request."""
    first, *rest = acts
    expect = tuple(text for one in acts for text in one.expect)
    return Turn(first.tool, first.arguments, expect=expect, also=tuple(rest))


def message_text(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


class WireModel:
    def __init__(self, turns: Sequence[Turn]) -> None:
        self._turns = list(turns)
        self._lock = threading.Lock()
        self.problems: list[str] = []
        self.provider = FakeProvider(self._respond)

    def then(self, turns: Sequence[Turn]) -> None:
        """Appends turns to the script (a model several runs share, one after another)."""
        with self._lock:
            self._turns.extend(turns)

    @property
    def spec(self) -> str:
        return f"openai-compatible:fake@{self.provider.url}/v1"

    @property
    def sent(self) -> str:
        """Every request body the agent sent, as one text."""
        return "\n".join(json.dumps(body, ensure_ascii=False) for body in self.provider.bodies)

    def requests_text(self) -> list[str]:
        """Each request's message texts joined, in order."""
        return [
            "\n".join(message_text(m) for m in body.get("messages", []))
            for body in self.provider.bodies
        ]

    def _respond(self, body: dict[str, Any]) -> Answer:
        with self._lock:
            turn = self._turns.pop(0) if self._turns else None
        if turn is None:
            self.problems.append("the agent asked for more turns than the script has")
            return Answer(_call("abort", {"reason": "script exhausted"}))
        seen = "\n".join(message_text(m) for m in body.get("messages", []))
        missing = [text for text in turn.expect if text not in seen]
        if missing:
            self.problems.append(f"turn {turn}: the request lacks {missing}")
            return Answer(_call("abort", {"reason": "unexpected page"}))
        if turn.data is not None:
            return Answer(openai_body(text=json.dumps(turn.data)))
        try:
            calls = [(one.tool, resolve_refs(one.arguments, body)) for one in (turn, *turn.also)]
        except LookupError as error:
            self.problems.append(str(error))
            return Answer(_call("abort", {"reason": "no such element"}))
        return Answer(openai_body(calls=[(tool, json.dumps(args)) for tool, args in calls]))


def _call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return openai_body(calls=[(tool, json.dumps(arguments))])


def resolve_refs(value: Any, body: dict[str, Any]) -> Any:
    if isinstance(value, str):
        return _REF_QUERY.sub(lambda m: _find_ref(body, m.group(1)), value)
    if isinstance(value, list):
        return [resolve_refs(item, body) for item in value]
    if isinstance(value, dict):
        return {k: resolve_refs(v, body) for k, v in value.items()}
    return value


def _find_ref(body: dict[str, Any], query: str) -> str:
    for message in reversed(body.get("messages", [])):
        for line in message_text(message).splitlines():
            found = _REF_IN_LINE.search(line)
            if found and query in line:
                return found.group(1)
    raise LookupError(f"no element matching {query!r} in the page sent to the model")


@contextmanager
def wire_model(turns: Sequence[Turn]) -> Iterator[WireModel]:
    model = WireModel(turns)
    with serve(model.provider):
        yield model


ModelFactory = Callable[[Sequence[Turn]], WireModel]


async def wire_harness(
    make_harness: HarnessFactory, sites: str, model: WireModel, **overrides: Any
) -> Harness:
    """A server with the production browser agent, talking to `model`, allowed to reach the
    fixture sites."""
    return await make_harness(
        production=True,
        model=model.spec,
        network_allow=f"127.0.0.1:{sites.rsplit(':', 1)[1]}",
        browser=BrowserSettings(),
        **overrides,
    )
