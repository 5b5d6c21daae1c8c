"""Cheap fingerprints of a project's data, for caches of what is expensive to compute from it (the report, the
adjudication queue's table, the workers' metrics; issue 25): a few aggregates, no row read. A cache keyed by
one is stale at most until the next write these aggregates see."""
from __future__ import annotations

from annotation_tasks.models import Assignment, Project


def labels_version(project: Project) -> str:
    """Changes whenever the project's labels or items may have: work submitted or reviewed, an item added or
    marked invalid, a gold label added (max ids and counts, one cheap aggregate per table)."""
    from django.db.models import Count, Max, Q

    from annotation_tasks.models import QA, GoldLabel, Response

    parts = [
        Assignment.objects.filter(unit__project=project).aggregate(
            n=Count("pk"), m=Max("pk"), s=Max("submitted_at"), r=Max("reviewed_at"),
            c=Count("pk", filter=Assignment.counted_q())),
        Response.objects.filter(project=project).aggregate(n=Count("pk"), m=Max("pk")),
        QA.objects.filter(response__project=project).aggregate(
            n=Count("pk"), m=Max("pk"), i=Count("pk", filter=Q(validity=QA.Validity.INVALID))),
        GoldLabel.objects.aggregate(n=Count("pk"), m=Max("pk")),
    ]
    return "|".join(str(sorted(p.items())) for p in parts)


def report_version(project: Project) -> str:
    """labels_version and the experts' decisions (the report's adjudication section reads them)."""
    from django.db.models import Count, Max

    from annotation_tasks.models import AdjudicatedLabel

    decided = AdjudicatedLabel.objects.filter(project=project).aggregate(n=Count("pk"), m=Max("pk"))
    return f"{labels_version(project)}|{sorted(decided.items())}"


# A large project's version is itself about a second of aggregates at 10^6 labels: the queue and the report read it
# at most once per VERSION_CHECK_SECONDS per project (their figures are then up to that many seconds behind new
# work); a small project's is read every time, so its pages follow each change at once.
LARGE_ASSIGNMENTS = 20_000
VERSION_CHECK_SECONDS = 15


def is_large(project: Project) -> bool:
    """More than LARGE_ASSIGNMENTS assignments: a bounded read (it stops at the limit), remembered for 5 minutes."""
    from django.core.cache import cache

    key = f"factcrowd:large:{project.pk}"
    large = cache.get(key)
    if large is None:
        large = Assignment.objects.filter(unit__project=project).order_by()[
            LARGE_ASSIGNMENTS:LARGE_ASSIGNMENTS + 1].exists()
        cache.set(key, large, 300)
    return bool(large)


def _recent(project: Project, name: str, read) -> str:
    if not is_large(project):
        return read(project)
    from django.core.cache import cache

    key = f"factcrowd:version:{name}:{project.pk}"
    version = cache.get(key)
    if version is None:
        version = read(project)
        cache.set(key, version, VERSION_CHECK_SECONDS)
    return version


def recent_labels_version(project: Project) -> str:
    """labels_version, read at most once per VERSION_CHECK_SECONDS for a large project."""
    return _recent(project, "labels", labels_version)


def recent_report_version(project: Project) -> str:
    """report_version, read at most once per VERSION_CHECK_SECONDS for a large project."""
    return _recent(project, "report", report_version)


def version_hash(project: Project, which: str, recent: bool = False) -> str:
    """sha1 of labels_version ("labels") or report_version ("report"), or of their recent_ forms: a cache key part."""
    import hashlib

    read = {("labels", False): labels_version, ("report", False): report_version,
            ("labels", True): recent_labels_version, ("report", True): recent_report_version}[(which, recent)]
    return hashlib.sha1(read(project).encode()).hexdigest()
