"""`manage.py adjudicate`: the queue written for an expert offline, the filled-in file applied all or nothing
(every bad line named by file, line and field), and decisions listed with their provenance."""
from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation_tasks.models import AdjudicatedLabel, ProjectMembership

pytestmark = pytest.mark.django_db


@pytest.fixture
def expert(qasem_study):
    user = get_user_model().objects.create_user("expert", password="x")
    ProjectMembership.objects.create(project=qasem_study.project, user=user, role=ProjectMembership.Role.RESEARCHER)
    return user


def _queue(project, tmp_path, *extra) -> list[dict]:
    target = tmp_path / "queue.jsonl"
    call_command("adjudicate", "queue", "--project", project.name, "-o", str(target), *extra, stderr=io.StringIO())
    return [json.loads(line) for line in target.read_text().splitlines()]


def test_queue_then_apply_stores_the_experts_decisions(qasem_study, expert, tmp_path) -> None:
    rows = _queue(qasem_study.project, tmp_path)
    assert {(r["level"], r["aspect"]) for r in rows} == {("qa", None), ("pairwise", "consistency")}
    assert all(r["label"] == "" and r["reason"] == "" and r["allowed"] for r in rows)
    qa = next(r for r in rows if r["level"] == "qa")
    assert qa["majority"] == "supported"
    assert sorted(v["label"] for v in qa["votes"]) == sorted(k for k, n in qa["counts"].items() for _ in range(n))
    qa.update(label="not_supported", reason="the source says measles, not flu")
    filled = tmp_path / "filled.jsonl"
    filled.write_text("\n".join(json.dumps(r) for r in rows) + "\n")  # the pairwise row left undecided

    out = io.StringIO()
    call_command("adjudicate", "apply", str(filled), "--project", qasem_study.project.name, "--user", "expert",
                 stdout=out)
    assert "1 decisions stored (0 of them replace" in out.getvalue()
    decision = AdjudicatedLabel.objects.get(qa_id=qa["item_id"])
    assert (decision.value, decision.decided_by, decision.majority) == ("not_supported", expert, "supported")
    assert _queue(qasem_study.project, tmp_path, "--undecided") == [r for r in _queue(qasem_study.project, tmp_path)
                                                                   if r["level"] == "pairwise"]
    listed = io.StringIO()
    call_command("adjudicate", "list", "--project", qasem_study.project.name, stdout=listed)
    (row,) = [json.loads(line) for line in listed.getvalue().splitlines()]
    assert (row["item_id"], row["label"], row["decided_by"]) == (qa["item_id"], "not_supported", "expert")


def test_a_bad_line_stores_nothing_and_is_named(qasem_study, expert, tmp_path) -> None:
    rows = _queue(qasem_study.project, tmp_path)
    qa = next(r for r in rows if r["level"] == "qa")
    pair = next(r for r in rows if r["level"] == "pairwise")
    lines = [
        {**qa, "label": "not_supported", "reason": "checked"},
        {**pair, "label": "9", "reason": "checked"},  # not a pairwise score
        {**qa, "label": "supported", "reason": "twice"},  # the same QA again
        {"level": "qa", "item_id": [qa["item_id"]], "label": "supported", "reason": "x"},
    ]
    filled = tmp_path / "bad.jsonl"
    filled.write_text("\n".join(json.dumps(r) for r in lines) + "\n{not json\n")
    with pytest.raises(CommandError) as info:
        call_command("adjudicate", "apply", str(filled), "--project", qasem_study.project.name, "--user", "expert")
    message = str(info.value)
    assert message.startswith("nothing stored: bad.jsonl:5: (line): not a JSON line")
    filled.write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    with pytest.raises(CommandError) as info:
        call_command("adjudicate", "apply", str(filled), "--project", qasem_study.project.name, "--user", "expert")
    message = str(info.value)
    assert "bad.jsonl:2: label: must be one of" in message
    assert "bad.jsonl:3: item_id: already decided on line 1" in message
    assert "bad.jsonl:4: item_id: must be a single value" in message
    assert not AdjudicatedLabel.objects.exists()


def test_only_a_researcher_of_the_project_applies_decisions(qasem_study, tmp_path) -> None:
    get_user_model().objects.create_user("stranger", password="x")
    filled = tmp_path / "f.jsonl"
    filled.write_text("{}\n")
    with pytest.raises(CommandError, match="--user: 'stranger' is not a researcher"):
        call_command("adjudicate", "apply", str(filled), "--project", qasem_study.project.name, "--user", "stranger")
    with pytest.raises(CommandError, match="--user: no active user named 'nobody'"):
        call_command("adjudicate", "apply", str(filled), "--project", qasem_study.project.name, "--user", "nobody")
    with pytest.raises(CommandError, match="no project named 'Nope'"):
        call_command("adjudicate", "list", "--project", "Nope")


def test_a_huge_or_undecodable_line_or_another_projects_item_is_refused(qasem_study, factscore_study, expert,
                                                                        tmp_path) -> None:
    from annotation_tasks.services import adjudication_files

    filled = tmp_path / "big.jsonl"
    filled.write_bytes(b'{"level": "qa", "reason": "' + b"x" * (adjudication_files.MAX_LINE_BYTES + 1) + b'"}\n')
    with pytest.raises(CommandError, match=r"big.jsonl:1: \(line\): line longer than"):
        call_command("adjudicate", "apply", str(filled), "--project", qasem_study.project.name, "--user", "expert")
    filled.write_bytes(b'{"level": "qa", "reason": "\xff\xfe"}\n')
    with pytest.raises(CommandError, match=r"big.jsonl:1: \(line\): not a JSON line"):
        call_command("adjudicate", "apply", str(filled), "--project", qasem_study.project.name, "--user", "expert")
    foreign_fact = factscore_study.assignments["w1"].shown["facts"][0]
    filled.write_text(json.dumps({"level": "fact", "item_id": foreign_fact, "label": "S", "reason": "x"}) + "\n")
    with pytest.raises(CommandError, match=r"big.jsonl:1: item_id: not an atomic fact of this project"):
        call_command("adjudicate", "apply", str(filled), "--project", qasem_study.project.name, "--user", "expert")
    assert not AdjudicatedLabel.objects.exists()
