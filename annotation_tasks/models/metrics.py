"""Kept per-worker quality figures of a project (issue 25): the workers list reads a page of them by index instead
of computing agreement over the project's million labels in the request. services/worker_metrics.py writes them
(all of a project's workers at once, in the background when the project is large) and says how old they are."""
from __future__ import annotations

from django.db import models

from annotation_tasks.models.projects import Project
from annotation_tasks.models.work import Worker


class WorkerMetricsSnapshot(models.Model):
    """One worker's figures in one project as of `computed_at`, for the data version `version` (versions.py)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="worker_metrics")
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="kept_metrics")
    version = models.CharField(max_length=40)
    computed_at = models.DateTimeField()
    checked_at = models.DateTimeField(help_text="When the data version was last compared and found unchanged.")
    units_done = models.IntegerField(default=0)
    gold_total = models.IntegerField(default=0)
    gold_correct = models.IntegerField(default=0)
    agreement = models.FloatField(null=True)
    agreement_compared = models.IntegerField(default=0)
    median_time_on_task_ms = models.FloatField(null=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "worker"], name="one_metrics_row_per_worker")]
