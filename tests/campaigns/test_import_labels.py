"""import_labels: located errors and nothing written, idempotence and conflicts, owners, MTurk results files."""
from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation_tasks.models import Campaign, CampaignLabel, Project, ProjectMembership
from tests.campaigns.helpers import write_csv, write_jsonl

pytestmark = pytest.mark.django_db

GOOD = [
    {"item_id": "a", "worker_id": "w1", "label": "yes", "dataset": "d1"},
    {"item_id": "a", "worker_id": "w2", "label": "no", "dataset": "d1"},
    {"item_id": "b", "worker_id": "w1", "label": "yes", "dataset": "d2"},
]


def _import(*args: str) -> str:
    out = StringIO()
    call_command("import_labels", *args, stdout=out)
    return out.getvalue()


def _fails(*args: str) -> str:
    with pytest.raises(CommandError) as info:
        call_command("import_labels", *args, stdout=StringIO())
    return str(info.value)


@pytest.mark.parametrize(
    "rows, message",
    [
        (GOOD + [{"item_id": "c", "worker_id": "w1", "label": ["x"]}],
         "labels.jsonl, line 4, field label: expected a string or a number, got list"),
        (GOOD + [{"item_id": "c", "label": "x"}], "labels.jsonl, line 4, field worker_id: missing value"),
        (GOOD + [{"item_id": "", "worker_id": "w9", "label": "x"}], "labels.jsonl, line 4, field item_id: empty value"),
        (GOOD + [{"item_id": "a", "worker_id": "w1", "label": "no"}],
         "labels.jsonl, line 4, field worker_id: worker 'w1' already labelled item 'a' on line 1"),
        (GOOD + [{"item_id": "c", "worker_id": "w1", "label": "x", "dataset": {"a": 1}}],
         "labels.jsonl, line 4, field dataset: a grouping value must be a string or a number, got dict"),
    ],
)
def test_a_bad_line_names_file_line_and_field_and_writes_nothing(tmp_path, researcher, rows, message) -> None:
    path = write_jsonl(tmp_path / "labels.jsonl", rows)
    assert message in _fails(str(path), "--project", "c")
    assert not CampaignLabel.objects.exists() and not Project.objects.filter(name="c").exists()


def test_csv_header_without_a_required_column_is_refused(tmp_path, researcher) -> None:
    path = write_csv(tmp_path / "votes.csv", [{"item": "a", "worker_id": "w1", "label": "x"}])
    message = _fails(str(path), "--project", "c")
    assert "votes.csv, line 1, field header: missing column item_id" in message
    assert not CampaignLabel.objects.exists()


def test_reimport_changes_nothing_and_a_contradicting_label_is_refused(tmp_path, researcher) -> None:
    path = write_csv(tmp_path / "votes.csv", GOOD)
    assert "3 imported" in _import(str(path), "--project", "c")
    assert "0 imported, 3 already present" in _import(str(path), "--project", "c")
    more = write_csv(tmp_path / "more.csv", [*GOOD[:2], {"item_id": "c", "worker_id": "w3", "label": "no", "system": "s"}])
    assert "1 imported, 2 already present" in _import(str(more), "--project", "c")
    campaign = Campaign.objects.get(project__name="c")
    assert campaign.group_columns == ["dataset", "system"]  # union over the files, first-seen order
    assert [f["file"] for f in campaign.files] == ["votes.csv", "more.csv"]

    flipped = write_csv(tmp_path / "flipped.csv", [{"item_id": "z", "worker_id": "w1", "label": "x"},
                                                   {**GOOD[1], "label": "yes"}])
    message = _fails(str(flipped), "--project", "c")
    assert "flipped.csv, line 3, field label: worker 'w2' already has label 'no' for item 'a'" in message
    assert "votes.csv, line 3" in message
    assert CampaignLabel.objects.count() == 4 and not CampaignLabel.objects.filter(item_id="z").exists()


def test_owner_is_the_only_researcher_or_must_be_named(tmp_path, django_user_model) -> None:
    path = write_csv(tmp_path / "votes.csv", GOOD)
    first = django_user_model.objects.create_user(username="ada", is_superuser=True)
    django_user_model.objects.create_user(username="bob", is_superuser=True)
    assert "several researchers (ada, bob)" in _fails(str(path), "--project", "c")
    assert "no active user named 'eve'" in _fails(str(path), "--project", "c", "--owner", "eve")
    assert not Project.objects.filter(name="c").exists()
    _import(str(path), "--project", "c", "--owner", "ada")
    membership = ProjectMembership.objects.get(project__name="c")
    assert (membership.user, membership.role) == (first, ProjectMembership.Role.RESEARCHER)
    assert Project.objects.get(name="c").protocol == []  # analysis only: nothing to publish
    _import(str(path), "--project", "c")  # the project has its researcher now: no --owner needed


