"""load_demo: the demo user (demo / demo), two demo projects with pre-parsed content, and their units,
launched on the local provider so that /annotate/<project>/ serves a unit at once; and a third, finished study
("Demo study (labelled)": the QASem demo's texts with three simulated workers' votes per source, some of them
split, and the embedded scorer's scores), so the report, adjudication (also ordered by disagreement with the
scorer), workers and exports show something before anyone has annotated.

Idempotent, because `make run` calls it on every start: the user keeps a changed password, imports skip
what exists, unit composition skips sources that already have a unit, and publishing only launches units
not yet published (a batch a researcher closed stays closed).
"""
from __future__ import annotations

import json
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from annotation_tasks.models import Batch, ItemScore, Project, ProjectMembership, Source
from annotation_tasks.models.projects import Protocol
from annotation_tasks.services import scoring
from annotation_tasks.services.imports import import_factscore, import_qasem_release
from annotation_tasks.services.publishing import publish_batch
from annotation_tasks.services.units import compose_units

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"
QASEM_PROJECT = "Demo"
FACTSCORE_PROJECT = "Demo FActScore"
STUDY_PROJECT = "Demo study (labelled)"
QASEM_PROTOCOL = [Protocol.SPAN_COVERAGE.value, Protocol.QA_SUPPORT.value, Protocol.PAIRWISE.value]
INSTRUCTIONS = (
    "Read the source. Step 1: for each highlighted answer span, say whether the source covers it. "
    "Step 2: for each question-answer pair, say whether the source supports it."
)


class Command(BaseCommand):
    help = "Create or update the demo user and projects (safe to run on every start)."

    def handle(self, *args, **options) -> None:
        with transaction.atomic():
            user, created = get_user_model().objects.get_or_create(username="demo")
            if created:
                user.set_password("demo")
                user.save(update_fields=["password"])
            qasem, _ = Project.objects.get_or_create(
                name=QASEM_PROJECT,
                defaults={"protocol": QASEM_PROTOCOL, "instructions": INSTRUCTIONS,
                          "description": "Three news sources, two summaries each, pre-parsed."},
            )
            results = [import_qasem_release(DEMO_DIR / "qasem.jsonl", QASEM_PROJECT)]
            facts, _ = Project.objects.get_or_create(
                name=FACTSCORE_PROJECT,
                defaults={"protocol": [Protocol.FACT_LABELING.value],
                          "description": "Two short biographies split into atomic facts."},
            )
            results += import_factscore([DEMO_DIR / "factscore.jsonl"], FACTSCORE_PROJECT, system="demo-llm")
            study, _ = Project.objects.get_or_create(
                name=STUDY_PROJECT,
                defaults={"protocol": QASEM_PROTOCOL[:2], "instructions": INSTRUCTIONS,
                          "description": "A finished study to explore: the Demo's texts, three simulated workers per "
                                         "source (demo/qasem_study.jsonl); some items split, for adjudication."},
            )
            results.append(import_qasem_release(DEMO_DIR / "qasem_study.jsonl", STUDY_PROJECT))
            if not ItemScore.objects.filter(qa__project=study).exists():
                # the shipped scorer's scores (about a second, once), so the report's scorer calibration and the
                # crowd-scorer disagreement queue have something to show too
                scoring.score_items(study, scoring.get_scorer("embedded"))
            ProjectMembership.objects.get_or_create(
                project=study, user=user, defaults={"role": ProjectMembership.Role.RESEARCHER}
            )
            references = json.loads((DEMO_DIR / "factscore_sources.json").read_text(encoding="utf-8"))
            for source in Source.objects.filter(project=facts, external_id__in=list(references), text=""):
                source.text = references[source.external_id]
                source.save(update_fields=["text"])
            n_units = n_published = 0
            for project in (qasem, facts):
                ProjectMembership.objects.get_or_create(
                    project=project, user=user, defaults={"role": ProjectMembership.Role.RESEARCHER}
                )
                batch, _ = Batch.objects.get_or_create(project=project, name="Demo batch", defaults={"provider": "local"})
                n_units += len(compose_units(batch))
                if batch.provider == "local" and batch.status != Batch.Status.CLOSED:
                    launched = publish_batch(batch, reward="0", assignments_per_unit=project.annotations_per_item,
                                             provider_name="local", check_balance=False, rate_per_second=0)
                    n_published += len(launched.published)
        for result in results:
            self.stdout.write(result.summary())
        self.stdout.write(f"demo: user demo / demo, projects {QASEM_PROJECT!r}, {FACTSCORE_PROJECT!r} and {STUDY_PROJECT!r} (labelled), {n_units} new units, {n_published} newly launched on the local provider")
