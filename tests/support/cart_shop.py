"""A shop on 127.0.0.1 whose cart lives on the server under a session cookie (no Max-Age: gone
with the browser context), so only the same browser can check out what it put in the cart. It
counts the requests each path receives and keeps the orders placed, for tests to assert on; its
/live page asks for /ping five times a second for as long as a browser shows it (/live?as=x
asks for /ping?as=x, so two pages' pings are counted apart).

The long way to the same button, for runs that must find it (bench/bench_sessions.py): /login
(a member's sign-in by email, kept in a `user` cookie), /mugs (a category) and /mugs/red-mug
(the product page with its own add-to-cart button)."""

from __future__ import annotations

import collections
import html
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

PRODUCTS = {"red-mug": "Red Mug", "blue-teapot": "Blue Teapot"}


@dataclass
class CartShop:
    url: str = ""
    carts: dict[str, list[str]] = field(default_factory=dict)
    orders: list[list[str]] = field(default_factory=list)
    hits: collections.Counter[str] = field(default_factory=collections.Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, method: str, path: str) -> int:
        with self.lock:
            return self.hits[f"{method} {path}"]


def _page(title: str, body: str) -> bytes:
    head = f"<!doctype html><html><head><title>{title}</title></head>"
    return f"{head}<body>{body}</body></html>".encode()


def _add_form(key: str) -> str:
    return (
        f'<form method="post" action="/cart/add"><input type="hidden" name="item" '
        f'value="{key}"><button>Add {PRODUCTS[key]} to cart</button></form>'
    )


def _shop_page(user: str) -> bytes:
    items = "".join(f"<li>{name} {_add_form(key)}</li>" for key, name in PRODUCTS.items())
    who = f"<p>Signed in as {html.escape(user)}</p>" if user else '<a href="/login">Log in</a>'
    links = '<a href="/cart">Cart</a> <a href="/mugs">Mugs</a>'
    return _page("Cart Shop", f"<h1>Cart Shop</h1>{who}<ul>{items}</ul>{links}")


_LOGIN = (
    '<h1>Log in</h1><form method="post" action="/login"><label>Member email <input '
    'name="email" type="email"></label><button>Log in</button></form>'
)
_MUGS = '<h1>Mugs</h1><ul><li><a href="/mugs/red-mug">Red Mug</a></li></ul>'
_RED_MUG = f"<h1>Red Mug</h1><p>A red mug, 350 ml.</p>{_add_form('red-mug')}"


_PINGING = (  # a page that asks for /ping (with its own query) five times a second while it lives
    "<h1>Still here</h1><script>setInterval(() => fetch('/ping' + location.search), 200)</script>"
)


def _cart_page(items: list[str]) -> bytes:
    rows = "".join(f"<li>{html.escape(PRODUCTS[i])}</li>" for i in items) or "<li>empty</li>"
    checkout = '<form method="post" action="/checkout"><button>Check out</button></form>'
    return _page("Your cart", f"<h1>Your cart</h1><ul>{rows}</ul>{checkout}")


def _order_page(number: int, items: list[str]) -> bytes:
    names = ", ".join(PRODUCTS[i] for i in items) or "nothing"
    return _page("Order placed", f"<h1>Order {number} placed</h1><p>Items: {names}</p>")


_PAGES = {
    "/login": ("Log in", _LOGIN),
    "/mugs": ("Mugs", _MUGS),
    "/mugs/red-mug": ("Red Mug", _RED_MUG),
}


@contextmanager
def cart_shop() -> Iterator[CartShop]:
    shop = CartShop()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _sid(self) -> str | None:
            return self._cookie("sid")

        def _cookie(self, name: str) -> str | None:
            cookie = SimpleCookie(self.headers.get("Cookie", ""))
            return cookie[name].value if name in cookie else None

        def _send(self, body: bytes, cookie: str | None = None) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            if cookie:
                self.send_header("Set-Cookie", f"sid={cookie}; Path=/; HttpOnly")
            self.end_headers()
            self.wfile.write(body)

        def _redirect(self, to: str, cookie: str | None = None) -> None:
            self.send_response(303)
            self.send_header("Location", to)
            if cookie:
                self.send_header("Set-Cookie", f"sid={cookie}; Path=/; HttpOnly")
            self.end_headers()

        def _signed_in(self, email: str) -> None:
            self.send_response(303)
            self.send_header("Location", "/")
            self.send_header("Set-Cookie", f"user={email}; Path=/; HttpOnly")
            self.end_headers()

        def do_GET(self) -> None:
            with shop.lock:
                shop.hits[f"GET {self.path}"] += 1
                cart = list(shop.carts.get(self._sid() or "", []))
            if self.path == "/cart":
                self._send(_cart_page(cart))
            elif self.path.split("?")[0] == "/live":
                self._send(_page("Still here", _PINGING))
            elif self.path.split("?")[0] == "/ping":
                self._send(b"")
            elif self.path in _PAGES:
                self._send(_page(*_PAGES[self.path]))
            elif self.path.startswith("/order/"):
                number = int(self.path.rsplit("/", 1)[1])
                self._send(_order_page(number, shop.orders[number - 1]))
            else:
                self._send(_shop_page(self._cookie("user") or ""))

        def do_POST(self) -> None:
            form = parse_qs(self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode())
            sid = self._sid()
            with shop.lock:
                shop.hits[f"POST {self.path}"] += 1
                if self.path == "/login":
                    self._signed_in(form.get("email", [""])[0])
                    return
                if self.path == "/cart/add":
                    new = None if sid else secrets.token_hex(8)
                    shop.carts.setdefault(sid or str(new), []).append(form["item"][0])
                    redirect: tuple[str, str | None] = ("/cart", new)
                else:  # /checkout: an order of whatever this browser's cart holds
                    shop.orders.append(shop.carts.pop(sid or "", []))
                    redirect = (f"/order/{len(shop.orders)}", None)
            self._redirect(*redirect)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, name="cart-shop", daemon=True)
    thread.start()
    shop.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield shop
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
