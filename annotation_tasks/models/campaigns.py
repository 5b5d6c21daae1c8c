"""Past campaigns brought in for analysis only: free-form crowd labels that no protocol collected.

Why a model of its own rather than Units/Assignments/QALabels: those rows need a Source, a Response, a QA or a fact
and an Assignment behind every label, while a past campaign only has (item, worker, label) and grouping columns.
Faking that structure would make the labels look publishable, show up in unit composition and in the protocols'
label levels, and mislabel free-form labels as QASem ones. Keeping them here, behind a Campaign row, marks the
project as analysis-only (services.campaigns refuses to mix it with collected content) and lets the report pick
the campaign path from one lookup.

- Campaign: one per analysis-only project; the grouping columns seen in the imported files, in file order.
- CampaignLabel: one label of one worker on one item, with the grouping values of its row and where it came from.
"""
from __future__ import annotations

from django.db import models

from annotation_tasks.models.projects import Project


class Campaign(models.Model):
    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="campaign")
    group_columns = models.JSONField(default=list, blank=True, help_text="Grouping columns in first-seen order.")
    files = models.JSONField(default=list, blank=True, help_text="Imported files: name, format, label columns.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"campaign of {self.project}"


class CampaignLabel(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="campaign_labels")
    level = models.CharField(max_length=200, help_text="What was asked (a level column, or the label column).")
    item_id = models.CharField(max_length=500)
    worker_id = models.CharField(max_length=500)
    label = models.CharField(max_length=1000)
    groups = models.JSONField(default=dict, blank=True, help_text="Grouping column -> value of the label's row.")
    file_name = models.CharField(max_length=255)
    line = models.PositiveIntegerField()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "level", "item_id", "worker_id"], name="one_campaign_label_per_worker_item"
            ),
        ]
