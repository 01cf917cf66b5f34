"""The page as a model needs to see it, driven at the wire by a model that reads only the request
JSON (page_reader.py), on fixture pages made for each point: a paginated table of invoices, a
booking form with a native select, a date input and an autocomplete combobox, a modal dialog
over a cookie banner, a checkout under an overlay covering the page, and one whose button is
covered by a strip along the bottom."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import params_pb2, run_event_pb2, run_service_pb2
from tests.browser.page_reader import Call, PageReader, Seen, start
from tests.conftest import HarnessFactory
from tests.models.fake_providers import FakeProvider, serve
from tests.support.requests import collect


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with serve(FakeProvider()) as provider:
        yield provider


def automate(sites: str, page: str, task: str) -> run_service_pb2.AutomateRequest:
    return run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(
            task=task, url=f"{sites}/view/{page}", trusted_hostnames=["127.0.0.1"]
        )
    )


def outcomes(events: list[run_event_pb2.RunEvent]) -> list[ae.BrowserActionCompleted]:
    return [
        e.automate.browser_action_completed
        for e in events
        if e.automate.HasField("browser_action_completed")
    ]


def seen_line(page: str, part: str) -> str:
    return next(line for line in page.splitlines() if part in line)


def complete(events: list[run_event_pb2.RunEvent]) -> ae.AutomateComplete:
    return events[-2].automate.complete


async def run(
    make_harness: HarnessFactory,
    fake: FakeProvider,
    sites: str,
    reader: PageReader,
    page: str,
    task: str,
    **browser: Any,
) -> list[run_event_pb2.RunEvent]:
    fake.respond = reader
    harness = await start(make_harness, fake, sites, **browser)
    return await collect(harness.runs.Automate(automate(sites, page, task)))


# 1 and 5: a table read by rows, through pages reached by the same click ----------------------


def find_invoice(number: str) -> Any:
    def policy(seen: Seen) -> Call:
        header, row = seen.line("table:"), seen.line(f"{number} |")
        if header is None or row is None:
            return "click", {"ref": seen.ref('button "Next page"')}
        names = [name.strip() for name in header.split("table:")[1].split("|")]
        cells = dict(zip(names, row.split("|"), strict=True))
        status = cells["Status"].strip() or "unpaid"
        answer = f"{number}: {cells['Customer'].strip()}, {cells['Amount'].strip()}, {status}"
        return "done", {"answer": answer}

    return policy


async def test_a_table_is_read_by_rows_across_pages_of_the_same_click(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str
) -> None:
    reader = PageReader(find_invoice("INV-1017"))
    events = await run(
        make_harness, fake, sites, reader, "invoices.html", "Who owes INV-1017, how much?"
    )
    assert complete(events).success, complete(events)
    assert complete(events).final_answer == "INV-1017: Initech, $829.00, paid"
    # four clicks on the same "Next page" button, each on a page that had changed: not a loop
    assert [o.success for o in outcomes(events)] == [True] * 4
    assert all("Refused" not in seen.last_result for seen in reader.seen)
    # an empty cell keeps its place: INV-1015 has no amount and is not paid
    page_four = next(s.page for s in reader.seen if "INV-1015" in s.page)
    assert "\n INV-1015 | Acme | | | button" in page_four
    # every request carries the task and the newest page, nothing in place of older pages, and
    # the page is fenced as being at the starting URL
    assert [seen.user_messages for seen in reader.seen] == [2] * 5
    assert all(s.page.startswith("<<<EXTERNAL_CONTENT Starting URL\n") for s in reader.seen)


async def test_the_same_click_on_an_unchanged_page_is_still_a_loop(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str
) -> None:
    def policy(seen: Seen) -> Call:
        if "Refused" in seen.last_result:
            return "abort", {"reason": "looping"}
        return "click", {"ref": seen.ref('button "Open INV-1001"')}  # changes nothing

    events = await run(
        make_harness, fake, sites, PageReader(policy), "invoices.html", "Open INV-1001."
    )
    assert complete(events).error.code == ae.AUTOMATE_ERROR_CODE_TASK_ABORTED
    assert len(outcomes(events)) == 3


# 2: a select list and a combobox look different, and the right tool is used for each ---------


def book(cabin: str, city: str, day: str) -> Any:
    def policy(seen: Seen) -> Call:
        booked = re.search(r"Booked [^\n]+", seen.page)
        destination = seen.line('"Destination"') or ""
        if f"= {cabin}" not in (seen.line('"Cabin"') or ""):
            return "select", {"ref": seen.ref('"Cabin"'), "values": [cabin]}
        if day not in (seen.line('"Travel date"') or ""):
            return "fill", {"ref": seen.ref('"Travel date"'), "value": day}
        if not destination.endswith(f": {city}"):
            if destination.lstrip().startswith("select"):
                return "select", {"ref": seen.ref('"Destination"'), "values": [city]}
            if seen.line(f'option "{city}"'):
                return "click", {"ref": seen.ref(f'option "{city}"')}
            if destination.endswith(f": {city[:3]}"):
                return "wait", {"seconds": 0.5}  # the options load after typing
            assert "[editable]" in destination, destination
            return "fill", {"ref": seen.ref('"Destination"'), "value": city[:3]}
        if booked is None:
            return "click", {"ref": seen.ref('button "Book"')}
        return "done", {"answer": booked.group(0)}

    return policy


async def test_a_combobox_is_typed_into_and_a_select_is_selected(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str
) -> None:
    reader = PageReader(book("Business", "Lisbon", "2026-12-24"))
    events = await run(
        make_harness, fake, sites, reader, "booking.html", "Book Business to Lisbon on 24 Dec."
    )
    assert complete(events).success, complete(events)
    assert complete(events).final_answer == "Booked Business to Lisbon on 2026-12-24"
    assert all(o.success for o in outcomes(events)), outcomes(events)
    first = reader.seen[0].page
    assert 'select "Cabin"' in first and 'options: "Economy", "Business", "First"' in first
    assert 'combobox "Destination"' in first and '[controls "Destinations"]' in first
    assert seen_line(first, '"Travel date"').endswith("[date: YYYY-MM-DD]")


# 3: a modal dialog comes first; what it covers cannot be used until it is closed -------------


def read_story(seen: Seen) -> Call:
    if seen.page.count("[modal dialog open"):
        return "click", {"ref": seen.ref("button")}  # only the dialog has refs
    story = re.search(r"Story: [^\n\"]+", seen.page)
    if story:
        return "done", {"answer": story.group(0)}
    return "click", {"ref": seen.ref('button "Read the story"')}


async def test_a_modal_dialog_is_closed_before_the_page_behind_it_is_used(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str
) -> None:
    reader = PageReader(read_story)
    events = await run(make_harness, fake, sites, reader, "consent.html", "Read today's story.")
    assert complete(events).success, complete(events)
    assert complete(events).final_answer == "Story: the river rose two metres."
    assert [o.success for o in outcomes(events)] == [True, True]
    # the page behind the dialog is one line, not a list of what cannot be used yet
    first = reader.seen[0].page
    assert seen_line(first, "[modal dialog open").endswith(
        'behind it: h1 "Newsroom", 4 more elements]'
    )
    assert "Read the story" not in first and "Accept cookies" not in first
    assert "[modal dialog" not in reader.seen[1].page  # closed: the page is whole again
    assert seen_line(reader.seen[1].page, "Read the story")


async def test_an_overlay_covering_the_page_is_dismissed_before_the_page_under_it_is_used(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str
) -> None:
    def policy(seen: Seen) -> Call:
        if seen.line("[an overlay covers the page"):
            return "click", {"ref": seen.ref('button "Dismiss"')}
        if "Payment sent" in seen.page:
            return "done", {"answer": "Payment sent"}
        return "click", {"ref": seen.ref('button "Pay now"')}

    reader = PageReader(policy)
    events = await run(make_harness, fake, sites, reader, "blocked.html", "Pay.")
    assert complete(events).success, complete(events)
    assert [o.success for o in outcomes(events)] == [True, True]  # Dismiss, then Pay now
    first, second = reader.seen[0].page, reader.seen[1].page
    assert seen_line(first, "[an overlay covers").startswith(
        '[an overlay covers the page (h1 "Checkout", 5 more elements): dismiss it'
    )
    assert "Pay now" not in first and "Voucher" not in first  # covered: summarised
    assert "overlay" not in second and seen_line(second, 'button "Pay now"')  # back, addressable


async def test_a_banner_over_a_short_page_covers_it(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str
) -> None:
    """The page's content ends high on the screen, under a banner a third of the window tall:
    the view shows the banner first (before, only the failed click said it was in the way)."""

    def policy(seen: Seen) -> Call:
        if seen.line("[an overlay covers the page"):
            return "click", {"ref": seen.ref('button "Accept all"')}
        if "You are subscribed." in seen.page:
            return "done", {"answer": "Subscribed"}
        return "click", {"ref": seen.ref('button "Subscribe"')}

    reader = PageReader(policy)
    events = await run(make_harness, fake, sites, reader, "short_banner.html", "Subscribe me.")
    assert complete(events).success, complete(events)
    assert [o.success for o in outcomes(events)] == [True, True]  # Accept all, then Subscribe
    first = reader.seen[0].page
    assert seen_line(first, "[an overlay covers").startswith(
        '[an overlay covers the page (h2 "Parish newsletter", 2 more elements): dismiss it'
    )
    assert 'button "Subscribe"' not in first and seen_line(first, 'button "Reject"')


async def test_an_overlay_over_a_long_page_covers_it_and_a_strip_along_its_bottom_does_not(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str
) -> None:
    """A page several windows tall: the overlay is judged at points of the window, not at every
    element of the page; once it is gone, a cookie strip along the bottom is no overlay."""

    def policy(seen: Seen) -> Call:
        if seen.line("[an overlay covers the page"):
            return "click", {"ref": seen.ref('button "Continue"')}
        return "done", {"answer": seen.page}

    reader = PageReader(policy)
    events = await run(make_harness, fake, sites, reader, "long_article.html", "Read.")
    assert seen_line(reader.seen[0].page, "[an overlay covers").startswith(
        '[an overlay covers the page (h1 "Harbour notes", '
    )
    after = complete(events).final_answer
    assert "[an overlay" not in after and seen_line(after, 'button "OK"')
    assert seen_line(after, "Day 60: the tide came in")


async def test_a_banner_over_a_short_page_in_a_full_height_body_covers_it(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str
) -> None:
    """The body is as tall as the window (height: 100%) while its content ends high up: the
    content's own boxes, not the body's, are what the banner must cover."""
    reader = PageReader(lambda seen: ("done", {"answer": seen.page}))
    events = await run(make_harness, fake, sites, reader, "full_height_banner.html", "Read.")
    page = complete(events).final_answer
    assert seen_line(page, "[an overlay covers").startswith(
        '[an overlay covers the page (h2 "Allotment waiting list", 2 more elements): dismiss it'
    )
    assert 'button "Join the list"' not in page and seen_line(page, 'button "Accept"')


async def test_lines_the_page_breaks_stay_apart_in_the_view(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str
) -> None:
    """Text separated only by <br> came out of the snapshot as one run: an error message and the
    next field's label read "...address Message", opening hours "Mon-Fri 9-5Sat 10-2"."""
    reader = PageReader(lambda seen: ("done", {"answer": seen.page}))
    events = await run(make_harness, fake, sites, reader, "contact.html", "Read.")
    page = complete(events).final_answer
    assert "p: Opening hours / Mon-Fri 9-5 / Sat 10-2" in page
    assert "text: Please enter a valid email address\n" in page
    assert "address Message" not in page and seen_line(page, 'input "Message"')


