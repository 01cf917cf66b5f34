"""Page features the agent must handle: iframe refs, popups and tabs, dialogs, downloads,
uploads, and content that appears only after scrolling."""

from __future__ import annotations

from pathlib import Path

from outrider.v1 import params_pb2, run_service_pb2
from tests.browser.conftest import BrowserCaseFactory
from tests.browser.test_firewall import PLAN, VALID, act
from tests.support.requests import collect, names

SCENARIO = {
    "turns": [
        PLAN,
        act("click", expect=['button "Press me"'], ref='{{ref: button "Press me"}}'),
        act("click", expect=["Clicked inside the frame"], ref='{{ref: button "Save draft"}}'),
        act("click", expect=["Saved!", "Saved at noon"], ref='{{ref: link "Download the report"}}'),
        act(
            "upload",
            expect=["Downloaded 'report.txt'"],
            ref='{{ref: button "Attachment"}}',
            files=["notes.txt"],
        ),
        act("scroll", expect=["Chosen: notes.txt"], direction="down", pages=5),
        act("click", expect=["42% off"], ref='{{ref: link "Open welcome in a new tab"}}'),
        act("tabs", expect=["A new tab opened", "Welcome aboard"], action="list"),
        act("tabs", expect=["[current]"], action="switch", index=1),
        act("done", expect=["Widgets"], answer="All widgets work."),
        VALID,
    ]
}


async def test_frames_tabs_dialogs_downloads_uploads_and_lazy_content(
    browser_case: BrowserCaseFactory, tmp_path: Path
) -> None:
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    (uploads / "notes.txt").write_text("my notes")
    case = await browser_case(SCENARIO, browser={"upload_dir": uploads})
    events = await collect(
        case.harness.runs.Automate(
            run_service_pb2.AutomateRequest(
                params=params_pb2.AutomateParams(
                    task="Try every widget.", url=f"{case.sites}/browser/widgets.html"
                )
            )
        )
    )
    complete = events[-2].automate.complete
    assert complete.success, complete
    failures = [
        e.automate.browser_action_completed.error
        for e in events
        if e.automate.HasField("browser_action_completed")
        and not e.automate.browser_action_completed.success
    ]
    assert failures == []
    downloads = [
        e.artifact
        for e in events
        if e.artifact and not e.automate.HasField("browser_screenshot_captured")
    ]
    assert downloads == []  # downloads are announced to the model; find the artifact in its notes
    prompts = case.transcript.read_text()
    artifact = prompts.split("saved as artifact ")[1].split(".")[0]
    chunks = [
        c
        async for c in case.harness.runs.ReadArtifact(
            run_service_pb2.ReadArtifactRequest(name=artifact)
        )
    ]
    assert (
        b"".join(c.data for c in chunks)
        == (Path(__file__).parents[1] / "fixtures/sites/browser/report.txt").read_bytes()
    )
    assert names(events).count("browser:navigated") >= 2
