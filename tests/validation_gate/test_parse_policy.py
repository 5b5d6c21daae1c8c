"""The project's parse policy applied when parsing: which QAs are written, their confidence, what was dropped."""
from __future__ import annotations

import pytest
from django.db import transaction
from django.db.models import Count
from rest_framework.test import APIClient

from annotation_tasks.models import QA, AtomicFact, Job, Project, ProjectMembership, Response, Source
from annotation_tasks.services import parsing
from parser.facts.confidence import CALIBRATION, fact_kind
from parser.types import Answer, ParsedText, PredicateFrame, QAPair, Sentence, Token

pytestmark = pytest.mark.django_db

TEXT = "Anna visited Lima after the election ."


def _parsed() -> ParsedText:
    words = TEXT.split()
    tokens, pos = [], 0
    for i, w in enumerate(words):
        tokens.append(Token(i, w, pos, pos + len(w)))
        pos += len(w) + 1

    def qa(wh: str, start: int, end: int, confidence: float) -> QAPair:
        return QAPair((wh, "_", "_", "visit", "_", "_", "_"), f"{wh} visit?", [Answer(start, end)], confidence=confidence)

    verbal = PredicateFrame(1, "visited", "visit", "verbal", qas=[
        qa("who", 0, 1, 0.9), qa("what", 2, 3, 0.4), qa("when", 3, 6, 0.8), qa("where", 2, 3, 0.7),
    ])
    nominal = PredicateFrame(5, "election", "elect", "nominal", pos="NOUN", qas=[qa("who", 0, 1, 0.95), qa("when", 3, 4, 0.9)])
    return ParsedText(TEXT, tokens, [Sentence(0, 0, len(words), TEXT, 0, len(TEXT))], [verbal, nominal], "test")


def _response(policy: dict | None = None, protocol=None) -> Response:
    project = Project.objects.create(name="policy", protocol=protocol or ["span_coverage", "qa_support"],
                                     **({"parse_policy": policy} if policy is not None else {}))
    source = Source.objects.create(project=project, external_id="s", text="ref")
    return Response.objects.create(project=project, source=source, external_id="r", system="m", text=TEXT)


def test_write_parse_keeps_what_the_policy_keeps_and_counts_the_rest():
    response = _response({"kinds": ["verbal"], "min_confidence": 0.5, "max_qas_per_predicate": 2})
    with transaction.atomic():
        counts = parsing.write_parse(response, _parsed(), "test")
    kept = list(QA.objects.filter(response=response).order_by("order").values_list("raw_question", "confidence"))
    assert [(slots[0], c) for slots, c in kept] == [("who", 0.9), ("when", 0.8)]  # the two surest, in parse order
    assert counts["qas"] == 2
    assert counts["dropped"]["kind"] == 2 and counts["dropped"]["confidence"] == 1
    assert counts["dropped"]["per_predicate"] == 1


def test_the_default_policy_puts_precision_first():
    response = _response()
    assert response.project.parse_policy == parsing.ParsePolicy().as_dict()
    with transaction.atomic():
        parsing.write_parse(response, _parsed(), "test")
    confidences = QA.objects.filter(response=response).values_list("confidence", flat=True)
    assert confidences and min(confidences) >= 0.5  # the 0.4 verbal QA never reaches validators


def test_a_parse_job_reports_how_many_were_dropped_and_why():
    project = Project.objects.create(name="job", parse_policy={"max_qas_per_predicate": 1, "min_confidence": 0.0})
    source = Source.objects.create(project=project, external_id="s", text="ref")
    texts = ["The mayor resigned on Monday after protesters marched to city hall.",
             "Roselyn Sanchez is an actress who was born in Puerto Rico."]
    for i, text in enumerate(texts):
        Response.objects.create(project=project, source=source, external_id=f"r{i}", system="m", text=text)
    raw = parsing.get_parser("embedded").parse_many(texts)
    over = sum(max(0, len(f.qas) - 1) for p in raw for f in p.frames)
    job = parsing.run_parse_job(parsing.start_parse_job(project, queue=False).pk)
    assert job.status == Job.Status.DONE, job.error
    assert job.result["dropped"]["per_predicate"] == over > 0
    assert job.result["policy"]["max_qas_per_predicate"] == 1 and job.result["dropped_total"] >= over
    assert f"{over} per predicate" in job.result["summaries"][0]  # what the dashboard's job panel shows
    questions = QA.objects.filter(response__project=project).values("predicate_id").annotate(
        n=Count("question", distinct=True))
    assert questions and max(q["n"] for q in questions) == 1  # one question per predicate (its answers may be several)
    assert not QA.objects.filter(response__project=project, confidence__isnull=True).exists()


def test_facts_carry_their_confidence_and_the_least_one_drops_the_rest(settings):
    settings.ATOMIC_FACTS_BACKEND = "embedded"
    text = "Roselyn Sanchez is a Puerto Rican actress and singer. She was born in San Juan in 1973."
    project = Project.objects.create(name="facts", protocol=["fact_labeling"])
    source = Source.objects.create(project=project, external_id="s", text="ref")
    response = Response.objects.create(project=project, source=source, external_id="r", system="m", text=text)
    job = parsing.run_parse_job(parsing.start_parse_job(project, queue=False).pk)
    facts = list(AtomicFact.objects.filter(response=response))
    assert facts and job.result["dropped"]["fact_confidence"] == 0
    sentences = [s["text"] for s in Response.objects.get(pk=response.pk).sentences]
    for fact in facts:
        assert fact.confidence == CALIBRATION[fact_kind(fact.text, sentences[fact.sentence_index], text)]
    project.parse_policy = {**project.parse_policy, "min_fact_confidence": 1.0}
    project.save()
    response.parsed_at = None
    response.save()
    AtomicFact.objects.all().delete()
    job = parsing.run_parse_job(parsing.start_parse_job(project, queue=False).pk)
    assert not AtomicFact.objects.exists() and job.result["dropped"]["fact_confidence"] == len(facts)


def test_the_project_endpoint_checks_the_policy_and_names_the_field(django_user_model):
    project = Project.objects.create(name="api")
    user = django_user_model.objects.create_user("res")
    ProjectMembership.objects.create(project=project, user=user, role=ProjectMembership.Role.RESEARCHER)
    client = APIClient()
    client.force_authenticate(user)
    for bad, field in (({"kinds": ["adverbial"]}, "parse_policy.kinds[0]"),
                       ({"min_confidence": 2}, "parse_policy.min_confidence"),
                       ({"max_qas_per_predicate": 0}, "parse_policy.max_qas_per_predicate"),
                       ({"min_fact_confidence": "high"}, "parse_policy.min_fact_confidence"),
                       ({"shape": 1}, "parse_policy.shape")):
        r = client.patch(f"/api/projects/{project.pk}/", {"parse_policy": bad}, format="json")
        assert r.status_code == 400 and field in r.json()["parse_policy"][0], (bad, r.content)
    r = client.patch(f"/api/projects/{project.pk}/", {"parse_policy": {"kinds": ["verbal"], "max_qas_per_predicate": None}},
                     format="json")
    assert r.status_code == 200
    saved = Project.objects.get(pk=project.pk).parse_policy
    assert saved["kinds"] == ["verbal"] and saved["max_qas_per_predicate"] is None
