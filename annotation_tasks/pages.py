"""Pages for annotators: the unit page, the crowd platforms' entry page, invite links, the next-unit page.

The entry page never asks which platform it serves: each provider parses the query string into an
EntryContext, and only its fields (preview, worker id, assignment id, submit_to, completion_url) matter here.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.db import IntegrityError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_GET, require_http_methods

from annotation_tasks.client_address import client_address
from annotation_tasks.crowd import EntryContext, EntryVerdict, available_providers, get_provider
from annotation_tasks.middleware import frameable
from annotation_tasks.models import (
    Assignment,
    Project,
    ProjectMembership,
    QualityDecision,
    Unit,
    Worker,
    WorkerProjectStatus,
)
from annotation_tasks.services import identity, queue, work
from annotation_tasks.services.local_workers import accept_invite, local_worker_for
from annotation_tasks.services.tokens import (
    BadToken,
    assignment_token,
    preview_token,
    read_invite_token,
    read_unit_ref,
)

log = logging.getLogger(__name__)


def _message(request: HttpRequest, title: str, text: str, status: int) -> HttpResponse:
    return render(request, "annotation_tasks/message.html", {"title": title, "text": text}, status=status)


UNIT_DATA_ID = "factcrowd-unit"


class _ThenResponse(HttpResponse):
    """A page that runs `then` once it has been sent: the WSGI server closes a response after its last byte."""

    def __init__(self, *args, then: Callable[[], None] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self._then = then

    def close(self) -> None:
        then, self._then = self._then, None
        try:
            if then is not None:
                then()
        except Exception:  # the page is out; a submit rebuilds what a failed record would have said
            log.exception("recording the first fetch of a unit page failed")
        finally:
            super().close()


def element_page(request: HttpRequest, unit_data: dict | None = None, *, then: Callable[[], None] | None = None,
                  **element: str) -> HttpResponse:
    """The element's page. `unit_data` (the GET unit answer for this token) is embedded with json_script and
    named by the element's unit-data-id attribute: the element starts without a request (docs/annotator-api.md).
    `then` runs after the page has been sent. The page holds the worker's draft, so it is never cached (a cached
    copy would restore an old draft)."""
    html = render_to_string(
        "annotation_tasks/unit.html",
        {"element": element, "unit_data": unit_data, "unit_data_id": UNIT_DATA_ID},
        request,
    )
    response = _ThenResponse(html, then=then)
    add_never_cache_headers(response)
    return response


@require_GET
@frameable
def work_page(request: HttpRequest, token: str) -> HttpResponse:
    """/work/<token>/: the element for one assignment (local annotators land here from the queue)."""
    try:
        assignment = work.assignment_for_token(token)
    except work.WorkError as exc:
        return _message(request, "Unit not available", str(exc).capitalize() + ".", 403)
    next_url = ""
    if request.user.is_authenticated and assignment.worker.user_id == request.user.pk:
        next_url = f"/annotate/{assignment.unit.project_id}/"
    data, record = work.unit_payload_then_record(assignment)
    return element_page(request, data, then=record, token=token, next_url=next_url)


def _entry_context(unit: Unit, query) -> tuple[str, EntryContext] | None:
    """Ask providers to read the platform's query parameters: the hinted one and the unit's own first."""
    first = [n for n in (query.get("provider", ""), unit.batch.provider if unit.batch_id else "") if n]
    names = list(dict.fromkeys(first + available_providers()))
    for name in names:
        try:
            provider = get_provider(name)
        except Exception:  # a provider that cannot start (module or configuration missing) reads no entries
            log.debug("provider %s unavailable for entry", name, exc_info=True)
            continue
        ctx = provider.parse_entry(query)
        if ctx is not None:
            return name, ctx
    return None


def _entry_refusal(unit: Unit, provider_name: str, ctx: EntryContext) -> str | None:
    """Why these platform parameters cannot open this unit: another platform's, or another study's / HIT's."""
    expected = unit.batch.provider if unit.batch_id else "local"
    if provider_name != expected:
        return "this link is not from the platform this unit is published on"
    return get_provider(provider_name).check_entry(unit, ctx)


# (a platform entry?, the platform's verdict) -> the assignment's verification: a platform's work counts once sync
# finds it submitted; what the platform vouched for at the door holds a slot, what it could not vouch for holds none
_ENTRY_VERIFICATION = {
    (False, EntryVerdict.VERIFIED): Assignment.Verification.NOT_NEEDED,
    (True, EntryVerdict.VERIFIED): Assignment.Verification.ADMITTED,
    (True, EntryVerdict.UNAVAILABLE): Assignment.Verification.PENDING,
    (True, EntryVerdict.AFTER_SUBMIT): Assignment.Verification.PENDING,
}


def _worker(provider_name: str, external_id: str) -> Worker:
    try:
        worker, _ = Worker.objects.get_or_create(provider=provider_name, external_id=external_id)
    except IntegrityError:
        worker = Worker.objects.get(provider=provider_name, external_id=external_id)
    return worker


def _unverified_flood(request: HttpRequest, unit: Unit, provider_name: str, worker_id: str) -> bool:
    """True when this client address already brought UNVERIFIED_ENTRIES_PER_CLIENT other platform workers the
    platform could not vouch for into this project within the hour.

    MTurk cannot confirm a worker before they submit, so such entries are let in (they hold no slot, count
    nowhere and are marked unverified at sync); this bounds how many rows one stranger can make up. A worker
    already seen from the address is not counted again, so a real worker reopening their page is never stopped.
    """
    limit = settings.UNVERIFIED_ENTRIES_PER_CLIENT
    key = f"unverified-entries:{unit.project_id}:{client_address(request)}"
    seen: list[str] = cache.get(key, [])
    who = f"{provider_name}:{worker_id}"
    if who in seen:
        return False
    if len(seen) >= limit:
        log.warning("unverified entries from one client refused: project %s, %d workers already", unit.project_id,
                    len(seen))
        return True
    cache.set(key, [*seen, who], 3600)
    return False


