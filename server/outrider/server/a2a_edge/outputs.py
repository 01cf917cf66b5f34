"""What a run produces, as A2A artifacts: the browser agent's final answer, the research report
with its citations, and each screenshot as a file part linking to the REST artifact route (the
same key reads it)."""

from __future__ import annotations

from typing import Any

from a2a.types import a2a_pb2 as a2a

from outrider.server.a2a_edge.parts import data_part, text_part
from outrider.server.core.events.names import wire_literals
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import research_events_pb2 as re

ANSWER_ID = "answer"
REPORT_ID = "report"
_MEDIA_TYPES = {ae.SCREENSHOT_FORMAT_JPEG: "image/jpeg", ae.SCREENSHOT_FORMAT_PNG: "image/png"}
_LEVELS = wire_literals(re.Level.DESCRIPTOR)


def answer_artifact(final_answer: str) -> a2a.Artifact:
    return a2a.Artifact(
        artifact_id=ANSWER_ID,
        name="Answer",
        description="The browser agent's final answer",
        parts=[text_part(final_answer)],
    )


def report_artifact(complete: re.ResearchComplete) -> a2a.Artifact:
    """The report (Markdown citing [S1]…) and its sources: each cited page with the claims it
    supports."""
    sources = [_source(page) for page in complete.metadata.cited_pages]
    data: dict[str, Any] = {"sources": sources}
    if complete.metadata.research_objective:
        data["objective"] = complete.metadata.research_objective
    return a2a.Artifact(
        artifact_id=REPORT_ID,
        name="Research report",
        description=complete.message or "The research report with its cited sources",
        parts=[text_part(complete.report, "text/markdown"), data_part(data)],
    )


def _source(page: re.CitedPage) -> dict[str, Any]:
    source: dict[str, Any] = {"id": page.id, "url": page.url, "claims": list(page.claims)}
    if page.HasField("title"):
        source["title"] = page.title
    if page.HasField("reliability"):
        source["reliability"] = _LEVELS.get(page.reliability, "")
    return source


def screenshot_artifact(
    artifact_name: str, shot: ae.BrowserScreenshotCaptured, url: str, number: int
) -> a2a.Artifact:
    """`artifact_name` is the event's "runs/{run}/artifacts/{id}"; `url` where it is read."""
    media_type = _MEDIA_TYPES.get(shot.format, "image/png")
    artifact_id = artifact_name.rsplit("/", 1)[-1]
    extension = "jpg" if media_type == "image/jpeg" else "png"
    part = a2a.Part(url=url, media_type=media_type, filename=f"screenshot-{number}.{extension}")
    return a2a.Artifact(
        artifact_id=f"screenshot-{artifact_id}",
        name=f"Screenshot {number}",
        description="The page as the agent saw it",
        parts=[part],
    )
