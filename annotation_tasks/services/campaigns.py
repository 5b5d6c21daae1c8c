"""Past campaigns, analysed: import raw crowd labels into an analysis-only project, and report on them.

A campaign project holds CampaignLabel rows only (no sources, units or assignments): nothing in it can be
published, and the report reads its labels here instead of through the protocols. Its frame has the columns the
analysis needs (level, item_id, worker_id, label) plus one column per grouping of the imported files, so
`report --by` takes any of them. This module is the ORM → pandas bridge for campaign labels (services.frames is
the one for collected labels).
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from django.db import transaction

from annotation_tasks.analysis.aggregation import majority_labels
from annotation_tasks.analysis.agreement import worker_table
from annotation_tasks.analysis.campaigns import campaign_agreement_table
from annotation_tasks.analysis.crowd_models import MODEL_NOTES, aggregated_labels, compare_with_majority
from annotation_tasks.importers import labels_long
from annotation_tasks.models import Campaign, CampaignLabel, Project

BASE_COLUMNS = ["level", "item_id", "worker_id", "label"]


class CampaignError(ValueError):
    """A campaign report that cannot run as asked (not a campaign, unknown grouping); the message says what to pass."""


def import_labels(path: str | Path, project_name: str, *, fmt: str = "long",
                  label_columns: Sequence[str] | None = None,
                  item_column: str | None = None) -> labels_long.CampaignImportResult:
    """Validate a campaign file, then write its new labels in one transaction (re-importing changes nothing).

    The owner is the import commands' shared --owner (services.projects, applied by the command around this)."""
    path = Path(path)
    parsed = labels_long.read(path, fmt, list(label_columns or []), item_column)
    with transaction.atomic():
        project = Project.objects.filter(name=project_name).first()
        if project is None:
            project = Project.objects.create(
                name=project_name, protocol=[], annotations_per_item=0,
                description=f"Analysis only: crowd labels of a past campaign ({parsed.file}).",
            )
        return labels_long.write(project, parsed)


def campaign_of(project: Project) -> Campaign | None:
    return Campaign.objects.filter(project=project).first()


def labels_frame(project: Project, campaign: Campaign | None = None) -> pd.DataFrame:
    """One row per campaign label: level, item_id, worker_id, label and one column per grouping."""
    campaign = campaign or campaign_of(project)
    columns = list(campaign.group_columns) if campaign else []
    rows = CampaignLabel.objects.filter(project=project).order_by("id").values_list(
        "level", "item_id", "worker_id", "label", "groups"
    ).iterator(chunk_size=20_000)
    frame = pd.DataFrame.from_records(rows, columns=[*BASE_COLUMNS, "groups"])
    groups = frame.pop("groups").tolist()
    for column in columns:
        frame[column] = [g.get(column) if isinstance(g, dict) else None for g in groups]
    return frame


def item_records(project: Project, aggregation: str = "majority", level: str | None = None) -> Iterator[dict[str, Any]]:
    """One record per (level, item) of a campaign: the aggregated label, the votes with their workers (in worker
    order), and the item's groupings (those of its first label: a grouping describes the item)."""
    labels = labels_frame(project)
    if level is not None:
        labels = labels[labels["level"] == level]
    if labels.empty:
        return
    campaign = campaign_of(project)
    columns = list(campaign.group_columns) if campaign else []
    majority = majority_labels(labels)
    chosen = aggregated_labels(labels, aggregation) if aggregation != "majority" else {}
    ordered = labels.sort_values(["level", "item_id", "worker_id"], kind="stable")
    workers = ordered.groupby(["level", "item_id"], sort=False)["worker_id"].agg(list).to_dict()
    first = labels.drop_duplicates(["level", "item_id"]).set_index(["level", "item_id"])
    for row in majority.itertuples(index=False):
        key = (row.level, row.item_id)
        groups = first.loc[key, columns].to_dict() if columns else {}
        record = {
            "level": row.level,
            "item_id": row.item_id,
            "label": chosen.get(key, row.majority),
            **({"majority": row.majority} if aggregation != "majority" else {}),
            "n_labels": int(row.n_labels),
            "votes": list(row.votes),
            "workers": workers[key],
            "tie": bool(row.tie),
        }
        for column, value in groups.items():  # a grouping named like a record key keeps its own column
            record[column if column not in record else f"group.{column}"] = None if pd.isna(value) else value
        yield record