@require_GET
@frameable
def unit_entry(request: HttpRequest, ref: str) -> HttpResponse:
    """/work/unit/<signed unit ref>/?<platform params>: what a crowd platform opens (in its iframe)."""
    try:
        unit = Unit.objects.select_related("batch").get(pk=read_unit_ref(ref))
    except (BadToken, Unit.DoesNotExist):
        return _message(request, "Unknown unit", "This link is not valid.", 404)
    found = _entry_context(unit, request.GET)
    if found is None:
        return _message(request, "Open this unit from your task list", "The link lacks the platform's parameters.", 400)
    provider_name, ctx = found
    refusal = _entry_refusal(unit, provider_name, ctx)
    if refusal is not None:
        return _message(request, "Not this unit", refusal[:1].upper() + refusal[1:] + ".", 403)
    if ctx.preview:
        return element_page(request, work.preview_payload(unit), token=preview_token(unit), preview="true")
    # anyone can type a platform's ids into a link: the platform is asked before a slot is counted
    check = get_provider(provider_name).checked_entry(unit, ctx)
    if check.verdict == EntryVerdict.UNKNOWN:
        return _message(request, "Not this unit", check.reason[:1].upper() + check.reason[1:] + ".", 403)
    if check.verdict != EntryVerdict.VERIFIED and provider_name != "local" and _unverified_flood(
            request, unit, provider_name, ctx.worker_external_id):
        return _message(request, "Too many new workers from here",
                        "Too many workers the platform cannot vouch for yet came from this address; try later.", 429)
    worker = _worker(provider_name, ctx.worker_external_id)
    if WorkerProjectStatus.blocks(worker, unit.project_id):  # a block in this project (blocks are per project)
        return _message(request, "Not available", "This task is not available to you.", 403)
    verification = _ENTRY_VERIFICATION.get((provider_name != "local", check.verdict), Assignment.Verification.PENDING)
    assignment = queue.assign(unit, worker, ctx.provider_assignment_id, verification,
                              free_slot_only=check.verdict != EntryVerdict.AFTER_SUBMIT)
    if assignment is None:
        return _message(request, "Nothing left here", "This unit already has all the answers it needs.", 409)
    data, record = work.unit_payload_then_record(assignment)
    return element_page(
        request,
        data,
        then=record,
        token=assignment_token(assignment),
        submit_to=ctx.submit_to,
        assignment_id=ctx.provider_assignment_id,
        completion_url=ctx.completion_url,
    )


@require_http_methods(["GET", "POST"])
def invite(request: HttpRequest, token: str) -> HttpResponse:
    """/invite/<signed>/: joins the project as an annotator and starts work. Someone new first gives the name
    researchers will know them by (services.identity); a signed-in user is asked first (a link opened in a
    signed-in browser must not add that account to a stranger's project), and a member goes straight to work."""
    try:
        project = get_object_or_404(Project, pk=read_invite_token(token))
    except BadToken:
        return _message(request, "Invite not valid", "This invite link is not valid or has expired.", 403)
    if not request.user.is_authenticated:
        name = request.POST.get("name", "") if request.method == "POST" else ""
        error = ""
        if request.method == "POST":
            try:
                name = identity.clean_name(name)
            except identity.IdentityError as exc:
                error = str(exc).removeprefix("name: ").capitalize() + "."
        if request.method == "GET" or error:
            return render(request, "annotation_tasks/invite.html",
                          {"project": project, "name": name, "error": error}, status=400 if error else 200)
        user = accept_invite(project, None, name=name)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    elif not ProjectMembership.objects.filter(project=project, user=request.user).exists():
        if request.method == "GET":
            return render(request, "annotation_tasks/invite.html", {"project": project, "signed_in": True})
        accept_invite(project, request.user)
    return redirect("annotate", project_id=project.pk)


@require_GET
@login_required(login_url="/accounts/login/")
def annotate(request: HttpRequest, project_id: int) -> HttpResponse:
    """/annotate/<project_id>/: asks POST /api/work/next for the annotator's next unit and opens it."""
    project = get_object_or_404(Project, pk=project_id)
    worker = local_worker_for(request.user, project)
    if worker is None:
        return _message(request, "Not invited", "You are not an annotator of this project.", 403)
    from annotation_tasks.services import training

    feedback = training.latest_feedback(worker, Assignment.objects.filter(unit__project=project), request.GET.get("seen"))
    if feedback is not None and feedback["result"] is None:  # the last lesson done: the verdict with its feedback
        training.gate(worker, project, queue.local_units(project.pk))
        feedback["result"] = training.result_of(worker, project.pk)
    # personal feedback from the researchers (services.messages): the local provider delivers it here
    notes = QualityDecision.objects.filter(worker=worker, project=project, action=QualityDecision.Action.MESSAGE,
                                           status=QualityDecision.Status.DONE).order_by("-created_at")[:5]
    return render(request, "annotation_tasks/annotate.html", {
        "project": project, "feedback": feedback, "training": training.result_of(worker, project.pk),
        "continue_url": f"{request.path}?seen={feedback['assignment']}" if feedback else "", "notes": notes})


_FAVICON = Path(__file__).resolve().parent / "static" / "annotation_tasks" / "favicon.ico"


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico: every browser asks for it on every page; a small icon instead of a 404 in each log."""
    response = HttpResponse(_FAVICON.read_bytes(), content_type="image/x-icon")
    response["Cache-Control"] = "public, max-age=86400"
    return response
