"""A worker labels a unit in real Chromium, keyboard only; the database holds exactly the labels given."""
from __future__ import annotations

import pytest

from annotation_tasks.models import (
    Assignment,
    AtomicFact,
    FactLabel,
    PairwisePreference,
    QALabel,
    SpanLabel,
)
from tests.e2e.helpers import new_token, open_unit, press, progress, wait_for
from tests.work.builders import make_unit

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_qasem_keyboard_only_with_reload_and_flip(live_server, page, shot):
    unit = make_unit("E2E QASem", n_qas=2, n_responses=2)
    a, token = new_token(unit)
    spans = {r.pk: list(r.answer_spans.order_by("order").values_list("id", flat=True)) for r in unit.responses.all()}
    qas = {r.pk: list(r.qas.order_by("order").values_list("id", flat=True)) for r in unit.responses.all()}
    ra, rb = sorted(spans)

    open_unit(page, live_server.url, token)
    shot(page, "start")
    press(page, "Enter")  # the Start button has focus
    press(page, "c", "c")  # A step 1: both spans covered
    assert "A · Step 2" in progress(page)
    press(page, "s", "n")  # A step 2: QA1 supported, QA2 not supported
    shot(page, "half-way")
    wait_for(lambda: len((Assignment.objects.get(pk=a.pk).draft or {}).get("labels", {}).get("qas", {})) == 2,
             what="the draft with A's labels")

    # the page embeds the unit (unit-data-id): the element never asked GET unit, it only saved drafts
    api_calls = page.evaluate(
        "performance.getEntriesByType('resource').map((e) => e.name).filter((u) => u.includes('/api/work/'))")
    assert api_calls and all(u.endswith("/draft") for u in api_calls), api_calls
    page.reload()
    page.get_by_test_id("start-button").wait_for()
    assert "Resume" in page.get_by_test_id("start-button").inner_text()
    shot(page, "resumed")
    press(page, "Enter")
    assert "B · Step 1" in progress(page)
    assert page.get_by_test_id("step-tab").nth(0).get_attribute("class").count("done") == 1
    press(page, "c", "n")  # B step 1: span 1 covered, span 2 not covered (its QA follows: not supported)
    press(page, "s")  # B step 2: only QA1 is asked
    press(page, "4")  # compare: B somewhat more consistent
    shot(page, "all-labeled")

    press(page, "[", "[", "[", "[")  # back to A's step 1
    assert "A · Step 1" in progress(page)
    press(page, "n")  # flip A's span 1 to not covered: A's QA1 becomes derived
    press(page, "]")
    page.get_by_test_id("derived-note").first.wait_for()
    shot(page, "flipped")
    press(page, "Control+Enter")
    page.get_by_test_id("submitted-message").wait_for()
    shot(page, "submitted")

    a.refresh_from_db()
    assert a.status == "submitted" and a.time_on_task_ms is not None
    assert dict(SpanLabel.objects.filter(assignment=a).values_list("span_id", "covered")) == {
        spans[ra][0]: False, spans[ra][1]: True, spans[rb][0]: True, spans[rb][1]: False,
    }
    got = {q.qa_id: (q.supported, q.derived_from_span) for q in QALabel.objects.filter(assignment=a)}
    assert got == {
        qas[ra][0]: (False, True), qas[ra][1]: (False, False), qas[rb][0]: (True, False), qas[rb][1]: (False, True),
    }
    pref = PairwisePreference.objects.get(assignment=a)
    assert (pref.aspect, pref.score, pref.response_a_id, pref.response_b_id) == ("consistency", 4, ra, rb)
    assert a.shown["spans"] == spans[ra] + spans[rb]


def edit_field(page, expected: str):
    field = page.get_by_test_id("fact-text-input")
    field.wait_for()
    # the editor has focus as soon as it is shown (the same task as the key that opened it)
    assert field.evaluate("el => el.getRootNode().activeElement === el")
    assert field.input_value() == expected
    return field


