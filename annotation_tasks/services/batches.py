"""A batch's lifecycle rules: when it may be edited, composed, published or synced, and why not.

The API, the commands and the publish service ask here instead of each spelling the rules again, and the
dashboard shows the answer the API reports (`publishable`, `publish_blockers`) instead of a rule of its own.
Each publish rule is one small named check in PUBLISH_CHECKS that returns a Blocker or None: adding a rule
(say, "the QAs are not validated yet") is one function appended to that list. The checks read only our
database, so the batch list can show them; what needs the platform (the balance) is `funding_blocker`, run
when a cost estimate exists.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from annotation_tasks.crowd import CostEstimate, available_providers
from annotation_tasks.models import Batch, Job

PUBLISHABLE_STATUSES = (Batch.Status.DRAFT, Batch.Status.PUBLISHED)  # published: publishing again resumes


@dataclass(frozen=True)
class Blocker:
    """Why an operation on a batch is refused: a stable code for programs, a message for people, and the
    request field the API files the message under (so error responses keep their {field: message} shape)."""

    code: str
    message: str
    field: str = "status"
    count: int | None = None  # how many items block, where that means something (undecided QAs)
    link: str = ""  # where a person can fix it (the dashboard screen)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.count is not None:
            out["count"] = self.count
        if self.link:
            out["link"] = self.link
        return out


class BatchRuleError(Exception):
    """The batch's state does not allow the operation; carries every blocker found."""

    def __init__(self, blockers: Iterable[Blocker]) -> None:
        self.blockers = list(blockers)
        super().__init__("; ".join(b.message for b in self.blockers))

    def by_field(self) -> dict[str, str]:
        """{request field: message} (two blockers on one field: their messages in one line), the shape the
        API's 400 answers have always had."""
        out: dict[str, str] = {}
        for b in self.blockers:
            out[b.field] = f"{out[b.field]} {b.message}" if b.field in out else b.message
        return out


def _refuse_unless(ok: bool, code: str, message: str, field: str = "status") -> None:
    if not ok:
        raise BatchRuleError([Blocker(code, message, field)])


# -- publish rules: one function each, in the order they are reported ----------------------------
PublishCheck = Callable[[Batch], Blocker | None]


def status_allows_publishing(batch: Batch) -> Blocker | None:
    """Only a draft (or a published batch, to resume) can be published; closed and imported ones cannot."""
    if batch.status in PUBLISHABLE_STATUSES:
        return None
    article = "An" if batch.status[:1] in "aeiou" else "A"
    return Blocker("status", f"{article} {batch.status} batch cannot be published.")


def provider_is_known(batch: Batch) -> Blocker | None:
    """The batch's provider is one this installation can talk to."""
    if batch.provider in available_providers():
        return None
    known = ", ".join(available_providers())
    return Blocker("provider", f"No crowd provider {batch.provider!r} here (known: {known}).", "provider")


def has_units(batch: Batch) -> Blocker | None:
    """There is something to publish: units composed from the project's sources."""
    count = getattr(batch, "unit_count", None)  # the API's list annotates it; saves a query per row
    if count is None:
        count = batch.units.count()
    if count:
        return None
    return Blocker("no_units", "The batch has no units: compose them first.", "units")


def qas_are_validated(batch: Batch) -> Blocker | None:
    """With QA validation in the protocol, the crowd units still to publish hold no undecided QA, unless a
    researcher overrode it with a reason (services.validation.override_validation; logged on the batch)."""
    from annotation_tasks.models import Unit
    from annotation_tasks.models.projects import Protocol
    from annotation_tasks.services.validation import undecided_in_units

    if not batch.project.has_step(Protocol.QA_VALIDATION) or (batch.settings or {}).get("validation_override"):
        return None
    pending = batch.units.filter(provider_ref="").exclude(mode__in=[Unit.Mode.VALIDATION, Unit.Mode.FACTSCORE])
    count = undecided_in_units(pending).count()
    if not count:
        return None
    link = f"/#/p/{batch.project_id}/validate/batch/{batch.pk}"
    return Blocker(
        "undecided_qas",
        f"{count} QA{'s' if count != 1 else ''} in these units {'are' if count != 1 else 'is'} not validated yet: "
        f"decide them ({link}) or publish anyway with a reason for skipping validation (\"Publish anyway, because\" "
        "in the dashboard; --override-validation-reason on the command line).",
        "validation", count=count, link=link,
    )


