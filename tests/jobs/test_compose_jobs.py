"""Compose of a large batch as a Job (issue 25 item 4): chunks with progress, the same units as the one-request
compose wrote before, and a killed compose resumed without duplicates; publishing waits for it."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from annotation_tasks.models import GoldLabel, Job, Project, ProjectMembership, Source, Unit, UnitResponse
from annotation_tasks.models.work import Batch
from annotation_tasks.protocols import get_protocol
from annotation_tasks.services import batch_jobs, jobs, units
from annotation_tasks.services import batches as batch_rules
from tests.work.builders import make_response

pytestmark = pytest.mark.django_db


def _old_compose(batch: Batch) -> None:
    """compose_units as it was before chunks (commit 5446b98): one source at a time, a create per unit, the gold
    flag asked per unit. The reference the Job must agree with."""
    project = batch.project
    mode = units.crowd_mode(project)
    protocol = get_protocol(mode)
    wanted = protocol.assignments_wanted(project)
    caps = units.project_caps(project)
    for source in Source.objects.filter(project=project).order_by("id").prefetch_related("responses"):
        if not source.responses.all():
            continue
        for members in units.source_units(source, protocol, caps, False):
            whole = [rid for rid, piece in members if piece is None]
            checks = [{f"{kind}__response_id__in": whole} for kind in ("span", "qa", "fact")] if whole else []
            for field, kind in (("span_id", "spans"), ("qa_id", "qas"), ("fact_id", "facts")):
                ids = [i for _, piece in members if piece is not None for i in piece.get(kind, [])]
                if ids:
                    checks.append({f"{field}__in": ids})
            gold = any(GoldLabel.objects.filter(**check).exists() for check in checks)
            unit = Unit.objects.create(project=project, batch=batch, source_id=source.pk, mode=mode,
                                       assignments_wanted=wanted, is_gold=not protocol.expert_step and gold)
            UnitResponse.objects.bulk_create([UnitResponse(unit=unit, response_id=rid, position=i, items=piece)
                                              for i, (rid, piece) in enumerate(members)])


def _shape(batch: Batch) -> list[tuple]:
    """A batch's units as comparable values, in id order: source, mode, gold, wanted, and each member."""
    out = []
    for unit in Unit.objects.filter(batch=batch).order_by("id"):
        members = [(ur.response.external_id, ur.position, ur.items) for ur in
                   UnitResponse.objects.filter(unit=unit).select_related("response").order_by("position")]
        out.append((unit.source.external_id, unit.mode, unit.is_gold, unit.assignments_wanted, members))
    return out


@pytest.fixture
def setup():
    """Nine sources: long responses split by the caps, gold on some, one source without responses."""
    user = get_user_model().objects.create_user("res", password="pw")
    project = Project.objects.create(name="Compose", protocol=["span_coverage", "qa_support"],
                                     unit_caps={"spans": 4, "qas": 5, "facts": 30})
    ProjectMembership.objects.create(project=project, user=user, role=ProjectMembership.Role.RESEARCHER)
    for i in range(9):
        source = Source.objects.create(project=project, external_id=f"s{i}", text="ref")
        if i == 4:
            continue
        for j in range(1 + i % 3):
            make_response(project, source, f"r{i}-{j}", n_qas=2 + (i * 3 + j) % 9, gold=(i + j) % 2 == 0)
    client = APIClient()
    client.force_authenticate(user)
    return project, client


def test_a_compose_job_reaches_its_total_and_writes_the_units_the_old_compose_did(
        setup, monkeypatch, django_capture_on_commit_callbacks):
    project, client = setup
    reference = Batch.objects.create(project=project, name="old")
    _old_compose(reference)
    batch = Batch.objects.create(project=project, name="job")
    monkeypatch.setattr(batch_jobs, "COMPOSE_INLINE_SOURCES", 3)  # 9 sources: over it, so a Job
    monkeypatch.setattr(units, "COMPOSE_CHUNK", 2)  # several chunks
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(f"/api/batches/{batch.pk}/compose/", {}, format="json")
    assert answer.status_code == 202, answer.content
    job = Job.objects.get(pk=answer.json()["id"])
    assert job.kind == Job.Kind.COMPOSE and job.status == Job.Status.DONE, job.error
    assert job.done == job.total == Source.objects.filter(project=project).count()
    assert job.result["created"] == Unit.objects.filter(batch=batch).count()
    shape = _shape(batch)
    assert shape == _shape(reference)
    assert any(gold for _, _, gold, _, _ in shape) and not all(gold for _, _, gold, _, _ in shape)
    assert len({source for source, *_ in shape}) < len(shape)  # some sources were split by the caps
    assert "composing" not in {b.code for b in batch_rules.publish_blockers(batch)}
    # a small compose stays one request with its first page
    small = Batch.objects.create(project=project, name="small")
    monkeypatch.setattr(batch_jobs, "COMPOSE_INLINE_SOURCES", 500)
    inline = client.post(f"/api/batches/{small.pk}/compose/", {}, format="json")
    assert inline.status_code == 201 and inline.json()["created"] == len(shape)
    assert _shape(small) == shape


class Killed(BaseException):
    """The worker process dies (not an exception the Job could record)."""


def test_a_killed_compose_resumed_gives_the_same_batch_without_duplicates(
        setup, monkeypatch, django_capture_on_commit_callbacks):
    project, client = setup
    reference = Batch.objects.create(project=project, name="old")
    _old_compose(reference)
    batch = Batch.objects.create(project=project, name="job")
    monkeypatch.setattr(units, "COMPOSE_CHUNK", 3)
    job = batch_jobs.start_compose_job(batch, mode=units.crowd_mode(project))
    adds = []
    real_add = jobs.Progress.add

    def dying_add(self, n=1):
        real_add(self, n)
        adds.append(n)
        if len(adds) == 2:  # after the second chunk committed
            raise Killed

    monkeypatch.setattr(jobs.Progress, "add", dying_add)
    with pytest.raises(Killed):
        batch_jobs.run_compose_job(job.pk)
    monkeypatch.setattr(jobs.Progress, "add", real_add)
    job.refresh_from_db()
    assert job.status == Job.Status.RUNNING and job.done == 6
    half = Unit.objects.filter(batch=batch).count()
    assert 0 < half < len(_shape(reference))
    # publishing waits; composing again while the worker may be alive is refused
    assert "composing" in {b.code for b in batch_rules.publish_blockers(batch)}
    refused = client.post(f"/api/batches/{batch.pk}/compose/", {}, format="json")
    assert refused.status_code == 400 and "units" in refused.json()
    # the worker is gone (no heartbeat): composing again resumes the same Job
    gone = timezone.now() - jobs.stall_after() - timedelta(seconds=5)
    Job.objects.filter(pk=job.pk).update(heartbeat_at=gone)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(f"/api/batches/{batch.pk}/compose/", {}, format="json")
    assert answer.status_code == 202 and answer.json()["id"] == job.pk
    job.refresh_from_db()
    assert job.status == Job.Status.DONE and job.done == job.total
    assert job.result["created"] == len(_shape(reference)) - half
    assert _shape(batch) == _shape(reference)
    assert not {b.code for b in batch_rules.publish_blockers(batch)} & {"composing"}
