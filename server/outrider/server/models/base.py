"""One small interface every model adapter implements, provider-neutral.

Agents build a ModelRequest (messages, optional tools, optional output schema) and get a ModelReply
(text and/or tool calls, usage, finish reason). Adapters translate to and from a provider's wire
format; the scripted model replays a scenario file for tests and demos.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

Role = Literal["system", "user", "assistant", "tool"]
FinishReason = Literal["stop", "length", "content-filter", "tool-calls", "error", "other"]


@dataclass(frozen=True)
class ImagePart:
    """An image input (e.g. a screenshot) for models with vision."""

    data: bytes
    media_type: str = "image/png"


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Message:
    role: Role
    text: str = ""
    images: tuple[ImagePart, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()  # assistant messages that called tools
    tool_call_id: str = ""  # tool messages: the call this answers


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]  # JSON Schema of the arguments


@dataclass(frozen=True)
class ModelRequest:
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    output_schema: dict[str, Any] | None = None  # ask for JSON matching this schema
    role: str = "default"  # which agent role asks: actor, validator, planner, writer, judge, ...
    temperature: float | None = None
    # Indexes of messages that end a prefix later calls send again byte for byte, in order: what
    # every run shares (tools, system rules), what this run's calls share (its task and plan),
    # the turns so far. Anthropic gets a cache breakpoint at each; OpenAI a cache key from the
    # run's prefix; all of them cache identical prefixes by themselves.
    cache_points: tuple[int, ...] = ()
    one_tool_call: bool = False  # ask the provider for at most one tool call per reply


@dataclass(frozen=True)
class Usage:
    """Tokens of a call. `input_tokens` counts every prompt token, the cached ones included (as
    OpenAI and Gemini report it, and as the GenAI conventions ask); `cached_input_tokens` of them
    were read from the provider's prompt cache and `cache_write_tokens` written to it (Anthropic
    bills writing; the others cache for free)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def uncached_input_tokens(self) -> int:
        """Input tokens billed at the full input price."""
        return max(0, self.input_tokens - self.cached_input_tokens - self.cache_write_tokens)

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_input_tokens + other.cached_input_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )


@dataclass(frozen=True)
class ModelReply:
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    finish_reason: FinishReason = "stop"
    model: str = ""
    data: Any = None  # parsed JSON when the request had an output schema


class ModelError(Exception):
    """A model call failed (transport, provider error, exhausted script)."""


class ChatModel(Protocol):
    """A model an agent can call. `name` is the configured id, e.g. "openai:gpt-4.1-mini"."""

    name: str

    async def generate(self, request: ModelRequest) -> ModelReply: ...

    async def aclose(self) -> None:
        """Releases the provider client's connections; the model is not called afterwards."""
