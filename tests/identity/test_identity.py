"""One worker identity: display name and pseudonymous id, the same in the API, CLI, report and exports."""
from __future__ import annotations

import io
import json
import re

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from annotation_tasks.exporters import qa_jsonl
from annotation_tasks.models import Assignment, Project, Worker
from annotation_tasks.services import identity
from annotation_tasks.services.imports import import_qasem_release
from annotation_tasks.services.reports import build_report
from tests.importers.helpers import release_line, write_jsonl

pytestmark = pytest.mark.django_db
PSEUDONYM = re.compile(r"^W-[0-9a-f]{10}$")


@pytest.fixture
def released(tmp_path) -> Project:
    rows = [release_line(sid, model) for sid in (1, 2) for model in ("a", "b")]
    import_qasem_release(write_jsonl(tmp_path / "r.jsonl", rows), "released")
    return Project.objects.get(name="released")


def test_pseudonym_is_keyed_by_the_row_not_by_secret_key():
    w = Worker.objects.create(provider="mturk", external_id="A1B2C3")
    first = w.pseudonym
    assert PSEUDONYM.match(first) and "A1B2C3" not in first
    with override_settings(SECRET_KEY="rotated-" + "x" * 40):
        assert Worker.objects.get(pk=w.pk).pseudonym == first
    other = Worker.objects.create(provider="prolific", external_id="A1B2C3")
    assert other.pseudonym != first and other.pseudonym_salt != w.pseudonym_salt
    w.pseudonym_salt = "0" * 32  # the salt is the key: a different one is a different id
    assert w.pseudonym != first


def test_bulk_created_workers_get_their_own_salt(released):
    salts = list(Worker.objects.filter(provider="imported").values_list("pseudonym_salt", flat=True))
    assert len(salts) >= 3 and len(set(salts)) == len(salts)


def test_display_name_prefers_the_given_name_then_the_account_never_the_platform_id(world, users):
    ann = Worker.objects.get(user=users["ann"])
    crowd = Worker.objects.get(external_id="A1CROWD")
    assert identity.display_name(ann) == "ann"
    assert identity.display_name(crowd) == crowd.pseudonym  # an MTurk id is not a name
    identity.set_display_name(ann, "  Ann   Smith ")
    assert identity.display_name(Worker.objects.get(pk=ann.pk)) == "Ann Smith"
    for bad in ("", "   ", "x" * 81, "tab\x07bell"):
        with pytest.raises(identity.IdentityError, match="name"):
            identity.clean_name(bad)
    assert identity.describe(crowd) == {"id": crowd.pk, "pseudonym": crowd.pseudonym, "name": crowd.pseudonym}
    assert identity.describe(crowd, with_platform_ids=True)["platform_id"] == "mturk:A1CROWD"


def test_api_names_workers_and_searches_by_name_and_pseudonym(world, users, as_user):
    ann = Worker.objects.get(user=users["ann"])
    identity.set_display_name(ann, "Ann Smith")
    rows = as_user("alice").get("/api/workers/", {"project": world.a.pk}).json()["results"]
    by_id = {r["id"]: r for r in rows}
    assert by_id[ann.pk]["name"] == "Ann Smith" and by_id[ann.pk]["pseudonym"] == ann.pseudonym_in(world.a.pk)
    found = as_user("alice").get("/api/workers/", {"search": ann.pseudonym}).json()["results"]
    assert [r["id"] for r in found] == [ann.pk]  # without a project: the account-wide id
    in_a = {"project": world.a.pk, "search": ann.pseudonym_in(world.a.pk)}
    assert [r["id"] for r in as_user("alice").get("/api/workers/", in_a).json()["results"]] == [ann.pk]
    assert [r["id"] for r in as_user("alice").get("/api/workers/", {"search": "smith"}).json()["results"]] == [ann.pk]
    # the project scope still holds: bob's project has no ann
    assert as_user("bob").get("/api/workers/", {"search": ann.pseudonym}).json()["results"] == []
    assigned = as_user("alice").get("/api/assignments/", {"project": world.a.pk,
                                                          "search": ann.pseudonym_in(world.a.pk)}).json()
    assert [a["worker"]["pseudonym"] for a in assigned["results"]] == [ann.pseudonym_in(world.a.pk)]
    assert assigned["results"][0]["worker"]["name"] == "Ann Smith"


def test_exported_votes_carry_the_voters_pseudonyms(released):
    lines = [json.loads(x) for x in qa_jsonl.export_lines(released)]
    pseudonyms = {w.pseudonym_in(released.pk): w for w in Worker.objects.all()}
    for line in lines:
        assert len(line["workers"]) == len(line["votes"]) and set(line["workers"]) <= set(pseudonyms)
        assert len(set(line["workers"])) == len(line["workers"])
    # workers[i] cast votes[i]: take one worker's vote out and the pair disappears together
    first = lines[0]
    gone = pseudonyms[first["workers"][1]]
    Assignment.objects.filter(worker=gone).update(status=Assignment.Status.REJECTED)
    after = json.loads(next(qa_jsonl.export_lines(released)))
    assert after["workers"] == [first["workers"][0], first["workers"][2]]
    assert after["votes"] == [first["votes"][0], first["votes"][2]]
    with_ids = json.loads(next(qa_jsonl.export_lines(released, with_platform_ids=True)))
    w0 = pseudonyms[after["workers"][0]]
    assert with_ids["workers"][0] == f"{w0.pseudonym_in(released.pk)}|{w0.provider}:{w0.external_id}"
    assert all(w.external_id not in json.dumps(lines) for w in pseudonyms.values())


