"""Issue 11, item 7, end to end: the writer's reply arrives over the OpenAI wire protocol with
citations after question marks, bare URLs, an autolink, an image, a reference link to a page the
run never fetched and a dangling label. The published report keeps only URLs of fetched pages (as
id citations), counts every removal, and its grounding supports match its bytes."""

from __future__ import annotations

import json
from typing import Any

from outrider.v1 import params_pb2
from outrider.v1 import research_events_pb2 as re_pb
from tests.models.dialects import OPENAI
from tests.models.fake_providers import Answer, FakeProvider, openai_body
from tests.research.conftest import ResearchCaseFactory
from tests.research.events import complete, payloads
from tests.research.tides.conftest import results
from tests.research.web import SearchBehaviour

PLAN = {
    "objective": "Describe the tides and the lighthouse at Harbour Point.",
    "plan": "Search the almanac.",
    "complexity": "simple",
    "questions": ["How high do tides rise at Harbour Point?"],
    "queries": ["harbour point tides", "harbour point lighthouse"],
}


def writer_text(web: str) -> str:
    return (
        "# Harbour Point\n\n"
        "Do spring tides really reach 6.4 metres at Harbour Point? [S1]. They do! [S1, S7].\n"
        "The lighthouse flashes twice every fifteen seconds [S2].\n"
        "Agnes Trevelyan kept the light until 1987 [S3].\n"
        "Further details are at http://attacker.example/x.\n"
        "Also see <https://attacker.example/login?token=s3cret> and "
        "![chart](http://attacker.example/chart.png).\n"
        f"The article itself is at {web}/tides.html.\n"
        "Old letters tell more [keepers' letters][arch], and [a lost page][nowhere] too [S3].\n\n"
        f"[arch]: {web}/archive/keepers-1950.html\n"
    )


def model(web: str, roles: list[str]) -> Any:
    def respond(body: dict[str, Any]) -> Answer:
        fmt = body.get("response_format")
        role = fmt["json_schema"]["name"].removesuffix("_reply") if fmt else "writer"
        roles.append(role)
        text = json.dumps(PLAN) if role == "planner" else writer_text(web)
        return Answer(openai_body(text, usage=(500, 80)))

    return respond


async def test_only_fetched_pages_urls_survive_and_grounding_matches_the_report(
    research_case: ResearchCaseFactory, fake: FakeProvider, search_behaviour: SearchBehaviour
) -> None:
    case = await research_case(
        {"turns": []},
        providers=("searxng",),
        settings={
            "providers": OPENAI.provider_settings(fake, timeout=60.0),  # slow CI: no retries
            "models": {"fake": OPENAI.spec(fake)},
        },
        js_fallback=True,
    )
    web = case.web.url
    search_behaviour.results = lambda query: results(
        web, "tides.html", "lighthouse.html", "lighthouse-keepers.html"
    )
    roles: list[str] = []
    fake.respond = model(web, roles)
    events = await case.research(
        "How high do the tides rise at Harbour Point, and who kept its light?",
        re_pb.RESEARCH_MODE_FAST,
        options=params_pb2.RunOptions(model="fake"),
    )
    assert roles == ["planner", "writer"]
    done = complete(events)
    body, _, listing = done.report.partition("## Sources")
    assert "attacker.example" not in done.report and "archive/" not in done.report
    assert "s3cret" not in done.report and "[nowhere]" not in body and "[arch]" not in body
    assert "a lost page too" in body and "keepers' letters," in body
    assert "The article itself is at [S1]." in body  # a fetched page's bare URL: its id
    assert web not in body  # no URL is left in the text; the sources list names them
    meta = done.metadata
    assert set(meta.removed_citations) == {
        "S7",
        "http://attacker.example/x",
        "https://attacker.example/login?token=s3cret",
        "http://attacker.example/chart.png",
        f"{web}/archive/keepers-1950.html",
    }
    assert "Removed 5 citations of pages the run did not fetch" in done.message
    assert [p.url for p in meta.cited_pages] == [
        f"{web}/tides.html",
        f"{web}/lighthouse.html",
        f"{web}/lighthouse-keepers.html",
    ]
    keepers = meta.cited_pages[2]
    assert keepers.claims == [
        "Agnes Trevelyan kept the light until 1987.",
        "Old letters tell more keepers' letters, and a lost page too.",  # the labels stay
    ]
    paths = case.web.traffic.paths()
    assert "/archive/" not in " ".join(paths)
    assert paths.count("/lighthouse-keepers.html") == 2  # read, then rendered in Chromium
    question = "Do spring tides really reach 6.4 metres at Harbour Point?"
    assert meta.cited_pages[0].claims[0] == question
    check_grounding(done)
    written = payloads(events, "writing_end")[0].message
    assert "removed 5 citations" in written
    assert listing.count(web) == 3


def check_grounding(done: re_pb.ResearchComplete) -> None:
    """Every support is a real span of the report's bytes, and no segment is a lone stop."""
    report = done.report.encode()
    texts = []
    for support in done.metadata.grounding_supports:
        span = report[support.start_index : support.end_index].decode()
        assert span == support.text
        assert all(0 <= i < len(done.metadata.cited_pages) for i in support.cited_page_indices)
        texts.append(span)
    assert texts[:2] == [
        "Do spring tides really reach 6.4 metres at Harbour Point? [S1].",
        "They do! [S1].",
    ]
    assert all(len(t.strip(" .!?")) > 3 for t in texts)