def facts_are_validated(batch: Batch) -> Blocker | None:
    """With fact validation in the protocol, the units still to publish hold no undecided model fact, unless a
    researcher overrode it with a reason (the QAs' override: services.validation.override_validation)."""
    from annotation_tasks.models.projects import Protocol
    from annotation_tasks.services.fact_validation import undecided_in_batch

    if not batch.project.has_step(Protocol.FACT_VALIDATION) or (batch.settings or {}).get("validation_override"):
        return None
    count = undecided_in_batch(batch)
    if not count:
        return None
    link = f"/#/p/{batch.project_id}/validate-facts/batch/{batch.pk}"
    return Blocker(
        "undecided_facts",
        f"{count} fact{'s' if count != 1 else ''} in these units {'are' if count != 1 else 'is'} not validated yet: "
        f"decide them ({link}) or publish with a reason for skipping validation.",
        "validation", count=count, link=link,
    )


def latest_compose_job(batch: Batch) -> Job | None:
    """The batch's most recent compose Job (services.batch_jobs; its params name the batch), or None."""
    return (Job.objects.filter(project_id=batch.project_id, kind=Job.Kind.COMPOSE, params__batch=batch.pk)
            .order_by("-id").first())


def compose_is_finished(batch: Batch) -> Blocker | None:
    """A batch composed by a Job (services.batch_jobs) is published only once its latest compose Job is done: a
    stopped one has committed some sources' units and not the rest."""
    from annotation_tasks.services import jobs

    job = latest_compose_job(batch)
    if job is None or job.status == job.Status.DONE:
        return None
    how = "stopped: resume it (Compose units again)" if jobs.offers_resume(job) else "running"
    return Blocker("composing", f"The batch is still being composed (job {job.pk}, {job.done} of {job.total} sources; "
                   f"{how}).", "units")


OVERRIDABLE = ("undecided_qas", "undecided_facts")
"""Blockers a researcher may override with a reason (the validation pre-steps)."""

PUBLISH_CHECKS: list[PublishCheck] = [status_allows_publishing, provider_is_known, has_units, compose_is_finished,
                                      qas_are_validated, facts_are_validated]


def publish_blockers(batch: Batch) -> list[Blocker]:
    """Every reason the batch cannot be published now (empty: it can); reads our database only."""
    return [blocker for check in PUBLISH_CHECKS if (blocker := check(batch)) is not None]


def ensure_publishable(batch: Batch) -> None:
    blockers = publish_blockers(batch)
    if blockers:
        raise BatchRuleError(blockers)


def funding_blocker(provider_name: str, estimate: CostEstimate, balance: Decimal | None) -> Blocker | None:
    """The account balance must cover the estimate (None: the platform has no balance, e.g. local)."""
    if balance is None or balance >= estimate.total:
        return None
    return Blocker(
        "insufficient_funds",
        f"{provider_name} balance {balance} {estimate.currency} does not cover {estimate.total}: {estimate.describe()}",
        "provider",
    )


# -- the rest of the lifecycle --------------------------------------------------------------------
def ensure_editable(batch: Batch, changes: Mapping) -> None:
    """Settings and name can change while the batch is a draft; it never moves to another project."""
    _refuse_unless(batch.status == Batch.Status.DRAFT, "status", "Only a draft batch can be changed.")
    project = changes.get("project")
    _refuse_unless(project is None or project == batch.project, "project",
                   "A batch cannot move to another project.", "project")


def ensure_deletable(batch: Batch) -> None:
    _refuse_unless(batch.status == Batch.Status.DRAFT, "status", "Only a draft batch can be deleted; close it instead.")


def ensure_composable(batch: Batch) -> None:
    """A draft, and no compose Job of it alive (a second composition beside it could compose a source twice; a
    stopped one is resumed by composing again)."""
    from annotation_tasks.services import jobs

    _refuse_unless(batch.status == Batch.Status.DRAFT, "status", "Units can only be added to a draft batch.")
    job = latest_compose_job(batch)
    alive = job is not None and job.status in (job.Status.QUEUED, job.Status.RUNNING) and not jobs.is_stalled(job)
    _refuse_unless(not alive, "composing", f"The batch is being composed (job {job.pk if job else ''}): wait for it "
                   "to finish.", "units")


def ensure_syncable(batch: Batch) -> None:
    _refuse_unless(batch.status == Batch.Status.PUBLISHED, "status", "Only a published batch has submissions to sync.")
