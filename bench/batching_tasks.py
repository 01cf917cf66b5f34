"""The form tasks of the batching benchmark (issue 27) and the model that plays them at the wire.

Each task is the actor's turns as a model batching where the system rules say so would send
them (a form's fields, boxes and options, then its button); the one-action-per-turn side gets
the same calls one per turn, as the rules before batching asked. The model is scripted: it
batches exactly where it was told to, never wrongly, and reads no page to decide anything (the
`{{ref: ...}}` queries find each element on the page it was sent). Its replies are answered in
Anthropic's or OpenAI's protocol with the usage the provider would report for the run alone
(bench/cache_billing); what it would bill with the cache also holding the earlier runs' prompts
on the same server (a busy service, whose runs share the rules) is worked out beside it.
"""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from bench.cache_billing import AnthropicCache, Bill, OpenAICache
from bench.openai_prompt import Count, json_blocks
from tests.browser.wire_model import message_text, resolve_refs
from tests.models.fake_providers import Answer, anthropic_body, openai_body

Call = tuple[str, dict[str, Any]]
PLAN = {
    "plan": "Fill in the form from the task, send it, read the result.",
    "success_criteria": "The page confirms it.",
}
VERDICT = {"completion_quality": "complete", "observation": "The page confirms the task."}


def ref(text: str) -> str:
    return f"{{{{ref: {text}}}}}"


@dataclass(frozen=True)
class Task:
    name: str
    page: str
    task: str
    turns: list[list[Call]]  # the actor's turns, batched
    expect: str  # on the page of the last turn (done)
    in_issue: bool = True  # one of the issue's three form tasks

    def script(self, batched: bool) -> list[list[Call]]:
        return self.turns if batched else [[call] for turn in self.turns for call in turn]


def _fill(target: str, value: str) -> Call:
    return ("fill", {"ref": ref(target), "value": value})


def _click(target: str) -> Call:
    return ("click", {"ref": ref(target)})


def _check(target: str) -> Call:
    return ("check", {"ref": ref(target)})


def _select(target: str, value: str) -> Call:
    return ("select", {"ref": ref(target), "values": [value]})


def _done(answer: str) -> list[Call]:
    return [("done", {"answer": answer})]


TASKS = [
    Task(
        "signup",
        "/browser/signup.html",
        "Sign up as Ada Lovelace (ada@example.com) from Peru, Pro plan, born 1815-12-10, "
        "with the newsletter.",
        [
            [
                _fill('input "Full name"', "Ada Lovelace"),
                _fill('input "Email"', "ada@example.com"),
                _select('select "Country"', "Peru"),
                _check('radio "Pro"'),
                _fill('"Birthday"', "1815-12-10"),
                _check('checkbox "Send me news"'),
                _click('button "Create account"'),
            ],
            _done("Signed up."),
        ],
        "Welcome aboard",
    ),
    Task(
        "wizard",
        "/forms/wizard.html",
        "Open an account for Ada Lovelace, ada@example.com, +44 20 7946 0000, at 12 Analytical "
        "Row, EC1 London, Germany; newsletter yes; accept the terms.",
        [
            [
                _fill('input "Full name"', "Ada Lovelace"),
                _fill('input "Email"', "ada@example.com"),
                _fill('input "Phone"', "+44 20 7946 0000"),
                _click('button "Next: address"'),
            ],
            [
                _fill('input "Street"', "12 Analytical Row"),
                _fill('input "City"', "London"),
                _fill('input "Postcode"', "EC1"),
                _select('select "Country"', "Germany"),
                _click('button "Next: preferences"'),
            ],
            [
                _check('checkbox "Send me the newsletter"'),
                _check('checkbox "I accept the terms"'),
                _click('button "Open the account"'),
            ],
            _done("The account is open."),
        ],
        "Account opened for Ada Lovelace",
    ),
    Task(
        "orders",
        "/forms/orders.html",
        "Which of Globex's overdue orders from February 2024 are over $100? Give their numbers.",
        [
            [
                _fill('input "Customer"', "Globex"),
                _select('select "Status"', "Overdue"),
                _fill('"From"', "2024-02-01"),
                _fill('"To"', "2024-02-29"),
                _check('checkbox "Only orders over $100"'),
                _click('button "Apply filters"'),
            ],
            _done("ORD-2047 ($102.00)."),
        ],
        "ORD-2047",
    ),
    Task(
        "search",
        "/forms/orders.html",
        "How many orders does Hooli have?",
        [
            [_fill('input "Customer"', "Hooli"), _click('button "Apply filters"')],
            _done("12 orders."),
        ],
        "12 of 60 orders",
        in_issue=False,
    ),
]


