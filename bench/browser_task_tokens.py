"""Tokens the model is sent over a whole multi-step task, request by request (issue 16, item 2).

The five-step invoices task (tests/fixtures/sites/view/invoices.html: "Next page" four times,
then done) run by the production server with a scripted model that records every request it
receives. Each actor request is counted as the model would be billed for it: all of its message
texts (system rules, task, the assistant's words, tool results, the page message and any older
page placeholder), summed over the task's requests; the same plus the tool schemas sent with
every request (counted as the JSON of name, description and parameters of that commit's
`browser_tools`; each provider wraps them its own way); and the page part alone (page messages
and placeholders). Tool-call arguments are not in the transcript and are left out (a few tokens,
the same on both sides).

`--before COMMIT ...` runs the same task on the server of each of those commits (its tree taken
with `git archive`, its modules first on PYTHONPATH), alternating with this checkout, so every
figure is from the same machine state. It also counts, from this checkout's transcript, what a
"send only what changed" scheme would put in each request: the first full page kept in the
conversation plus the lines of the newest page that it lacks.

Run from the repo root:
`.venv/bin/python -m bench.browser_task_tokens --before b9ab282 [--rounds N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from bench.browser_pages import REPO_ROOT, serve_pages
from bench.browser_report import table
from bench.browser_runs import one_run, write_scenario
from bench.browser_server import ServerProcess
from bench.browser_tokens import token_counter

NEXT = {"name": "click", "arguments": {"ref": '{{ref: button "Next page"}}'}}
PAGE_MARKERS = ("<<<EXTERNAL_CONTENT", "older page snapshot")  # a page, a page left out


@dataclass(frozen=True)
class TaskTokens:
    requests: int
    all_text: int  # every message text of every actor request
    page: int  # the page messages and placeholders of every actor request
    delta: int  # a "what changed" scheme, from the same pages (this checkout only)
    url_shown: int  # the page part had every page shown its URL instead of "Starting URL"
    tools: int = 0  # the tool schemas of one request

    @property
    def with_tools(self) -> int:
        return self.all_text + self.requests * self.tools


def tree_of(commit: str, into: Path) -> Path:
    """The commit's files (no .git) under `into`, for its server to run from."""
    archive = subprocess.run(
        ["git", "archive", commit], cwd=REPO_ROOT, check=True, capture_output=True
    ).stdout
    into.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


_TOOLS_JSON = """
import json
from outrider.server.browser.tools import browser_tools
specs = [
    {"name": t.name, "description": t.description, "parameters": t.parameters}
    for t in browser_tools(False)
]
print(json.dumps(specs))
"""