def test_export_command_platform_ids_only_where_the_format_has_room(released, tmp_path):
    out = tmp_path / "q.jsonl"
    call_command("export", "--project", "released", "--format", "qa-jsonl", "-o", str(out), "--with-platform-ids",
                 stderr=io.StringIO())
    assert "|imported:" in out.read_text()
    with pytest.raises(CommandError, match="--with-platform-ids"):
        call_command("export", "--project", "released", "--format", "qasem-release", "-o", str(out),
                     "--with-platform-ids")


def test_report_and_workers_command_use_the_same_identity(released):
    report = build_report(released)
    pseudonyms = {w.pk: w.pseudonym_in(released.pk) for w in Worker.objects.all()}
    assert report["workers"] and all(r["worker"] == pseudonyms[r["worker_id"]] for r in report["workers"])
    out = io.StringIO()
    call_command("workers", "--project", "released", stdout=out)
    text = out.getvalue()
    assert all(p in text for p in {r["worker"] for r in report["workers"]})
    assert "qasem-release:" not in text  # platform ids only on request
    out = io.StringIO()
    call_command("workers", "--project", "released", "--with-platform-ids", stdout=out)
    assert "qasem-release:" in out.getvalue()
    some = Worker.objects.filter(provider="imported").first()
    assert identity.worker_by_ref(some.pseudonym_in(released.pk), released.pk) == some
    assert identity.worker_by_ref(str(some.pk)) == some
    with pytest.raises(identity.IdentityError, match="no worker"):
        identity.worker_by_ref("W-0000000000")


def test_units_and_assignments_tables_search(world, as_user):
    from annotation_tasks.models import Unit, UnitResponse

    client = as_user("alice")
    extra = Unit.objects.create(project=world.a, batch=world.batch_a, source=world.unit_a.source)
    UnitResponse.objects.create(unit=extra, response=world.unit_a.responses.first())
    by_source = client.get("/api/units/", {"project": world.a.pk, "search": "s-a"}).json()
    assert {u["id"] for u in by_source["results"]} == {world.unit_a.pk, extra.pk}  # once each, not per response
    assert client.get("/api/units/", {"project": world.a.pk, "search": "sys-a"}).json()["count"] == 2
    assert client.get("/api/units/", {"project": world.a.pk, "search": "nothing-like-it"}).json()["count"] == 0
    assert client.get("/api/units/", {"search": "s-b"}).json()["count"] == 0  # bob's unit stays out of sight
    found = client.get("/api/assignments/", {"project": world.a.pk, "search": "eve"}).json()["results"]
    assert [a["id"] for a in found] == [world.other_assignment.pk]


def test_a_shared_worker_has_unrelated_pseudonyms_in_two_projects_and_a_stable_one_in_each(world, users, as_user):
    """Issue 23 item 9: before, a worker of alice's and bob's projects was the same W-... in both exports, so
    either researcher could find the other's votes of that worker. Pseudonyms are per project, stable there."""
    from annotation_tasks.models import QALabel

    shared = Worker.objects.create(provider="mturk", external_id="A9SHARED")
    for qa, unit in ((world.qa_a, world.unit_a), (world.qa_b, world.unit_b)):
        assignment = Assignment.objects.create(unit=unit, worker=shared, status=Assignment.Status.APPROVED)
        QALabel.objects.create(assignment=assignment, qa=qa, supported=True)

    def names(project: Project) -> set[str]:
        return {w for x in qa_jsonl.export_lines(project) for w in json.loads(x)["workers"]}

    in_a, in_b = shared.pseudonym_in(world.a.pk), shared.pseudonym_in(world.b.pk)
    assert in_a != in_b and PSEUDONYM.match(in_a) and PSEUDONYM.match(in_b)
    assert in_a in names(world.a) and in_b in names(world.b)
    assert in_a not in names(world.b) and in_b not in names(world.a) and shared.pseudonym not in names(world.a)
    assert names(world.a) == names(world.a)  # stable: every export of a project names its workers alike
    report = {r["worker"] for r in build_report(world.a)["workers"]}
    assert in_a in report and in_b not in report  # the report and the export of a project agree
    # alice holding bob's export cannot look its pseudonym up in her own project's tables
    assert as_user("alice").get("/api/workers/", {"project": world.a.pk, "search": in_b}).json()["results"] == []
    assert as_user("alice").get("/api/workers/", {"search": in_b}).json()["results"] == []