async def test_an_app_drawn_in_one_window_sized_box_is_not_an_overlay(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str
) -> None:
    reader = PageReader(lambda seen: ("done", {"answer": seen.page}))
    events = await run(make_harness, fake, sites, reader, "app_shell.html", "Read.")
    page = complete(events).final_answer
    assert "[an overlay" not in page
    assert "[E" in seen_line(page, 'button "New note"') and "[E" in seen_line(page, '"Undo"')


# 4: a failed action says why, at once, in terms the model can act on -------------------------


def pay(seen: Seen) -> Call:
    steps = {
        "": ("fill", {"ref": seen.ref('"Voucher"'), "value": "WINTER"}),
        "read-only": ("click", {"ref": seen.ref('button "Apply voucher"')}),
        "disabled": ("click", {"ref": seen.ref('button "Pay now"')}),
    }
    if "Payment sent" in seen.page:
        return "done", {"answer": "Payment sent"}
    covered = re.search(r'covered by [^"]*"([^"]+)"', seen.last_result)
    if covered:  # the button inside whatever covers the target
        name = next(w for w in covered.group(1).split() if seen.line(f'button "{w}"'))
        return "click", {"ref": seen.ref(f'button "{name}"')}
    if seen.last_result.startswith("clicked"):
        return "click", {"ref": seen.ref('button "Pay now"')}
    key = next((k for k in steps if k and k in seen.last_result), "")
    return steps[key]


