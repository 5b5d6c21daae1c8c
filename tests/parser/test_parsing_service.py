"""The parse Job: queued after commit, progress, idempotent re-runs, what it never replaces, crash and resume."""
from __future__ import annotations

import io
import json
import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from annotation_tasks.models import QA, AnswerSpan, Job, Predicate, Project, Response, Source
from annotation_tasks.models.content import Origin
from annotation_tasks.services import parsing

TEXTS = [
    "Both were shot in the confrontation with police and have been recovering in hospital since the attack.",
    "The mayor resigned on Monday. Protesters cheered outside city hall.",
    "Roselyn Sanchez is an actress who was born in Puerto Rico.",
]


@pytest.fixture
def project(db) -> Project:
    return _make_project()


def _make_project() -> Project:
    project = Project.objects.create(name="parse-me")
    source = Source.objects.create(project=project, external_id="s1", text="reference")
    for i, text in enumerate(TEXTS):
        Response.objects.create(project=project, source=source, external_id=f"r{i}", system="m", text=text)
    return project


def _snapshot(project: Project) -> list[tuple]:
    return sorted(
        (q.response.external_id, q.predicate.token_index, q.question, q.answer_start, q.answer_end)
        for q in QA.objects.filter(response__project=project).select_related("response", "predicate")
    )


def test_job_is_queued_only_after_commit(project: Project, django_capture_on_commit_callbacks) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        job = parsing.start_parse_job(project)
    assert job.status == Job.Status.QUEUED and job.total == 3 and job.kind == Job.Kind.PARSE
    assert len(callbacks) == 1
    assert not QA.objects.exists()  # nothing ran before the commit
    callbacks[0]()
    job.refresh_from_db()
    assert job.status == Job.Status.DONE and job.done == job.total == 3
    assert job.result["backend"] == "embedded" and job.result["qas"] > 0


def test_parse_writes_frames_tokens_and_merged_spans(project: Project, django_capture_on_commit_callbacks) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        parsing.start_parse_job(project)
    response = Response.objects.get(external_id="r0")
    assert response.parsed_at is not None and response.parser_backend == "embedded"
    assert all(response.text[s:e] == t for t, s, e in response.tokens)
    shot = Predicate.objects.get(response=response, text="shot")
    assert shot.kind == Predicate.Kind.VERBAL and shot.verb_form == "shoot"
    # "Both" answers a QA of "shot" and one of "recovering": one AnswerSpan holding both
    both = AnswerSpan.objects.get(response=response, text="Both")
    assert {"shot", "recovering"} <= {q.predicate.text for q in both.qas.all()}
    assert both.qas.filter(predicate__text="shot").count() == 1
    assert AnswerSpan.objects.filter(response=response).count() == len(
        {(q.answer_start, q.answer_end) for q in response.qas.all()}
    )
    for qa in response.qas.all():
        assert len(qa.raw_question) == 7 and qa.role
    two = Response.objects.get(external_id="r1")
    assert [s["text"] for s in two.sentences] == ["The mayor resigned on Monday.", "Protesters cheered outside city hall."]
    assert Predicate.objects.get(response__external_id="r2", text="is").kind == Predicate.Kind.COPULAR


def test_rerun_replaces_only_the_parsers_own_qas(project: Project, django_capture_on_commit_callbacks) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        parsing.start_parse_job(project)
    first = _snapshot(project)
    response = Response.objects.get(external_id="r0")
    validated = response.qas.first()
    validated.validity = QA.Validity.VALID
    validated.save()
    edited = response.qas.exclude(pk=validated.pk).first()
    original_question = edited.question
    edited.question, edited.edited = "Who got hurt?", True
    edited.save()
    imported = QA.objects.create(
        response=response, predicate=validated.predicate, question="Imported question?", answer="Both",
        answer_start=0, answer_end=1, origin=Origin.IMPORTED,
    )
    with django_capture_on_commit_callbacks(execute=True):
        job = parsing.start_parse_job(project)
    job.refresh_from_db()
    assert job.status == Job.Status.DONE
    assert QA.objects.filter(pk__in=[validated.pk, edited.pk, imported.pk]).count() == 3
    after = _snapshot(project)
    # same frames again, no duplicates: the edited QA stands for its original, the rest is identical
    assert len(after) == len(first) + 1  # + the imported one
    assert set(first) - set(after) == {next(k for k in first if k[2] == original_question and k[3] == edited.answer_start)}
    assert len(set(after)) == len(after)


def test_crash_leaves_whole_responses_and_the_job_resumes(project: Project, django_capture_on_commit_callbacks,
                                                          monkeypatch) -> None:
    real = parsing.write_parse
    calls = {"n": 0}

    def flaky(response, parsed, name, facts_backend=None):
        calls["n"] += 1
        if calls["n"] == 2:
            QA.objects.create(  # a partial write that the transaction must roll back
                response=response, predicate=Predicate.objects.create(response=response, token_index=0, text="x"),
                question="half?", answer="x", answer_start=0, answer_end=1,
            )
            raise RuntimeError("worker killed")
        return real(response, parsed, name, facts_backend)

    monkeypatch.setattr(parsing, "write_parse", flaky)
    with django_capture_on_commit_callbacks(execute=True):
        job = parsing.start_parse_job(project)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and "worker killed" in job.error and job.done == 1
    assert list(Response.objects.filter(parsed_at__isnull=False).values_list("external_id", flat=True)) == ["r0"]
    assert not QA.objects.filter(response__external_id="r1").exists()  # rolled back, not half-parsed
    first_parsed_at = Response.objects.get(external_id="r0").parsed_at

    monkeypatch.setattr(parsing, "write_parse", real)
    with django_capture_on_commit_callbacks(execute=True):
        parsing.resume_parse_job(job)
    job.refresh_from_db()
    assert job.status == Job.Status.DONE and job.done == 3
    assert Response.objects.get(external_id="r0").parsed_at == first_parsed_at  # skipped: parsed by this run
    assert Response.objects.filter(parsed_at__isnull=True).count() == 0


