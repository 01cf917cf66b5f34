"""Webhook receivers for the tests: real HTTP servers on loopback that verify every delivery's
signature with the Standard Webhooks reference library (PyPI `standardwebhooks` here, npm's in
the Node receiver, `NodeReceiver`), record what arrived, and answer as the test tells them."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

NODE_DIR = Path(__file__).parent / "node"


@dataclass(frozen=True)
class Delivery:
    id: str
    type: str
    data: dict[str, Any]
    headers: dict[str, str]
    verified: tuple[bool, ...]  # one per secret the receiver knows


@dataclass
class Receiver:
    """`secrets`: the endpoint's secrets to verify with (all must verify); `status`: what it
    answers; `hold`: seconds it waits before answering; `retry_after`: a Retry-After header."""

    secrets: list[str] = field(default_factory=list)
    status: int = 204
    hold: float = 0.0
    retry_after: str | None = None
    deliveries: list[Delivery] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)
    _server: ThreadingHTTPServer | None = None
    port: int = 0

    def start(self, port: int = 0) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                headers = {k.lower(): v for k, v in self.headers.items()}
                receiver.record(body, headers)
                if receiver.hold:
                    time.sleep(receiver.hold)
                self.send_response(receiver.status)
                if receiver.retry_after is not None:
                    self.send_header("Retry-After", receiver.retry_after)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def record(self, body: bytes, headers: dict[str, str]) -> None:
        verified = tuple(_verifies(secret, body, headers) for secret in self.secrets)
        payload = json.loads(body)  # Standard Webhooks' {type, timestamp, data}; A2A's its own
        data = payload.get("data", payload)
        delivery = Delivery(headers["webhook-id"], payload.get("type", ""), data, headers, verified)
        self.deliveries.append(delivery)
        self.arrived.set()

    def stop(self) -> None:
        """Closes the port: deliveries are refused until `start(self.port)` again."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def of_type(self, kind: str) -> list[Delivery]:
        return [d for d in self.deliveries if d.type == kind]

    def ids(self, kind: str | None = None) -> set[str]:
        return {d.id for d in self.deliveries if kind is None or d.type == kind}


def _verifies(secret: str, body: bytes, headers: dict[str, str]) -> bool:
    try:
        Webhook(secret).verify(body, headers)
    except WebhookVerificationError:
        return False
    return True


class NodeReceiver:
    """The Node.js receiver (tests/webhooks/node/receiver.mjs) as a child process."""

    def __init__(self, secrets: list[str]) -> None:
        self._process = subprocess.Popen(
            ["node", "receiver.mjs", *secrets],
            cwd=NODE_DIR,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        first = self._process.stdout.readline()
        self.port = int(first.split()[1])
        self.lines: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            self.lines.append(json.loads(line))

    def close(self) -> None:
        self._process.kill()
        self._process.wait(10)
        if self._process.stdout is not None:
            self._process.stdout.close()
