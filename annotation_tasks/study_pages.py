"""The entry page of a batch study (/work/study/<signed batch ref>/?<platform params>): one link for every place.

The participant arrives from the platform (Prolific's PROLIFIC_PID / STUDY_ID / SESSION_ID, or a panel's id
parameter on our signed link); the provider checks the ids as on a unit page (the study is the batch's, the platform
knows the session), then services.sessions hands them the next unit of their place. After each submit the element
comes back here (next_url), and the place ends with the completion code (and the platform's completion link).
"""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotation_tasks.crowd import EntryVerdict, get_provider
from annotation_tasks.crowd.entry import read_study_ref
from annotation_tasks.middleware import frameable
from annotation_tasks.models import Assignment, Batch, WorkerProjectStatus
from annotation_tasks.pages import _message, _unverified_flood, _worker, element_page
from annotation_tasks.services import sessions, training, work
from annotation_tasks.services.tokens import assignment_token

_VERIFICATION = {EntryVerdict.VERIFIED: Assignment.Verification.ADMITTED,
                 EntryVerdict.UNAVAILABLE: Assignment.Verification.PENDING}


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


@require_GET
@frameable
def study_entry(request: HttpRequest, ref: str) -> HttpResponse:
    batch_id = read_study_ref(ref)
    batch = Batch.objects.select_related("project").filter(pk=batch_id).first() if batch_id else None
    if batch is None:
        return _message(request, "Unknown study", "This link is not valid.", 404)
    try:
        provider = get_provider(batch.provider)
    except ValueError:
        return _message(request, "Unknown study", "This link is not valid.", 404)
    if not provider.batch_study:
        return _message(request, "Unknown study", "This batch is not published as one study.", 404)
    ctx = provider.parse_entry(request.GET)
    if ctx is None or ctx.preview:
        return _message(request, "Open this study from your platform", "The link lacks the platform's parameters.", 400)
    refusal = provider.check_study_entry(batch, ctx)
    if refusal is not None:
        return _message(request, "Not this study", _sentence(refusal), 403)
    check = provider.checked_entry(batch, ctx)
    if check.verdict == EntryVerdict.UNKNOWN:
        return _message(request, "Not this study", _sentence(check.reason), 403)
    if check.verdict != EntryVerdict.VERIFIED and _unverified_flood(request, batch, provider.name, ctx.worker_external_id):
        return _message(request, "Too many new workers from here",
                        "Too many workers the platform cannot vouch for yet came from this address; try later.", 429)
    worker = _worker(provider.name, ctx.worker_external_id)
    if WorkerProjectStatus.blocks(worker, batch.project_id):
        return _message(request, "Not available", "This task is not available to you.", 403)
    verification = _VERIFICATION.get(check.verdict, Assignment.Verification.PENDING)
    session = sessions.enter(batch, worker, ctx.provider_assignment_id, verification)
    if session.worker_id != worker.pk:
        return _message(request, "Not this study", "This session belongs to another participant.", 403)
    turn = sessions.next_turn(session)
    # after a training unit's submit: the expert's labels and explanations first, then "Continue" to this turn
    feedback = training.latest_feedback(worker, sessions.session_assignments(session), request.GET.get("seen"))
    if feedback is not None:
        query = request.GET.copy()
        query["seen"] = str(feedback["assignment"])
        return render(request, "annotation_tasks/training_feedback.html", {
            "feedback": feedback, "continue_url": f"{request.path}?{query.urlencode()}"})
    if turn.assignment is not None:
        data, record = work.unit_payload_then_record(turn.assignment)
        return element_page(request, data, then=record, token=assignment_token(turn.assignment),
                            next_url=request.get_full_path())
    if turn.closed:
        return _message(request, "This place is closed", "The platform reports this place as returned or closed.", 410)
    if turn.no_work:
        return render(request, "annotation_tasks/place_done.html", {
            "title": "Nothing left for you here",
            "text": "Every unit of this study you could do has all the answers it needs. Please return the study "
                    "on the platform (you will not be penalised); thank you for your time."}, status=200)
    code, url = provider.completion(ctx, batch)
    if turn.training_failed or (training.result_of(worker, batch.project_id) or {"passed": True}).get("passed") is False:
        return render(request, "annotation_tasks/place_done.html", {
            "title": "Thank you for doing the training",
            "text": "Your answers did not reach the share of matches with the expert that this study needs, so we "
                    "cannot offer you its main units. Your training work is paid: hand in your completion code on "
                    "the platform. We appreciate your time.",
            "code": code, "completion_url": url, "link_text": "Complete the study on the platform"})
    return render(request, "annotation_tasks/place_done.html", {
        "title": "Thank you, you are done",
        "text": "You have finished this study's units. Hand in your completion code on the platform.",
        "code": code, "completion_url": url, "link_text": "Complete the study on the platform"})
