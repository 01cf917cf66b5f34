"""The test IdP: node oidc-provider 8.8.1 (tests/identity/idp/idp.mjs) on a loopback port, with
signing keys the tests make and hold, so they can also mint the tokens the IdP never issues
(expired, for another issuer, `alg: none`, HS256 with the public key, ...)."""

from __future__ import annotations

import base64
import collections
import contextlib
import hashlib
import hmac
import json
import re
import secrets
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from tests.support.harness import REPO_ROOT

IDP_DIR = REPO_ROOT / "tests" / "identity" / "idp"
NODE = shutil.which("node") or "/usr/bin/node"
OUTRIDER_SCOPES = "runs.start runs.read runs.cancel runs.delete interactions.answer browser.control"


def new_key() -> dict[str, Any]:
    """A fresh RSA signing key as a private JWK with a kid."""
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk: dict[str, Any] = json.loads(RSAAlgorithm.to_jwk(private))
    jwk.pop("key_ops", None)  # "sign" only: the IdP would not verify with it
    return jwk | {"kid": secrets.token_hex(8), "alg": "RS256", "use": "sig"}


def public_pem(jwk: dict[str, Any]) -> bytes:
    key = RSAAlgorithm.from_jwk(jwk)
    assert isinstance(key, rsa.RSAPrivateKey)
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Idp:
    issuer: str
    keys: list[dict[str, Any]]
    process: subprocess.Popen[str]
    secrets: dict[str, str] = field(default_factory=dict)  # client id -> secret

    @property
    def port(self) -> int:
        return int(self.issuer.rsplit(":", 1)[1])

    # tokens the IdP issues

    def client_credentials(self, client_id: str, resource: str, scope: str = "") -> str:
        """A JWT access token of the client credentials grant for `resource` (RFC 8707)."""
        form = {"grant_type": "client_credentials", "resource": resource}
        if scope:
            form["scope"] = scope
        answer = httpx.post(
            f"{self.issuer}/token", data=form, auth=(client_id, self.secrets[client_id]), timeout=30
        )
        assert answer.status_code == 200, answer.text
        return str(answer.json()["access_token"])

    def rotate(self, keep_old: bool = True) -> dict[str, Any]:
        """A new signing key first (the old ones still listed, or withdrawn), in the running
        IdP."""
        self.keys[:] = [new_key(), *(self.keys if keep_old else [])]
        answer = httpx.post(f"{self.issuer}/_test/keys", json=self.keys, timeout=30)
        assert answer.status_code == 204, answer.text
        return self.keys[0]

    # tokens the tests make

    def mint(self, claims: dict[str, Any], key: dict[str, Any] | None = None, **header: Any) -> str:
        """A token signed with the IdP's current key (or `key`), with `iss` and times filled in
        unless `claims` sets them (None leaves a claim out)."""
        key = key or self.keys[0]
        now = int(time.time())
        full = {"iss": self.issuer, "iat": now, "exp": now + 300} | claims
        full = {k: v for k, v in full.items() if v is not None}
        signing = jwt.PyJWK(key).key
        return jwt.encode(full, signing, algorithm="RS256", headers={"kid": key["kid"]} | header)

    def unsigned(self, claims: dict[str, Any]) -> str:
        """`alg: none`: a header, the claims and no signature."""
        now = int(time.time())
        full = {"iss": self.issuer, "iat": now, "exp": now + 300} | claims
        header = {"alg": "none", "typ": "JWT", "kid": self.keys[0]["kid"]}
        return f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(full).encode())}."

    def hmac_with_public_key(self, claims: dict[str, Any]) -> str:
        """HS256 "signed" with the IdP's public key (PEM) as the secret: the classic confusion."""
        now = int(time.time())
        full = {"iss": self.issuer, "iat": now, "exp": now + 300} | claims
        header = {"alg": "HS256", "typ": "JWT", "kid": self.keys[0]["kid"]}
        signing_input = f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(full).encode())}"
        mac = hmac.new(public_pem(self.keys[0]), signing_input.encode(), hashlib.sha256).digest()
        return f"{signing_input}.{_b64(mac)}"


@contextlib.contextmanager
def running_idp(folder: Path, config: dict[str, Any]) -> Iterator[Idp]:
    """The IdP with `config` (resources, scopes, clients with their secrets, accounts) and a
    fresh signing key."""
    keys = [new_key()]
    path = folder / "idp.json"
    path.write_text(json.dumps({"keys": keys, "scopes": OUTRIDER_SCOPES} | config))
    process = subprocess.Popen(
        [NODE, str(IDP_DIR / "idp.mjs")],
        cwd=IDP_DIR,
        env={"PATH": "/usr/bin:/bin", "IDP_CONFIG": str(path), "IDP_PORT": "0"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        issuer = _issuer(process)
        secrets_by_id = {c["client_id"]: c.get("client_secret", "") for c in config["clients"]}
        yield Idp(issuer, keys, process, secrets_by_id)
    finally:
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(10)
        if process.poll() is None:
            process.kill()
            process.wait(10)
        if process.stdout is not None:
            process.stdout.close()


def _issuer(process: subprocess.Popen[str]) -> str:
    """The issuer it prints once it serves; its later output is read (and dropped) by a thread
    so that it never blocks on a full pipe."""
    stdout = process.stdout
    assert stdout is not None
    lines = []
    for line in stdout:
        lines.append(line)
        found = re.search(r"IDP listening on (\S+)", line)
        if found:
            threading.Thread(target=collections.deque, args=(stdout, 0), daemon=True).start()
            return found.group(1)
    raise RuntimeError("the test IdP did not start:\n" + "".join(lines))