async def test_failed_actions_say_why_at_once(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str
) -> None:
    reader = PageReader(pay)
    # an action timeout far above the test's patience: a failure must not wait for it
    events = await run(
        make_harness, fake, sites, reader, "covered.html", "Pay.", action_timeout=60.0
    )
    assert complete(events).success, complete(events)
    errors = [o.error for o in outcomes(events) if not o.success]
    first = reader.seen[0]
    voucher, apply, pay_now = (
        first.ref(name) for name in ('"Voucher"', '"Apply voucher"', '"Pay now"')
    )
    assert errors == [
        f"cannot fill {voucher}: it is read-only",
        f"cannot click {apply}: it is disabled",
        f'cannot click {pay_now}: it is covered by <div#overlay.loading-overlay> "Loading '
        'prices Dismiss", which would get the click: close or dismiss that first',
    ]
    assert [o.success for o in outcomes(events)][3:] == [True, True]  # Dismiss, then Pay now
    # a strip along the bottom (and a sticky header) is not an overlay covering the page
    assert "[an overlay" not in first.page and seen_line(first.page, 'link "Help"')


async def test_a_timeout_names_the_cause_playwright_saw(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str
) -> None:
    def policy(seen: Seen) -> Call:
        if seen.line('button "Dismiss"'):
            return "click", {"ref": seen.ref('button "Dismiss"')}
        if not seen.last_result.startswith("click failed"):
            # a button that never stops moving: Playwright waits for it to settle, in vain
            return "click", {"ref": seen.ref('button "Pay later"')}
        return "done", {"answer": seen.last_result}

    events = await run(
        make_harness, fake, sites, PageReader(policy), "blocked.html", "Skip.", action_timeout=1.0
    )
    [error] = [o.error for o in outcomes(events) if not o.success]
    assert "Timeout 1000ms exceeded" in error
    assert error.endswith("it keeps moving (an animation)")


# fewer tokens for the same decisions (issue 16) ---------------------------------------------


async def test_link_targets_are_told_on_request_and_unseen_text_is_left_out(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str
) -> None:
    def policy(seen: Seen) -> Call:
        if "links to" in seen.last_result:
            return "done", {"answer": seen.last_result.split("links to ")[1]}
        return "link_url", {"ref": seen.ref('link "Log in to order"')}

    reader = PageReader(policy)
    events = await run(make_harness, fake, sites, reader, "../shop/index.html", "Where to log in?")
    assert complete(events).final_answer == f"{sites}/shop/login.html"
    assert "/url" not in reader.seen[0].page and "login.html" not in reader.seen[0].page

    hidden = PageReader(lambda seen: ("done", {"answer": seen.page}))
    events = await run(
        make_harness, fake, sites, hidden, "../browser/injected.html", "What do flights cost?"
    )
    page = complete(events).final_answer
    assert "Fares from $420 in March." in page and "SYSTEM NOTICE" not in page
