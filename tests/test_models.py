"""Database constraints of the data model hold on every backend."""
import pytest
from django.db import IntegrityError, transaction

from annotation_tasks.models import (
    QA,
    AnswerSpan,
    Assignment,
    Predicate,
    Project,
    Response,
    Source,
    SpanLabel,
    Unit,
    Worker,
)


@pytest.fixture
def response(db):
    project = Project.objects.create(name="p")
    source = Source.objects.create(project=project, external_id="s1", text="A man died.")
    return Response.objects.create(project=project, source=source, external_id="r1", system="m", text="A man died.")


def test_one_label_per_span_per_assignment(response):
    unit = Unit.objects.create(project=response.project, source=response.source)
    worker = Worker.objects.create(external_id="w1")
    assignment = Assignment.objects.create(unit=unit, worker=worker)
    span = AnswerSpan.objects.create(response=response, start=0, end=2, text="A man")
    SpanLabel.objects.create(assignment=assignment, span=span, covered=True)
    with pytest.raises(IntegrityError), transaction.atomic():
        SpanLabel.objects.create(assignment=assignment, span=span, covered=False)


def test_empty_answer_span_is_rejected(response):
    predicate = Predicate.objects.create(response=response, token_index=2, text="died")
    with pytest.raises(IntegrityError), transaction.atomic():
        QA.objects.create(response=response, predicate=predicate, question="Who died?", answer="", answer_start=1, answer_end=1)


def test_a_worker_holds_one_active_assignment_per_unit(response):
    unit = Unit.objects.create(project=response.project, source=response.source)
    worker = Worker.objects.create(external_id="w1")
    Assignment.objects.create(unit=unit, worker=worker, status="expired")
    Assignment.objects.create(unit=unit, worker=worker)
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(unit=unit, worker=worker)