# Not measured: the first run on a server launches Chromium.
WARM_UP = Task(
    "warm-up", "/shop/index.html", "What does the Red Mug cost?", [_done("$8.25")], "Red Mug"
)


@dataclass
class Played:
    """What one run's model was asked and billed."""

    calls: int = 0
    bill: Bill = field(default_factory=Bill)  # with a cache of this run's requests only
    warm: Bill = field(default_factory=Bill)  # with a cache of every run before on this server
    as_json: Bill = field(default_factory=Bill)  # OpenAI: as `bill`, every block counted as JSON
    problems: list[str] = field(default_factory=list)


class WirePlayer:
    """Answers a run's requests in one provider's protocol: the plan, the actor's turns, the
    verdict; each after `latency` seconds, with the usage that provider would report."""

    def __init__(self, provider: str, count: Count, latency: float) -> None:
        self.provider, self._count, self._latency = provider, count, latency
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._warm_cache = self._new_cache()
        self.start([])

    def _new_cache(self) -> AnthropicCache | OpenAICache:
        return (AnthropicCache if self.provider == "anthropic" else OpenAICache)(self._count)

    def start(self, turns: list[list[Call]], expect: str = "") -> Played:
        """A new run (and a cold cache) whose last turn's page shows `expect`: returns what it
        will have played."""
        with self._lock:
            self._turns, self._expect = list(turns), expect
            self._cache = self._new_cache()
            self._json_cache = OpenAICache(self._count, json_blocks)
            self.played = Played()
        return self.played

    def __call__(self, body: dict[str, Any]) -> Answer:
        with self._lock:
            structured = _structured(body)
            if structured is not None:
                reply: tuple[str | None, list[Call]] = (json.dumps(structured), [])
            else:
                reply = (None, self._next_turn(body))
            return self._answer(body, *reply)

    def _next_turn(self, body: dict[str, Any]) -> list[Call]:
        if not self._turns:
            self.played.problems.append("the agent asked for more turns than the script has")
            return [("abort", {"reason": "script exhausted"})]
        turn = self._turns.pop(0)
        if not self._turns and self._expect not in page_text(body):
            self.played.problems.append(f"the last page does not show {self._expect!r}")
            return [("abort", {"reason": "unexpected page"})]
        try:
            return [(name, resolve_refs(arguments, body)) for name, arguments in turn]
        except LookupError as error:
            self.played.problems.append(str(error))
            return [("abort", {"reason": "no such element"})]

    def _answer(self, body: dict[str, Any], text: str | None, calls: list[Call]) -> Answer:
        output = self._count(json.dumps([text, calls]))
        bill = self._cache.bill(body, output)
        self.played.calls += 1
        self.played.bill += bill
        self.played.warm += self._warm_cache.bill(body, output)
        if self.provider == "openai":
            self.played.as_json += self._json_cache.bill(body, output)
        usage, cache = (bill.input, output), (bill.cached, bill.written)
        reply = self._body(text, calls, usage, cache)
        return Answer(reply, delay=self._latency)

    def _body(
        self, text: str | None, calls: list[Call], usage: tuple[int, int], cache: tuple[int, int]
    ) -> dict[str, Any]:
        if self.provider == "anthropic":
            if text is not None:  # a structured reply is Anthropic's forced `reply` tool
                calls, text = [("reply", json.loads(text))], None
            body = anthropic_body(text, calls, usage=usage, cache=cache)
            for block in body["content"]:
                if block["type"] == "tool_use":
                    block["id"] = f"toolu_{next(self._ids)}"
            return body
        body = openai_body(text, [(n, json.dumps(a)) for n, a in calls], usage=usage, cache=cache)
        for call in body["choices"][0]["message"].get("tool_calls", []):
            call["id"] = f"call_{next(self._ids)}"
        return body


def _structured(body: dict[str, Any]) -> dict[str, Any] | None:
    """The plan or the verdict, when the request asks for one (by its output schema)."""
    schema: dict[str, Any] | None = None
    if body.get("tool_choice", {}).get("name") == "reply":
        schema = next(t["input_schema"] for t in body["tools"] if t["name"] == "reply")
    elif "response_format" in body:
        schema = body["response_format"]["json_schema"]["schema"]
    if schema is None:
        return None
    return PLAN if "plan" in schema.get("properties", {}) else VERDICT


def page_text(body: dict[str, Any]) -> str:
    return "\n".join(message_text(m) for m in body.get("messages", []))