def test_without_any_researcher_the_import_says_how_to_make_it_visible(tmp_path) -> None:
    err = StringIO()
    call_command("import_labels", str(write_csv(tmp_path / "votes.csv", GOOD)), "--project", "c", stdout=StringIO(),
                 stderr=err)
    assert CampaignLabel.objects.count() == 3 and "project add-member c USER" in err.getvalue()


def test_collected_project_is_not_mixed_with_campaign_labels(tmp_path, researcher) -> None:
    from annotation_tasks.models import Response, Source

    project = Project.objects.create(name="live")
    source = Source.objects.create(project=project, external_id="s", text="t")
    Response.objects.create(project=project, source=source, external_id="r", system="x", text="t")
    path = write_csv(tmp_path / "votes.csv", GOOD)
    assert "holds collected items" in _fails(str(path), "--project", "live")


MTURK_HEADER = ["HITId", "HITTypeId", "AssignmentId", "WorkerId", "AssignmentStatus", "WorkTimeInSeconds",
                "Input.item_id", "Input.dataset", "Input.text", "Answer.supported", "Answer.fluent"]


def _mturk_rows() -> list[dict]:
    rows = []
    votes = {"h1": ["yes", "yes", "no"], "h2": ["no", "no"], "h3": ["yes", "yes", "yes"]}
    for hit, labels in votes.items():
        for k, label in enumerate(labels):
            rows.append({"HITId": hit, "HITTypeId": "T", "AssignmentId": f"{hit}-{k}", "WorkerId": f"A{k}",
                         "AssignmentStatus": "Approved", "WorkTimeInSeconds": "30", "Input.item_id": f"item-{hit}",
                         "Input.dataset": "news" if hit != "h3" else "wiki", "Input.text": "some text",
                         "Answer.supported": label, "Answer.fluent": str(k + 3)})
    rows.append({**rows[0], "AssignmentId": "h1-x", "WorkerId": "A9", "AssignmentStatus": "Rejected",
                 "Answer.supported": "no"})
    return rows


def test_mturk_results_import_like_long_form(tmp_path, researcher) -> None:
    path = write_csv(tmp_path / "Batch_123_batch_results.csv", _mturk_rows(), MTURK_HEADER)
    assert "answer columns: Answer.supported, Answer.fluent" in _fails(str(path), "--project", "m", "--format", "mturk-results")
    out = _import(str(path), "--project", "m", "--format", "mturk-results", "--label-column", "Answer.supported",
                  "--label-column", "Answer.fluent")
    assert "16 records, 16 imported" in out and "1 rejected assignments left out" in out
    assert "groupings: Input.item_id, dataset, text" in out  # Input.* without the prefix unless reserved
    label = CampaignLabel.objects.get(level="supported", item_id="h2", worker_id="A1")
    assert (label.label, label.groups["dataset"]) == ("no", "news")
    assert not CampaignLabel.objects.filter(worker_id="A9").exists()

    report = StringIO()
    call_command("report", "--project", "m", "--by", "dataset", "--json", stdout=report)
    rows = {(r["level"], r["group"]): r for r in json.loads(report.getvalue())["agreement"]}
    assert rows[("supported", None)]["n_items"] == 3 and rows[("supported", "wiki")]["percent_unanimous"] == 100.0
    assert rows[("supported", None)]["labels_per_item_min"] == 2
    assert rows[("supported", None)]["fleiss_kappa"] is None
    assert rows[("supported", None)]["fleiss_kappa_absent"].startswith("items have 2 to 3 labels")
    assert rows[("fluent", None)]["numeric_labels"] is True

    by_item = StringIO()  # the item may come from an input column instead of the HIT
    call_command("import_labels", str(path), "--project", "m2", "--format", "mturk-results", "--label-column",
                 "Answer.supported", "--item-column", "Input.item_id", stdout=by_item)
    assert set(CampaignLabel.objects.filter(project__name="m2").values_list("item_id", flat=True)) == {
        "item-h1", "item-h2", "item-h3"}
    assert "Input.item_id" not in Campaign.objects.get(project__name="m2").group_columns