def build_report(project: Project, by: str | None = None, aggregation: Sequence[str] = ()) -> dict[str, Any]:
    """The campaign report: per level (and per value of `by`) the agreement figures for uneven raters, per-worker
    agreement, and with `aggregation` where Dawid-Skene / GLAD / MACE differ from the majority."""
    campaign = campaign_of(project)
    if campaign is None:
        raise CampaignError(f"project {project.name!r} is not a campaign project")
    if by is not None and by not in campaign.group_columns:
        raise CampaignError(f"--by must be one of the campaign's groupings ({', '.join(campaign.group_columns) or 'none'}), "
                            f"not {by!r}")
    labels = labels_frame(project, campaign)
    report: dict[str, Any] = {
        "project": project.name,
        "kind": "campaign",
        "by": by,
        "groupings": list(campaign.group_columns),
        "files": list(campaign.files),
        "counts": {
            "labels": {str(k): int(v) for k, v in labels["level"].value_counts(sort=False).sort_index().items()},
            "items": {str(k): int(v) for k, v in labels.groupby("level")["item_id"].nunique().items()},
            "workers": int(labels["worker_id"].nunique()),
        },
        "agreement": campaign_agreement_table(labels, by=by),
        "workers": [{**r, "worker": r["worker_id"]} for r in worker_table(labels)],
        "aggregation": compare_with_majority(labels, aggregation) if aggregation else None,
        "consistency": [],
        "factscore": [],
        "pairwise": [],
        "notes": {
            "fleiss_kappa": "only where every item with two or more labels has the same number of them; "
            "fleiss_kappa_absent says why otherwise",
            "krippendorff_alpha": "nominal; krippendorff_alpha_ordinal too when every label is a number",
            "tie_rule": "majority ties go to the first label in sorted order (known levels: the error label)",
            "worker_agreement": "each worker against the majority of the other workers on the same items",
            **({"competence": MODEL_NOTES} if aggregation else {}),
        },
    }
    return report


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]
    out = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)), "  ".join("-" * w for w in widths)]
    return out + ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]


def render_aggregation(section: dict[str, list[dict]] | None, max_workers: int = 20) -> list[str]:
    """Text lines of a compare_with_majority section (shared by the campaign and the project report)."""
    if not section:
        return []
    lines = ["", "Aggregation models against the majority"]
    lines += _table(
        ["level", "model", "items", "differ", "differ%"],
        [[r["level"], r["model"], str(r["n_items"]), str(r["n_differ"]), _fmt(r["pct_differ"], 1)]
         for r in section["differences"]],
    )
    rows = section["competence"]
    if rows:
        models = [k for k in rows[0] if k not in ("level", "worker_id", "n_labels", "worker")]
        ranked = sorted(rows, key=lambda r: (r["level"], -r["n_labels"], str(r["worker_id"])))[:max_workers]
        lines += ["", f"Worker competence per model (top {len(ranked)} by labels)"]
        lines += _table(["level", "worker", "labels", *models],
                        [[r["level"], str(r["worker_id"]), str(r["n_labels"]), *(_fmt(r[m]) for m in models)]
                         for r in ranked])
    return lines


def render_text(report: dict[str, Any], max_workers: int = 20) -> str:
    """Human-readable tables of a campaign report."""
    title = f"Campaign {report['project']}" + (f" (by {report['by']})" if report["by"] else "")
    counts = report["counts"]
    lines = [title, f"{counts['workers']} workers; " + ", ".join(
        f"{level}: {counts['items'].get(level, 0)} items, {n} labels" for level, n in counts["labels"].items()
    ), f"groupings: {', '.join(report['groupings']) or 'none'}", "", "Agreement"]
    rows = report["agreement"]
    lines += _table(
        ["level", "group", "items", "labels", "per item", "fleiss_k", "kripp_a", "kripp_a_ord", "unanimous%",
         "majority%"],
        [[r["level"], "all" if r["group"] is None else str(r["group"]), str(r["n_items"]), str(r["n_labels"]),
          "-" if r["labels_per_item"] is None else f"{r['labels_per_item_min']}-{r['labels_per_item_max']}",
          _fmt(r["fleiss_kappa"]), _fmt(r["krippendorff_alpha"]), _fmt(r["krippendorff_alpha_ordinal"]),
          _fmt(r["percent_unanimous"], 1),
          " ".join(f"{k}={v:.0f}" for k, v in r["majority_share"].items())]
         for r in rows],
    )
    absent = {(r["level"], r["group"]): r["fleiss_kappa_absent"] for r in rows if r["fleiss_kappa_absent"]}
    for (level, group), why in absent.items():
        lines.append(f"  no Fleiss' kappa for {level} / {'all' if group is None else group}: {why}")
    if report["workers"]:
        ranked = sorted(report["workers"], key=lambda r: (-(r["n_compared"]), str(r["worker_id"])))[:max_workers]
        lines += ["", f"Worker agreement with the others' majority (top {len(ranked)} by items compared)"]
        lines += _table(["level", "worker", "labels", "compared", "agreement"],
                        [[r["level"], str(r["worker_id"]), str(r["n_labels"]), str(r["n_compared"]),
                          _fmt(r["agreement"])] for r in ranked])
    lines += render_aggregation(report.get("aggregation"), max_workers)
    return "\n".join(lines) + "\n"
