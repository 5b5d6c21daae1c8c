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
