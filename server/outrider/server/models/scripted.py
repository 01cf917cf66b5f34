"""A model that replays a scenario file of turns: deterministic agents for tests and demos.

Scenario (YAML or JSON):

    model: scripted:checkout-demo
    turns:
      - role: actor                      # optional: only a request of this role takes this turn
        expect: ["Example Domain"]       # optional: texts the request's messages must contain
        reply:
          text: "I will click the link"
          tool_calls: [{name: click, arguments: {ref: E3}}]   # several: carried out in order
          data: {quality: complete}      # optional structured output
          usage: {input_tokens: 120, output_tokens: 9}   # also cached_input_tokens,
          finish_reason: tool-calls                      # cache_write_tokens
      - error: "provider unavailable"    # this turn fails the call instead
      - role: actor
        when: ["The user declined"]      # optional: the turn is skipped unless these texts show
        reply: {tool_calls: [{name: done, arguments: {answer: "Not logged in."}}]}
      - role: analyser
        wait_for: /tmp/go                # optional: the call waits until this file exists
        reply: {data: {pages: []}}
    transcript: /tmp/requests.jsonl      # optional: every request is appended here as JSON

Each request takes the first unused turn whose role matches (or that has none) and whose `when`
texts all occur in the request. Running out of turns, or a request missing an expected text,
raises ModelError naming the turn.

A scenario may hold several scripts instead of `turns`; the first request of a run picks the
first branch whose `match` texts all occur in it (e.g. the task), so one model string can serve
several demo tasks:

    branches:
      - name: "Find the price of the Red Mug"   # named in the error when no branch matches
        match: ["Red Mug"]
        turns: [...]

Tool arguments may name page elements by what the snapshot shows instead of by ref:
`{{ref: link "Log in"}}` becomes the ref (e.g. "E7") of a line containing `link "Log in"` in the
newest message that has one (a page snapshot or a find result), so scenarios survive changes in
ref numbering. Every call of a reply is resolved against that same page, the one the turn was
chosen on, as a model's several calls of one turn are. Likewise `{{source: green-tea.html}}` in
reply text becomes the id (e.g. "S2") of the research source whose fenced page
(`<external_content id="S2" url="...">`) names that text, so a scripted writer cites the right
page whatever order the pages were fetched in.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from outrider.server.models.base import ModelError, ModelReply, ModelRequest, ToolCall, Usage


@dataclass(frozen=True)
class Turn:
    index: int
    role: str | None
    expect: tuple[str, ...]
    reply: ModelReply | None
    error: str | None
    when: tuple[str, ...] = ()
    wait_for: Path | None = None  # the call waits until this file exists (holds a test's run)

    def fits(self, role: str, seen: str) -> bool:
        return self.role in (None, role) and all(text in seen for text in self.when)


@dataclass(frozen=True)
class Branch:
    name: str
    match: tuple[str, ...]
    turns: list[Turn]


class ScriptedModel:
    def __init__(
        self,
        turns: list[Turn],
        name: str = "scripted:model",
        transcript: Path | None = None,
        branches: list[Branch] | None = None,
    ) -> None:
        self.name = name
        self._turns = list(turns)
        self._used: set[int] = set()
        self._transcript = transcript
        self._branches = branches  # chosen from by the first request, then None
        self.requests: list[ModelRequest] = []  # every request received, for assertions

    @classmethod
    def from_file(cls, path: Path) -> ScriptedModel:
        return cls.from_dict(yaml.safe_load(path.read_text()), default_name=f"scripted:{path.stem}")

    @classmethod
    def from_dict(
        cls, scenario: dict[str, Any], default_name: str = "scripted:model"
    ) -> ScriptedModel:
        turns = _parse_turns(scenario.get("turns", []))
        transcript = Path(scenario["transcript"]) if scenario.get("transcript") else None
        branches = [
            Branch(raw["name"], _texts(raw.get("match", [])), _parse_turns(raw["turns"]))
            for raw in scenario.get("branches", [])
        ]
        return cls(turns, scenario.get("model", default_name), transcript, branches or None)

    @property
    def remaining(self) -> int:
        return len(self._turns) - len(self._used)

    async def aclose(self) -> None:
        """Nothing to release: the script lives in memory."""

    async def generate(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        self._record(request)
        seen = "\n".join(message.text for message in request.messages)
        if self._branches is not None:
            self._turns, self._branches = self._choose(seen).turns, None
        turn = self._next_turn(request.role, seen)
        self._used.add(turn.index)
        _check_expectations(turn, seen)
        # polled: another process (a test) creates the file, so there is no event to await
        while turn.wait_for is not None and not turn.wait_for.exists():  # noqa: ASYNC110
            await asyncio.sleep(0.05)
        if turn.error is not None:
            raise ModelError(turn.error)
        assert turn.reply is not None
        return _with_sources(turn, _with_refs(turn, request), seen)

    def _record(self, request: ModelRequest) -> None:
        """Appends what the model was sent to the scenario's transcript file, if it names one."""
        if self._transcript is None:
            return
        entry = {
            "role": request.role,
            "messages": [m.text for m in request.messages],
            "images": [i.media_type for m in request.messages for i in m.images],
            "tools": [t.name for t in request.tools],
        }
        with self._transcript.open("a") as handle:
            handle.write(json.dumps(entry) + "\n")

    def _choose(self, seen: str) -> Branch:
        assert self._branches is not None
        for branch in self._branches:
            if all(text in seen for text in branch.match):
                return branch
        known = "; ".join(repr(branch.name) for branch in self._branches)
        raise ModelError(
            f"{self.name} is a scripted model and knows only these tasks: {known}. "
            "Configure a real model (OUTRIDER_MODEL) for anything else."
        )

    def _next_turn(self, role: str, seen: str) -> Turn:
        for turn in self._turns:
            if turn.index not in self._used and turn.fits(role, seen):
                return turn
        raise ModelError(
            f"{self.name}: no scripted turn left for a {role!r} request "
            f"({len(self._used)} of {len(self._turns)} turns used)"
        )


