"""On a 390 x 844 phone the first item of a unit is on the first screen, whatever the reference's length: the
reference and the response are capped to a scrollable share of the screen (annotator.css, under 760 px), and an
item's label buttons wrap under its text. Before, a 450-word reference put the first item 3.9 screens down."""
from __future__ import annotations

import pytest

from annotation_tasks.models import Assignment, Source, Worker
from annotation_tasks.services.tokens import assignment_token
from tests.e2e.helpers import open_unit
from tests.work.builders import make_unit

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SENTENCE = "The state health department reviewed vaccination records across the county and said more cases were possible."


def test_first_item_on_the_first_phone_screen_with_a_long_reference(live_server, new_page):
    unit = make_unit("Phone", n_qas=2, n_responses=1)
    Source.objects.filter(pk=unit.source_id).update(text=" ".join(["Anna visited Paris .", *[SENTENCE] * 30]),
                                                    tokens=None)
    a = Assignment.objects.create(unit=unit, worker=Worker.objects.create(external_id="phone"))
    page = new_page(width=390, height=844)
    open_unit(page, live_server.url, assignment_token(a))
    page.get_by_test_id("start-button").click()
    first = page.get_by_test_id("span-item").first
    first.wait_for()
    box = first.bounding_box()
    scroll = page.evaluate("() => window.scrollY")
    assert box is not None and box["y"] + scroll + box["height"] <= 844, f"first item ends at {box['y'] + scroll + box['height']:.0f} px"
    source = page.locator("factcrowd-annotator").get_by_text("vaccination records", exact=False).first
    assert source.is_visible()  # the reference is still there, in its own scrolling panel
    buttons = first.locator("button").first.bounding_box()
    text = first.locator(".item-body").bounding_box()
    assert buttons["y"] >= text["y"] + text["height"] - 1  # the buttons sit under the item's text, not beside it
    assert text["width"] >= 200  # the text keeps the row's width instead of a word per line
    before = first.get_attribute("data-label")
    page.keyboard.press("c")  # and it is labelled by keyboard as on a desktop
    page.wait_for_function("() => true")
    assert first.get_attribute("data-label") not in (before, None, "")
