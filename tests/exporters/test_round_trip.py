"""Export then import is lossless (issue 23, item 2): for every export format that carries a project's content
and every project state a real campaign reaches, importing the export and exporting again gives the same lines,
and the export holds exactly the project's counted votes and decisions.

States: a response split over two units by the unit caps with a different number of workers per part, a
rejected assignment, work its platform has not verified, adjudicated labels, and items nobody labelled. Before
the fix import_qasem_release refused the first two ("2 votes, but qas[0] has 3") and every format dropped the
adjudications on the way back.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from annotation_tasks.models import (
    QA,
    AdjudicatedLabel,
    AnswerSpan,
    Assignment,
    AtomicFact,
    Batch,
    FactLabel,
    Project,
    QALabel,
    Source,
    SpanLabel,
    Unit,
)
from annotation_tasks.services import adjudication
from annotation_tasks.services.exports import export_lines
from annotation_tasks.services.imports import import_factscore, import_qasem_release
from annotation_tasks.services.units import compose_units
from tests.review.conftest import submit
from tests.work.builders import make_response
from tests.work.helpers import qasem_labels

pytestmark = pytest.mark.django_db

STATES = ["plain", "split_uneven", "rejected", "unverified", "adjudicated", "unlabelled"]


def _project(kind: str, state: str) -> Project:
    """Two sources; each response split over two units by the caps (one sentence per unit)."""
    facts = kind == "factscore"
    project = Project.objects.create(
        name=f"{kind}-{state}", protocol=["fact_labeling"] if facts else ["span_coverage", "qa_support"],
        unit_caps={"facts": 2} if facts else {"qas": 1, "spans": 1}, annotations_per_item=3,
    )
    batch = Batch.objects.create(project=project, name="b1")
    for i in range(2):
        source = Source.objects.create(project=project, external_id=f"s{i}", text="Anna visited Paris . Boris visited Lyon .")
        make_response(project, source, f"s{i}-r0", 2, system="sys", with_facts=facts, gold=False)
    compose_units(batch, assignments_wanted=3)
    return project


def _labels(kind: str, name: str):
    """w3 disagrees on the first item of each part, so majorities and votes are not all alike."""
    def build(payload: dict) -> dict:
        if kind == "factscore":
            ids = [f["id"] for r in payload["responses"] for f in r["facts"]]
            return {"facts": [{"fact_id": f, "label": "NS" if name == "w3" and k == 0 else "S"}
                              for k, f in enumerate(ids)]}
        first = payload["responses"][0]["qas"][0]["id"]
        return qasem_labels(payload, unsupported={first} if name == "w3" else set(), pairwise=None)
    return build


def _work(project: Project, kind: str, state: str) -> None:
    units = list(Unit.objects.filter(project=project).order_by("id"))
    assert len(units) == 4, "each response must be split over two units"
    for n, unit in enumerate(units):
        if state == "unlabelled" and unit.source.external_id == "s1":
            continue  # nobody took this source's units
        names = ("w1", "w2") if state == "split_uneven" and n % 2 else ("w1", "w2", "w3")
        done = {name: submit(unit, name, _labels(kind, name), 30_000)[0] for name in names}
        if n == 0 and state == "rejected":
            Assignment.objects.filter(pk=done["w3"].pk).update(status=Assignment.Status.REJECTED)
        if n == 0 and state == "unverified":
            Assignment.objects.filter(pk=done["w2"].pk).update(verification=Assignment.Verification.UNVERIFIED)
    if state == "adjudicated":
        expert = get_user_model().objects.create_user("expert-rt", password="pw")
        if kind == "factscore":
            fact = AtomicFact.objects.filter(response__project=project).order_by("id").first()
            adjudication.decide(project, {"level": "fact", "item_id": fact.pk, "label": "IR", "reason": "off topic"},
                                expert)
        else:
            qa = QA.objects.filter(response__project=project).order_by("id").first()
            span = AnswerSpan.objects.filter(response__project=project).order_by("id").last()
            adjudication.decide(project, {"level": "qa", "item_id": qa.pk, "label": "not_supported",
                                          "reason": "the source says Lyon"}, expert)
            adjudication.decide(project, {"level": "span", "item_id": span.pk, "label": "not_covered",
                                          "reason": "not in the source"}, expert)


def _import(kind: str, path: Path, name: str) -> None:
    if kind == "factscore":
        import_factscore([path], name)
    else:
        import_qasem_release(path, name)


FORMATS = [("qasem", "qasem-release", {}), ("qasem", "qasem-release", {"include_majority": False}),
           ("factscore", "factscore", {})]


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize(("kind", "fmt", "options"), FORMATS, ids=["release", "release-no-majority", "factscore"])
def test_export_then_import_gives_the_same_export(tmp_path, kind, fmt, options, state) -> None:
    project = _project(kind, state)
    _work(project, kind, state)
    first = list(export_lines(project.name, fmt, **options))
    path = tmp_path / f"{project.name}.jsonl"
    path.write_text("".join(line + "\n" for line in first), encoding="utf-8")
    _import(kind, path, "copy")
    again = list(export_lines("copy", fmt, **options))
    assert again == first
    decided = AdjudicatedLabel.objects.filter(project__name="copy")
    assert decided.count() == AdjudicatedLabel.objects.filter(project=project).count()
    assert {(a.level, a.value, a.reason) for a in decided} == {
        (a.level, a.value, a.reason) for a in AdjudicatedLabel.objects.filter(project=project)}


def _counted(model, project: Project) -> int:
    field = {QALabel: "qa", SpanLabel: "span", FactLabel: "fact"}[model]
    return model.objects.filter(Assignment.counted_q("assignment__"), **{f"{field}__response__project": project}).count()


@pytest.mark.parametrize("state", STATES)
def test_the_release_export_holds_exactly_the_counted_votes(state) -> None:
    project = _project("qasem", state)
    _work(project, "qasem", state)
    lines = [json.loads(line) for line in export_lines(project.name, "qasem-release")]
    assert sum(len(q.get("annotations", [])) for d in lines for q in d["qas"]) == _counted(QALabel, project)
    assert sum(len(s.get("annotations", [])) for d in lines for s in d["spans"]) == _counted(SpanLabel, project)
    if state in ("split_uneven", "rejected", "unverified"):  # the votes a line carries are uneven
        assert any(len({len(q["annotations"]) for q in d["qas"]}) > 1 for d in lines)


def test_an_uneven_release_line_reads_with_one_position_per_vote(tmp_path) -> None:
    from tests.importers.helpers import release_line, write_jsonl

    line = release_line()
    line["qas"][1]["annotations"] = [1, 0]
    line["spans"][0]["annotations"] = [1]
    import_qasem_release(write_jsonl(tmp_path / "uneven.jsonl", [line]), "uneven")
    unit = Unit.objects.get(project__name="uneven")
    assert unit.assignments.count() == 3
    qa = QA.objects.get(response__project=unit.project, external_id="1")
    assert [lab.supported for lab in qa.labels.order_by("assignment_id")] == [False, True]


def _hf(project: Project, tmp_path: Path) -> tuple[Path, dict]:
    from annotation_tasks.services.exports import export_dataset

    out = tmp_path / "ds"
    sizes = export_dataset(project.name, out)
    return out, sizes


def test_the_dataset_has_a_config_per_level_and_its_card_counts_unlabelled_rows(tmp_path) -> None:
    """Before: no span config, and the card said nothing of the rows whose label is null."""
    import yaml

    project = _project("qasem", "unlabelled")
    _work(project, "qasem", "unlabelled")
    out, sizes = _hf(project, tmp_path)
    assert set(sizes) == {"qa", "span"}
    text = (out / "README.md").read_text(encoding="utf-8")
    front = yaml.safe_load(text.split("---")[1])
    assert {c["config_name"] for c in front["configs"]} == {"qa", "span"}
    for level, model in (("qa", QA), ("span", AnswerSpan)):
        rows = [json.loads(line) for f in sorted((out / level).glob("*.jsonl")) for line in f.read_text().splitlines()]
        assert len(rows) == model.objects.filter(response__project=project).count()
        unlabelled = [r for r in rows if r["label"] is None]
        assert unlabelled and all(r["votes"] == [] and r["workers"] == [] for r in unlabelled)
        assert f"Unlabelled rows: {len(unlabelled)} of {len(rows)}." in text.split(f"## Config `{level}`")[1]
    assert "An unlabelled row has no counted vote and no expert decision" in text


def test_span_rows_carry_the_counted_votes_and_the_adjudicated_label(tmp_path) -> None:
    project = _project("qasem", "adjudicated")
    _work(project, "qasem", "adjudicated")
    out, _ = _hf(project, tmp_path)
    rows = [json.loads(line) for f in sorted((out / "span").glob("*.jsonl")) for line in f.read_text().splitlines()]
    decided = AdjudicatedLabel.objects.get(project=project, level="span")
    by_text = {(r["response_id"], r["span_start"]): r for r in rows}
    row = by_text[(decided.span.response.external_id, decided.span.start)]
    assert row["label"] == "not_covered" and row["adjudication"]["reason"] == "not in the source"
    assert sum(len(r["votes"]) for r in rows) == _counted(SpanLabel, project)
