"""A site with a login behind a password and a TOTP second factor, served on 127.0.0.1 for the
profile and credential tests. It checks one-time codes with pyotp (not Outrider's code), keeps its
sign-in in a session-only cookie, and on the first signed-in page stores a token in localStorage
and a record in IndexedDB, which its account page then reports, so a test sees what a profile
brought back. It records every field it was sent, so a test sees what reached it (nothing, from a
look-alike). `expire()` signs everybody out."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pyotp

USER, PASSWORD = "ada@example.com", "c0rrect-h0rse-Battery"
SEED = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"  # the credential's TOTP seed (base32)
_PAGE = (
    "<!doctype html><html><head><title>{title}</title><style>body{{font:16px sans-serif;"
    "margin:40px}} label{{display:block;margin:12px 0}} input{{margin-left:8px}}</style>"
    "</head><body><h1>{title}</h1>{body}</body></html>"
)
_LOGIN = (
    '<form method="post" action="/login"><label>Email <input name="email" type="email" '
    'autofocus></label><label>Password <input name="password" type="password"></label>'
    '<button>Sign in</button></form><p>Need help? <a href="/help">Help</a></p>'
)
_VERIFY = (
    '<form method="post" action="/verify"><label>One-time code <input name="code" '
    'inputmode="numeric" autocomplete="one-time-code" autofocus></label>'
    "<button>Verify</button></form>"
)
# Stores a token and a record on the first signed-in page; every account page says what it finds.
_STORAGE_JS = """<p id="storage">Checking saved data…</p><script>
const first = location.search.includes('welcome');
if (first) localStorage.setItem('acme-token', 'tok-' + Math.random());
const open = indexedDB.open('acme', 1);
open.onupgradeneeded = () => open.result.createObjectStore('prefs', {keyPath: 'id'});
open.onsuccess = () => {
  const db = open.result;
  const done = (theme) => document.getElementById('storage').textContent =
    'Saved token: ' + (localStorage.getItem('acme-token') ? 'present' : 'absent') +
    '; saved theme: ' + (theme || 'none');
  if (first) {
    const tx = db.transaction('prefs', 'readwrite');
    tx.objectStore('prefs').put({id: 1, theme: 'dark'});
    tx.oncomplete = () => done('dark');
  } else {
    const get = db.transaction('prefs').objectStore('prefs').get(1);
    get.onsuccess = () => done(get.result && get.result.theme);
  }
};
</script>"""


@dataclass
class LoginSite:
    """What one site (one port) saw."""

    received: list[tuple[str, dict[str, str]]] = field(default_factory=list)  # (path, fields)
    codes_used: set[str] = field(default_factory=set)
    pending: set[str] = field(default_factory=set)
    sessions: set[str] = field(default_factory=set)
    sign_ins: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""

    def expire(self) -> None:
        with self.lock:
            self.sessions.clear()

    def values_received(self) -> list[str]:
        return [value for _, fields in self.received for value in fields.values()]


def _handler(site: LoginSite) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _cookie(self, name: str) -> str:
            jar = SimpleCookie(self.headers.get("Cookie", ""))
            return jar[name].value if name in jar else ""

        def _page(self, title: str, body: str, status: int = 200, cookie: str = "") -> None:
            data = _PAGE.format(title=title, body=body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            if cookie:  # no Expires, no Max-Age: a session-only cookie
                self.send_header("Set-Cookie", f"{cookie}; Path=/; HttpOnly; SameSite=Lax")
            self.end_headers()
            self.wfile.write(data)

        def _redirect(self, to: str, cookie: str = "") -> None:
            self.send_response(303)
            self.send_header("Location", to)
            if cookie:
                self.send_header("Set-Cookie", f"{cookie}; Path=/; HttpOnly; SameSite=Lax")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            with site.lock:
                signed_in = self._cookie("sid") in site.sessions
                pending = self._cookie("pending") in site.pending
            if path == "/account":
                if not signed_in:
                    return self._redirect("/login")
                body = f'<p>Signed in as {USER}</p><p><a href="/logout">Sign out</a></p>'
                return self._page("Your Acme account", body + _STORAGE_JS)
            if path == "/verify" and pending:
                return self._page("Verify it is you", _VERIFY)
            if path == "/help":
                return self._page("Acme help", "<p>Codes come from your authenticator app.</p>")
            return self._page("Sign in to Acme", _LOGIN)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            fields = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            path = urlsplit(self.path).path
            with site.lock:
                site.received.append((path, fields))
            if path == "/login":
                return self._login(fields)
            if path == "/verify":
                return self._verify(fields)
            return self._page("Not found", "<p>No such form.</p>", 404)

        def _login(self, fields: dict[str, str]) -> None:
            if fields.get("email") != USER or fields.get("password") != PASSWORD:
                return self._page("Sign in to Acme", "<p>Wrong email or password.</p>" + _LOGIN)
            token = secrets.token_hex(8)
            with site.lock:
                site.pending.add(token)
            self._redirect("/verify", f"pending={token}")

        def _verify(self, fields: dict[str, str]) -> None:
            code = fields.get("code", "")
            with site.lock:
                fresh = code not in site.codes_used
                site.codes_used.add(code)
                known = self._cookie("pending") in site.pending
            if not (known and fresh and pyotp.TOTP(SEED).verify(code, valid_window=1)):
                return self._page("Verify it is you", "<p>That code is not right.</p>" + _VERIFY)
            sid = secrets.token_hex(16)
            with site.lock:
                site.sessions.add(sid)
                site.sign_ins += 1
            self._redirect("/account?welcome=1", f"sid={sid}")

    return Handler


@contextmanager
def login_site() -> Iterator[LoginSite]:
    """A login site on a free loopback port; `site.url` is its base URL."""
    site = LoginSite()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(site))
    thread = threading.Thread(target=server.serve_forever, name="login-site", daemon=True)
    thread.start()
    site.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield site
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
