"""Issue 11, item 9: URLs of the query that the run refuses to read are explained in the
prefetching:end message (loopback, cloud metadata, domain policy, robots.txt), naming each by
position and host only: the userinfo and query tokens of a refused address appear in no event
message."""

from __future__ import annotations

from outrider.v1 import params_pb2
from outrider.v1 import research_events_pb2 as re_pb
from tests.research.conftest import ResearchCaseFactory
from tests.research.events import complete, payloads
from tests.research.scenarios import turn
from tests.research.web import Server

SECRETS = ("hunter2", "SEKRET-LOOP", "SEKRET-META", "pa55w0rd", "SEKRET-DOMAIN", "SEKRET-ROBOTS")
PLAN = {
    "objective": "Learn about the last keeper.",
    "plan": "Read the linked page.",
    "complexity": "simple",
    "questions": ["Who was the last keeper?"],
    "queries": ["harbour point keeper"],
}
WRITER = "Agnes Trevelyan was the last principal keeper [S1]."


def query(web: Server, elsewhere: Server) -> str:
    return (
        "Summarise these pages: "
        f"{web.url}/lighthouse-keepers.html "
        f"http://keeper:hunter2@127.0.0.1:{elsewhere.port}/admin?token=SEKRET-LOOP "
        "http://169.254.169.254/latest/meta-data/iam/?X-Amz-Security-Token=SEKRET-META "
        "https://ops:pa55w0rd@blocked.example/console?key=SEKRET-DOMAIN "
        f"{web.url}/archive/keepers-1950.html?session=SEKRET-ROBOTS"
    )


async def test_refused_query_urls_are_explained_without_their_secrets(
    research_case: ResearchCaseFactory, elsewhere: Server
) -> None:
    script = {"turns": [turn("planner", data=PLAN), turn("writer", text=WRITER)]}
    case = await research_case(script, js_fallback=True)
    options = params_pb2.RunOptions(blocked_domains=["blocked.example"])
    events = await case.research(
        query(case.web, elsewhere), re_pb.RESEARCH_MODE_FAST, options=options
    )
    end = payloads(events, "prefetching_end")[0]
    assert (end.fetched, end.failed) == (1, 4)
    message = end.message
    assert message.startswith("Fetched 1 of 5 URLs. Not fetched: ")
    assert f"URL 2 (127.0.0.1:{elsewhere.port}) refused: " in message
    assert "is a loopback address" in message
    assert "URL 3 (169.254.169.254) refused: 169.254.169.254:80 is a cloud metadata" in message
    assert "URL 4 (blocked.example) refused: blocked.example is in this run's blocked_" in message
    assert f"URL 5 (127.0.0.1:{case.web.port}) disallowed by robots.txt" in message
    for event in events:
        payload = getattr(event.research, event.research.WhichOneof("event"))
        assert not any(s in payload.message for s in SECRETS), payload.message
    assert elsewhere.traffic.paths() == []  # refused before any request
    assert not [p for p in case.web.traffic.paths() if p.startswith("/archive/")]
    done = complete(events)
    assert done.metadata.metrics.robots_blocked == 1
    assert [p.url for p in done.metadata.cited_pages] == [f"{case.web.url}/lighthouse-keepers.html"]
    assert case.web.traffic.paths().count("/lighthouse-keepers.html") == 2  # and in Chromium