def test_imported_tokens_stay_when_imported_qas_point_at_them(project: Project) -> None:
    response = Response.objects.get(external_id="r1")
    # an importer's tokenization differs from spaCy's only in being ours to keep
    tokens = [[m, s, s + len(m)] for m, s in _ws_tokens(response.text)]
    response.tokens = tokens
    response.sentences = [{"start": 0, "end": len(tokens), "text": response.text}]
    response.save()
    pred = Predicate.objects.create(response=response, token_index=2, text="resigned", origin=Origin.IMPORTED)
    QA.objects.create(response=response, predicate=pred, question="Who quit?", answer="The mayor",
                      answer_start=0, answer_end=2, origin=Origin.IMPORTED)
    parsing.parse_responses_now([response])
    response.refresh_from_db()
    assert response.tokens == tokens  # not re-tokenized
    cheered = Predicate.objects.get(response=response, text="cheered")
    assert cheered.token_index == [t[0] for t in tokens].index("cheered")
    # the parser adds its other QAs to the imported predicate, not a second "who" for the span already asked about
    parser_qas = response.qas.filter(origin=Origin.PARSER, predicate=pred)
    assert [(q.answer_start, q.answer_end) for q in parser_qas] == [(3, 5)]  # on Monday


def _ws_tokens(text: str) -> list[tuple[str, int]]:
    return [(m.group(), m.start()) for m in re.finditer(r"\w+|[^\w\s]", text)]


def test_unknown_backend_is_refused(project: Project) -> None:
    with pytest.raises(ValueError, match="unknown parser backend"):
        parsing.start_parse_job(project, backend="nope")
    with pytest.raises(ValueError, match="T5_MODEL_DIR"):
        parsing.start_parse_job(project, backend="t5")


def test_parse_command_waits_and_reports(transactional_db) -> None:
    """Outside a test transaction, as in production: on_commit fires, the (eager) job runs, --wait sees it."""
    _make_project()
    out, err = io.StringIO(), io.StringIO()
    call_command("parse", "--project", "parse-me", "--wait", "--timeout", "60", stdout=out, stderr=err)
    job = Job.objects.get(kind=Job.Kind.PARSE)
    assert out.getvalue().strip() == f"job {job.pk}: done 3/3"
    assert Response.objects.filter(parsed_at__lte=timezone.now()).count() == 3
    with pytest.raises(CommandError, match="no project"):
        call_command("parse", "--project", "missing", stdout=io.StringIO(), stderr=io.StringIO())
    out = io.StringIO()
    call_command("parse", "--project", "parse-me", "--inline", "--backend", "embedded", "--json", stdout=out,
                 stderr=io.StringIO())
    again = json.loads(out.getvalue())  # everything is parsed already: nothing to do without --reparse
    assert again["status"] == "done" and again["total"] == 0
    qas_before = QA.objects.count()
    out = io.StringIO()
    call_command("parse", "--project", "parse-me", "--inline", "--reparse", "--json", stdout=out, stderr=io.StringIO())
    redone = json.loads(out.getvalue())
    assert redone["status"] == "done" and redone["done"] == redone["total"] == 3
    assert QA.objects.count() == qas_before  # the parser's own QAs are replaced, not added to


def test_fact_labeling_projects_get_model_facts_but_keep_imported_ones(project: Project,
                                                                       django_capture_on_commit_callbacks) -> None:
    from annotation_tasks.models import AtomicFact

    project.protocol = ["fact_labeling"]
    project.save()
    imported_on = Response.objects.get(external_id="r2")
    AtomicFact.objects.create(response=imported_on, text="Roselyn Sanchez is an actress.", origin=Origin.IMPORTED)
    with django_capture_on_commit_callbacks(execute=True):
        job = parsing.start_parse_job(project)
    job.refresh_from_db()
    assert job.status == Job.Status.DONE and job.result["atomic_facts"] > 0
    r1 = Response.objects.get(external_id="r1")
    facts = list(r1.atomic_facts.order_by("sentence_index", "order").values_list("sentence_index", "text", "origin"))
    assert facts[0] == (0, "The mayor resigned on Monday.", Origin.PARSER)
    assert {f[0] for f in facts} == {0, 1}  # one or more per sentence
    assert list(imported_on.atomic_facts.values_list("origin", flat=True)) == [Origin.IMPORTED]
    # a re-run replaces model facts, it does not pile them up
    before = r1.atomic_facts.count()
    with django_capture_on_commit_callbacks(execute=True):
        parsing.start_parse_job(project)
    assert r1.atomic_facts.count() == before