_REF_QUERY = re.compile(r"\{\{ref:\s*(.+?)\s*\}\}")
_REF_IN_LINE = re.compile(r"\[(E\d+)\]")


_SOURCE_QUERY = re.compile(r"\{\{source:\s*(.+?)\s*\}\}")
_SOURCE_FENCE = re.compile(r'<external_content id="(S\d+)" url="([^"]*)"')


def _with_sources(turn: Turn, reply: ModelReply, seen: str) -> ModelReply:
    """The reply's text with {{source: ...}} replaced by the id of the source whose URL has it."""
    if "{{source:" not in reply.text:
        return reply
    sources = dict(_SOURCE_FENCE.findall(seen))

    def source_id(match: re.Match[str]) -> str:
        for source, url in sources.items():
            if match.group(1) in url:
                return str(source)
        raise ModelError(f"scripted turn {turn.index}: no source whose URL has {match.group(1)!r}")

    return replace(reply, text=_SOURCE_QUERY.sub(source_id, reply.text))


def _with_refs(turn: Turn, request: ModelRequest) -> ModelReply:
    """The turn's reply with {{ref: ...}} queries resolved against the request's newest page."""
    assert turn.reply is not None
    if not turn.reply.tool_calls:
        return turn.reply
    pages = [m.text for m in reversed(request.messages) if _REF_IN_LINE.search(m.text)]

    def resolve(value: Any) -> Any:
        if isinstance(value, str):
            return _REF_QUERY.sub(lambda m: _find_ref(turn, pages, m.group(1)), value)
        if isinstance(value, list):
            return [resolve(item) for item in value]
        return value

    calls = tuple(
        ToolCall(c.id, c.name, {k: resolve(v) for k, v in c.arguments.items()})
        for c in turn.reply.tool_calls
    )
    return replace(turn.reply, tool_calls=calls)


def _find_ref(turn: Turn, pages: list[str], query: str) -> str:
    """The ref on the newest line (of the newest message showing one) that contains `query`."""
    for page in pages:
        for line in page.splitlines():
            found = _REF_IN_LINE.search(line)
            if found and query in line:
                return found.group(1)
    raise ModelError(f"scripted turn {turn.index}: no element matching {query!r} in the page")


def _check_expectations(turn: Turn, seen: str) -> None:
    missing = [text for text in turn.expect if text not in seen]
    if missing:
        tail = " ".join(seen.split())[-300:]  # what it got instead, for whoever reads the failure
        raise ModelError(
            f"scripted turn {turn.index}: the request does not contain {missing}; it ends: {tail}"
        )


def _texts(raw: str | list[str]) -> tuple[str, ...]:
    return (raw,) if isinstance(raw, str) else tuple(raw)


def _parse_turns(raw: list[dict[str, Any]]) -> list[Turn]:
    return [_parse_turn(index, turn) for index, turn in enumerate(raw)]


def _parse_turn(index: int, raw: dict[str, Any]) -> Turn:
    reply = _parse_reply(index, raw["reply"]) if "reply" in raw else None
    if reply is None and "error" not in raw:
        raise ValueError(f"scripted turn {index} needs a reply or an error")
    return Turn(
        index,
        raw.get("role"),
        _texts(raw.get("expect", [])),
        reply,
        raw.get("error"),
        _texts(raw.get("when", [])),
        Path(raw["wait_for"]) if raw.get("wait_for") else None,
    )


def _parse_reply(index: int, raw: dict[str, Any]) -> ModelReply:
    calls = tuple(
        ToolCall(call.get("id", f"call_{index}_{n}"), call["name"], call.get("arguments", {}))
        for n, call in enumerate(raw.get("tool_calls", []))
    )
    usage = Usage(**raw.get("usage", {}))
    default_finish = "tool-calls" if calls else "stop"
    return ModelReply(
        text=raw.get("text", ""),
        tool_calls=calls,
        usage=usage,
        finish_reason=raw.get("finish_reason", default_finish),
        data=raw.get("data"),
        model=raw.get("model", ""),
    )
