"""Local fake servers speaking the OpenAI chat-completions, Anthropic messages and Gemini
generateContent HTTP protocols, for the real SDKs to talk to.

A FakeProvider answers each POST with the next queued Answer, else with its `respond` function
(given the request body), and records every request it received."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Answer:
    body: dict[str, Any]
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering (timeouts)


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    raw: bytes = b""  # the body's bytes as sent


Respond = Callable[[dict[str, Any]], Answer]


def _no_answer(body: dict[str, Any]) -> Answer:
    return Answer({"error": {"message": "nothing queued"}}, status=400)


class FakeProvider:
    def __init__(self, respond: Respond = _no_answer) -> None:
        self.respond = respond
        self.queue: list[Answer | dict[str, Any]] = []  # a dict is a 200 with that body
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self.url = ""
        self.open_connections = 0  # keep-alive connections clients hold open right now

    def connection(self, change: int) -> None:
        with self._lock:
            self.open_connections += change

    def answer(
        self, path: str, headers: dict[str, str], body: dict[str, Any], raw: bytes = b""
    ) -> Answer:
        with self._lock:
            self.received.append(Received(path, headers, body, raw))
            queued = self.queue.pop(0) if self.queue else None
        if queued is None:
            return self.respond(body)
        return queued if isinstance(queued, Answer) else Answer(queued)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self.received]


@contextmanager
def serve(provider: FakeProvider) -> Iterator[FakeProvider]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real providers: clients must close

        def setup(self) -> None:
            super().setup()
            provider.connection(+1)

        def finish(self) -> None:
            provider.connection(-1)
            super().finish()

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            raw = self.rfile.read(length)
            body = json.loads(raw or b"{}")
            headers = {k.lower(): v for k, v in self.headers.items()}
            answer = provider.answer(self.path, headers, body, raw)
            time.sleep(answer.delay)
            payload = json.dumps(answer.body).encode()
            try:
                self.send_response(answer.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
            except OSError:
                pass  # the client gave up (a timeout test)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    provider.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield provider
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


# Reply bodies in each protocol -------------------------------------------------------------


# usage: (prompt tokens, output tokens); cache: (of those prompt tokens, read from the cache,
# written to it). Each body reports them in its provider's own way.


def openai_body(
    text: str | None = None,
    calls: list[tuple[str, str]] = (),  # type: ignore[assignment]
    finish: str = "",
    usage: tuple[int, int] = (10, 5),
    cache: tuple[int, int] = (0, 0),
) -> dict[str, Any]:
    tool_calls = [
        {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": args}}
        for n, (name, args) in enumerate(calls)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish or ("tool_calls" if calls else "stop"),
            }
        ],
        "usage": {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": sum(usage),
            "prompt_tokens_details": {"cached_tokens": cache[0]},
        },
    }


def anthropic_body(
    text: str | None = None,
    calls: list[tuple[str, Any]] = (),  # type: ignore[assignment]
    finish: str = "",
    usage: tuple[int, int] = (10, 5),
    cache: tuple[int, int] = (0, 0),
) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content.extend(
        {"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": args}
        for n, (name, args) in enumerate(calls)
    )
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "fake",
        "content": content,
        "stop_reason": finish or ("tool_use" if calls else "end_turn"),
        "stop_sequence": None,
        "usage": {  # Anthropic's input_tokens leaves out what was read or written
            "input_tokens": usage[0] - sum(cache),
            "output_tokens": usage[1],
            "cache_read_input_tokens": cache[0],
            "cache_creation_input_tokens": cache[1],
        },
    }


def gemini_body(
    text: str | None = None,
    calls: list[tuple[str, Any]] = (),  # type: ignore[assignment]
    finish: str = "STOP",
    usage: tuple[int, int] = (10, 5),
    finish_message: str = "",
    cache: tuple[int, int] = (0, 0),
) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": text}] if text else []
    parts.extend({"functionCall": {"name": name, "args": args}} for name, args in calls)
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": parts},
        "finishReason": finish,
        "index": 0,
    }
    if finish_message:
        candidate["finishMessage"] = finish_message
    return {
        "candidates": [candidate],
        "usageMetadata": {
            "promptTokenCount": usage[0],
            "candidatesTokenCount": usage[1],
            "totalTokenCount": sum(usage),
            "cachedContentTokenCount": cache[0],
        },
        "modelVersion": "fake",
    }


def error_body(status: int, message: str) -> dict[str, Any]:
    """An error in a shape all three SDKs read a message from."""
    return {"error": {"code": status, "message": message, "type": "error", "status": "ERROR"}}
