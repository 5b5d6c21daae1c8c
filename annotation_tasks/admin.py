"""Django admin registrations for browsing data by hand."""
from django.contrib import admin

from annotation_tasks import models

for model in (
    models.Project,
    models.Source,
    models.Response,
    models.Predicate,
    models.QA,
    models.AnswerSpan,
    models.AtomicFact,
    models.Worker,
    models.Batch,
    models.Unit,
    models.Assignment,
    models.QualityDecision,
    models.Job,
    models.GoldLabel,
):
    admin.site.register(model)