def test_factscore_split_and_merge(live_server, page, shot):
    unit = make_unit("E2E FActScore", protocol=["fact_labeling"], with_facts=True, n_qas=2, n_responses=1)
    a, token = new_token(unit)
    f0, f1, f2, f3 = AtomicFact.objects.filter(response__units=unit).order_by("sentence_index", "order").values_list(
        "id", flat=True
    )
    open_unit(page, live_server.url, token)
    press(page, "Enter")
    # split f0 "Anna visited a city." into "Anna visited" + "a city.", keyboard only
    press(page, "p")
    edit_field(page, "Anna visited a city.")
    press(page, "Control+a")
    page.keyboard.type("Anna visited")
    press(page, "Shift+Enter")  # split at the caret (the end): the second half is empty...
    press(page, "j", "e")  # ...so write it
    edit_field(page, "")
    page.keyboard.type("a city.")
    press(page, "Enter")
    shot(page, "split")
    press(page, "k", "s", "n")  # the two halves
    press(page, "s")  # f1
    press(page, "m")  # merge f2 with f3
    shot(page, "merged")
    press(page, "n")
    press(page, "Control+Enter")
    page.get_by_test_id("submitted-message").wait_for()
    shot(page, "submitted")

    human = list(AtomicFact.objects.filter(created_by_assignment=a).order_by("order"))
    assert [h.text for h in human] == ["Anna visited", "a city.", human[2].text]
    assert "and" in human[2].text and human[2].sentence_index == 1
    assert [sorted(h.edited_from.values_list("id", flat=True)) for h in human] == [[f0], [f0], [f2, f3]]
    labels = dict(FactLabel.objects.filter(assignment=a).values_list("fact_id", "label"))
    assert labels == {human[0].pk: "S", human[1].pk: "NS", f1: "S", human[2].pk: "NS"}


def test_split_at_the_caret(live_server, page):
    unit = make_unit("E2E caret", protocol=["fact_labeling"], with_facts=True, n_qas=1, n_responses=1)
    _, token = new_token(unit)
    open_unit(page, live_server.url, token)
    press(page, "Enter", "p")
    edit_field(page, "Anna visited a city.")
    press(page, "Home", *["ArrowRight"] * len("Anna visited"), "Shift+Enter")
    texts = page.get_by_test_id("fact-item").all_inner_texts()
    assert texts[0].startswith("Anna visited\n") or texts[0].split("\n")[0] == "Anna visited"
    assert texts[1].startswith("a city.")


def test_submit_retries_a_lost_answer_and_a_503_and_records_once(live_server, page, shot):
    """The first submit reaches the server but its answer is lost (connection reset), the second is answered 503 with
    Retry-After: the element tries again by itself, showing a countdown, and the server records the labels once."""
    unit = make_unit("E2E submit retry", n_qas=1, n_responses=2)
    a, token = new_token(unit)
    seen: list[str] = []

    def flaky(route):
        seen.append(route.request.method)
        if len(seen) == 1:
            answer = route.fetch()  # the server records the submission...
            assert answer.status == 200, answer.text()
            route.abort("connectionreset")  # ...and the browser never hears of it
        elif len(seen) == 2:
            route.fulfill(status=503, headers={"Retry-After": "1"}, content_type="application/json",
                          body='{"detail": "the database is unavailable for a moment", "code": "database_unavailable"}')
        else:
            route.continue_()

    page.route("**/api/work/*/submit", flaky)
    open_unit(page, live_server.url, token)
    press(page, "Enter", "c", "s", "c", "s", "3")
    press(page, "Control+Enter")
    countdown = page.get_by_test_id("submit-retry-countdown")
    countdown.wait_for()
    assert "Retrying in" in countdown.inner_text()
    assert "Saving…" in page.get_by_test_id("submit-message").inner_text()
    page.get_by_test_id("submit-retry-button").wait_for()
    shot(page, "retrying")
    page.get_by_test_id("submitted-message").wait_for(timeout=30000)
    assert len(seen) == 3
    a.refresh_from_db()
    assert a.status == "submitted"
    assert SpanLabel.objects.filter(assignment=a).count() == 2
    assert QALabel.objects.filter(assignment=a).count() == 2
    assert PairwisePreference.objects.filter(assignment=a).count() == 1
