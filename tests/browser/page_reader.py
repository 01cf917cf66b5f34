"""A model at the wire that sees only the request JSON: a fake OpenAI-compatible server whose
actor reads the newest page view and the last tool result from the request body and picks its
next tool call with a small policy, as a model author reading the view would. Planning,
extraction and validation get plain answers."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from outrider.server.settings.browser import BrowserSettings
from tests.conftest import HarnessFactory
from tests.models.dialects import OPENAI
from tests.models.fake_providers import Answer, FakeProvider
from tests.support.harness import Harness

PLAN = {"plan": "Do the task on the page.", "success_criteria": "The task is done."}
VERDICT = {"completion_quality": "complete", "observation": "Done."}
_REF = re.compile(r"\[(E\d+)\]")


@dataclass(frozen=True)
class Seen:
    """What the actor's request shows: the newest page view and the last tool result."""

    page: str
    last_result: str
    user_messages: int = 2  # the task, the page, and anything else from the harness

    def line(self, *parts: str) -> str | None:
        """The first view line containing every part."""
        return next((ln for ln in self.page.splitlines() if all(p in ln for p in parts)), None)

    def ref(self, *parts: str) -> str:
        found = self.line(*parts)
        ref = _REF.search(found or "")
        if ref is None:
            raise AssertionError(f"no element with {parts} in the view:\n{self.page}")
        return ref.group(1)


Call = tuple[str, dict[str, Any]]
Policy = Callable[[Seen], Call]


@dataclass
class PageReader:
    policy: Policy
    seen: list[Seen] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> Answer:
        schema = OPENAI.schema_in(body)
        if schema is not None:
            plan = "plan" in schema.get("properties", {})
            return Answer(OPENAI.structured(PLAN if plan else VERDICT))
        if not OPENAI.tools_in(body):
            return Answer(OPENAI.text("(extracted)"))
        messages = body["messages"]
        users = sum(m["role"] == "user" for m in messages)
        seen = Seen(_newest_page(messages), _last_result(messages), users)
        self.seen.append(seen)
        name, arguments = self.policy(seen)
        return Answer(OPENAI.call(name, arguments))


def _text(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content)
    return str(content)


def _newest_page(messages: list[dict[str, Any]]) -> str:
    pages = [_text(m) for m in messages if "<<<EXTERNAL_CONTENT" in _text(m)]
    return pages[-1] if pages else ""


def _last_result(messages: list[dict[str, Any]]) -> str:
    results = [_text(m) for m in messages if m["role"] == "tool"]
    return results[-1] if results else ""


async def start(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str, **browser: Any
) -> Harness:
    return await make_harness(
        production=True,
        model=OPENAI.spec(fake),
        providers=OPENAI.provider_settings(fake, timeout=30.0),
        network_allow=f"127.0.0.1:{sites.rsplit(':', 1)[1]}",
        browser=BrowserSettings(**browser),
    )
