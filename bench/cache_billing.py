"""What Anthropic and OpenAI would bill for a run's requests, prompt cache included, worked out
from the request bodies a fake provider server receives (the benchmark's model is scripted, so
no provider reports real usage).

A request is cut into blocks in the provider's prompt order, each with its tokens. Anthropic:
tools, system blocks, then every message's content blocks, each counted as its JSON with
cl100k_base (Anthropic publishes no tokenizer). OpenAI: tools, the structured-output schema,
then messages, counted as OpenAI's guide counts them with o200k_base, GPT-4.1's encoding
(bench/openai_prompt.py; each block's JSON, the upper bound, for comparison). The caches follow
the providers' published rules:

- Anthropic caches only where a block carries `cache_control` (a breakpoint), once the prefix up
  to it is at least 1,024 tokens (Claude Sonnet's minimum). A request reads the longest prefix
  already cached that ends at a breakpoint or at one of the 20 blocks before one, and writes
  from there to its last breakpoint. Reads cost 0.1x the input price, five-minute writes 1.25x.
- OpenAI caches every prompt of at least 1,024 tokens by itself: a request reads the longest
  prefix an earlier request of the run had, counted in steps of 128 tokens from 1,024. Reads
  cost what the model's price table says (GPT-4.1: a quarter); writing is free.

Every run starts with an empty cache (no other run's prefix to share): the figures are for one
task on its own, not for a busy service where runs share their rules."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.openai_prompt import Block, Count, canonical, openai_blocks

MIN_CACHED = 1024
LOOKBACK = 20
OPENAI_STEP = 128


@dataclass(frozen=True)
class Bill:
    input: int = 0  # every prompt token
    cached: int = 0  # of them, read from the cache
    written: int = 0  # of them, written to the cache
    output: int = 0

    def __add__(self, other: Bill) -> Bill:
        return Bill(
            self.input + other.input,
            self.cached + other.cached,
            self.written + other.written,
            self.output + other.output,
        )

    @property
    def uncached(self) -> int:
        return self.input - self.cached - self.written


@dataclass(frozen=True)
class Prices:
    """US dollars per million tokens, as the provider publishes them."""

    name: str
    input: float
    output: float
    cached: float
    write: float

    def dollars(self, bill: Bill) -> float:
        return (
            bill.uncached * self.input
            + bill.cached * self.cached
            + bill.written * self.write
            + bill.output * self.output
        ) / 1_000_000

    def token_equivalents(self, bill: Bill) -> float:
        """The bill in input tokens at the full input price."""
        return self.dollars(bill) * 1_000_000 / self.input


CLAUDE_SONNET = Prices(
    "Claude Sonnet 4.x: $3 in, $15 out, $0.30 cache read, $3.75 write", 3, 15, 0.3, 3.75
)
GPT_41 = Prices("GPT-4.1: $2 in, $8 out, $0.50 cached in", 2, 8, 0.5, 2)

Blocks = Callable[[dict[str, Any], Count], list[Block]]


def anthropic_blocks(body: dict[str, Any]) -> list[tuple[Any, bool]]:
    """(block, breakpoint) in Anthropic's prompt order."""
    system = body.get("system", [])
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    blocks = [*body.get("tools", []), *system]
    blocks += [b for m in body["messages"] for b in _content(m)]
    return [(b, isinstance(b, dict) and "cache_control" in b) for b in blocks]


def _content(message: dict[str, Any]) -> list[Any]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


@dataclass
class _Prefixes:
    hashes: list[str]
    tokens: list[int]  # of the prefix ending at each block


def _prefixes(blocks: list[Block]) -> _Prefixes:
    digest, total = hashlib.sha256(), 0
    hashes, tokens = [], []
    for text, size in blocks:
        digest.update(text.encode() + b"\x00")
        total += size
        hashes.append(digest.hexdigest())
        tokens.append(total)
    return _Prefixes(hashes, tokens)


class AnthropicCache:
    def __init__(self, count: Count) -> None:
        self._count = count
        self._entries: set[str] = set()

    def bill(self, body: dict[str, Any], output: int) -> Bill:
        blocks = anthropic_blocks(body)
        at = _prefixes([(text, self._count(text)) for text in (canonical(b) for b, _ in blocks)])
        points = [i for i, (_, marked) in enumerate(blocks) if marked]
        read_end = max((self._hit(at, point) for point in points), default=-1)
        read = at.tokens[read_end] if read_end >= 0 else 0
        written = 0
        last = points[-1] if points else -1
        if last > read_end and at.tokens[last] >= MIN_CACHED:
            written = at.tokens[last] - read
        self._entries.update(at.hashes[p] for p in points if at.tokens[p] >= MIN_CACHED)
        total = at.tokens[-1] if at.tokens else 0
        return Bill(total, read, written, output)

    def _hit(self, at: _Prefixes, point: int) -> int:
        """The end of the longest cached prefix at `point` or within the blocks before it."""
        for end in range(point, max(-1, point - LOOKBACK - 1), -1):
            if at.hashes[end] in self._entries:
                return end
        return -1


class OpenAICache:
    def __init__(self, count: Count, blocks: Blocks = openai_blocks) -> None:
        self._count, self._blocks = count, blocks
        self._seen: set[str] = set()

    def bill(self, body: dict[str, Any], output: int) -> Bill:
        at = _prefixes(self._blocks(body, self._count))
        matched = max((i for i, h in enumerate(at.hashes) if h in self._seen), default=-1)
        length = at.tokens[matched] if matched >= 0 else 0
        cached = 0
        if length >= MIN_CACHED:
            cached = MIN_CACHED + (length - MIN_CACHED) // OPENAI_STEP * OPENAI_STEP
        total = at.tokens[-1] if at.tokens else 0
        if total >= MIN_CACHED:
            self._seen.update(at.hashes)
        return Bill(total, cached, 0, output)