def tool_tokens(root: Path) -> int:
    """Tokens of the tool schemas the actor is sent with each request, at that checkout."""
    env = {"PYTHONPATH": f"{root / 'server'}:{root / 'client'}"} if root != REPO_ROOT else {}
    found = subprocess.run(
        [sys.executable, "-c", _TOOLS_JSON],
        cwd=root,
        env=os.environ | env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return int(token_counter().count(found.strip()))


def is_page(index: int, text: str) -> bool:
    """A page message or placeholder (the system rules, message 0, name the fence too)."""
    return index > 0 and any(marker in text for marker in PAGE_MARKERS)


def counted(transcript: Path) -> TaskTokens:
    count = token_counter().count
    actor = [
        json.loads(line)["messages"]
        for line in transcript.read_text().splitlines()
        if json.loads(line)["role"] == "actor"
    ]
    all_text = sum(count(text) for messages in actor for text in messages)
    page = sum(
        count(text) for messages in actor for i, text in enumerate(messages) if is_page(i, text)
    )
    start = next(m for m in actor[0] if m.startswith("Task:")).split("Starting URL: ")[1]
    shown = sum(
        count(text.replace(f"{PAGE_MARKERS[0]} Starting URL", f"{PAGE_MARKERS[0]} {start}", 1))
        for messages in actor
        for i, text in enumerate(messages)
        if is_page(i, text)
    )
    return TaskTokens(len(actor), all_text, page, delta_scheme(actor, count), shown)


def delta_scheme(actor: list[list[str]], count: object) -> int:
    """Page tokens per request if the first page stayed in the conversation and each later
    request carried, besides it, only the newest page's lines the first page lacks."""
    assert callable(count)
    pages = [next(t for t in reversed(messages[1:]) if PAGE_MARKERS[0] in t) for messages in actor]
    first = pages[0]
    total = 0
    for newest in pages:
        changed = [ln for ln in newest.splitlines() if ln not in first.splitlines()]
        total += count(first) + (count("\n".join(changed)) if newest is not first else 0)
    return int(total)


async def run_task(root: Path, base: str, scratch: Path) -> TaskTokens:
    transcript = scratch / "transcript.jsonl"
    model = write_scenario(scratch / "scenario.yaml", [NEXT] * 4, transcript=transcript)
    server = ServerProcess(allow=base.removeprefix("http://"), root=root)
    try:
        server.start()
        record = await one_run(server.target, f"{base}/view/invoices.html", model)
        if not record.success:
            raise RuntimeError(f"the task failed on {root}: {record.error}")
    finally:
        server.cleanup()
    return replace(counted(transcript), tools=tool_tokens(root))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", nargs="+", default=[], help="commits to compare with")
    parser.add_argument("--rounds", type=int, default=1, help="alternating runs per side")
    parser.add_argument("--keep", type=Path, help="copy each side's transcript into this folder")
    args = parser.parse_args()
    sides: dict[str, Path] = {}
    with tempfile.TemporaryDirectory(prefix="bench-task-tokens-") as temp:
        for commit in args.before:
            sides[commit] = tree_of(commit, Path(temp) / commit)
        sides["this checkout"] = REPO_ROOT
        found: dict[str, TaskTokens] = {}
        seen: dict[str, set[TaskTokens]] = {name: set() for name in sides}
        with serve_pages() as base:
            for round_ in range(args.rounds):
                for name, root in sides.items():
                    scratch = Path(temp) / f"run-{round_}-{len(found)}-{name.replace(' ', '-')}"
                    scratch.mkdir()
                    found[name] = asyncio.run(run_task(root, base, scratch))
                    seen[name].add(found[name])
                    if args.keep:
                        args.keep.mkdir(parents=True, exist_ok=True)
                        target = args.keep / f"{name.replace(' ', '-')}.jsonl"
                        target.write_text((scratch / "transcript.jsonl").read_text())
    reference = found[args.before[0]] if args.before else found["this checkout"]
    rows = [
        [
            name,
            str(tokens.requests),
            f"{tokens.all_text:,}",
            f"{tokens.with_tools:,}",
            f"{tokens.page:,}",
            f"{tokens.all_text / reference.all_text:.2f}",
            f"{tokens.with_tools / reference.with_tools:.2f}",
            f"{tokens.page / reference.page:.2f}",
        ]
        for name, tokens in found.items()
    ]
    headers = [
        "server",
        "actor requests",
        "all message text",
        "+ tool schemas",
        "page part",
        "all / ref",
        "+ tools / ref",
        "page / ref",
    ]
    mine = found["this checkout"]
    sys.stdout.write(
        f"cl100k_base tokens ({token_counter().method}), summed over the actor requests of the "
        f"five-step invoices task; ref = {args.before[0] if args.before else 'this checkout'}\n\n"
        f"{table(headers, rows)}\n\nthis checkout's pages as a 'what changed' scheme would send "
        f"them (first page kept + lines it lacks): {mine.delta:,} page tokens against "
        f"{mine.page:,} sent today\nthis checkout's page part had every page shown its URL "
        f"instead of 'Starting URL': {mine.url_shown:,} ({mine.url_shown / reference.page:.2f} "
        f"of ref)\n"
    )
    varied = [name for name, runs in seen.items() if len(runs) > 1]
    sys.stdout.write(f"rounds: {args.rounds}; sides whose counts varied: {varied or 'none'}\n")


if __name__ == "__main__":
    main()
