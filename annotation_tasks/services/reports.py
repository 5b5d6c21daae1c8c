"""The project report: agreement, worker agreement, QASem consistency and human FActScore in one dict.

The `report` command prints it (tables or JSON); the REST API and the dashboard can return the same dict.
Everything in it is JSON-ready (plain ints, floats, strings, None; no NaN), and its order is stable.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from annotation_tasks.analysis.aggregation import counts_by_level
from annotation_tasks.analysis.agreement import agreement_table, counts_summary, worker_table
from annotation_tasks.analysis.consistency import system_consistency
from annotation_tasks.analysis.crowd_models import compare_with_majority
from annotation_tasks.analysis.factscore import human_factscore
from annotation_tasks.analysis.pairwise import pairwise_summary
from annotation_tasks.analysis.uncertainty import MODELS as UNCERTAINTY_MODELS
from annotation_tasks.analysis.uncertainty import estimate as estimate_uncertainty
from annotation_tasks.analysis.uncertainty import summary as uncertainty_summary
from annotation_tasks.analysis.worker_views import groups_without_labels, time_histogram, worker_confusion
from annotation_tasks.models import Assignment, Project
from annotation_tasks.services import campaigns, frames, identity

GROUPINGS = ("dataset", "system", "split")
BOOTSTRAP = {"n_boot": 2000, "seed": 0}


class ReportError(ValueError):
    """A report that cannot be built from the arguments (unknown project or grouping)."""


_PLAIN = frozenset({str, int, bool, type(None)})


def to_jsonable(value: Any) -> Any:
    """Numpy scalars → Python, non-finite floats → None, recursively (json.dumps would write NaN)."""
    kind = type(value)
    if kind in _PLAIN:  # most of a report's values: no isinstance chain for them
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _named_workers(rows: list[dict[str, Any]], who: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """Add each worker's pseudonym ("worker") and display name ("name") beside its pk: the same identity as the
    dashboard, the `workers` command and the exports (services.identity). `who`: identity.describe_many of
    these workers in the report's project (pseudonyms are per project)."""
    unknown = {"pseudonym": None, "name": None}
    return [
        {**r, "worker": who.get(r["worker_id"], unknown)["pseudonym"] or str(r["worker_id"]),
         "name": who.get(r["worker_id"], unknown)["name"]}
        for r in rows
    ]


def _labelled_counts(responses: pd.DataFrame, labels: pd.DataFrame) -> dict[str, int]:
    """Responses with at least one label and without any: "20 responses" alone reads as 20 judged."""
    labelled = int(responses["response_id"].isin(labels["response_id"].dropna().unique()).sum()) if len(labels) else 0
    return {"responses_labelled": labelled, "responses_unlabelled": int(len(responses)) - labelled}


def _unlabelled_groups(responses: pd.DataFrame, labels: pd.DataFrame, by: str | None) -> list[dict[str, Any]]:
    """Systems (and groups of `by`) that have responses but no label yet: listed, never silently left out. The
    groups with labels are those of the labelled responses (the labels frame need not carry the system)."""
    out: list[dict[str, Any]] = []
    labelled = responses["response_id"].isin(labels["response_id"].unique()) if len(labels) else None
    for column in dict.fromkeys(["system", *([by] if by else [])]):
        if column not in responses:
            continue
        sizes = responses.groupby(column, sort=True, dropna=True).size()
        missing = groups_without_labels(list(sizes.index),
                                        responses.loc[labelled, column].dropna().unique() if len(labels) else [])
        out += [{"by": column, "group": g, "n_responses": int(sizes[g])} for g in missing]
    return out


def _time_on_task(project: Project) -> dict[str, Any]:
    """Histogram of counted assignments' time on task (seconds)."""
    ms = Assignment.objects.filter(
        Assignment.counted_q(), unit__project=project, time_on_task_ms__isnull=False
    ).values_list("time_on_task_ms", flat=True)
    return time_histogram(m / 1000 for m in ms.iterator())


def _uncertainty(labels: pd.DataFrame, aggregation: Sequence[str], who: dict[int, dict[str, Any]],
                 counts: Mapping[str, Any] | None = None) -> dict | None:
    """Item difficulty (least certain labels first) and worker ability (accuracy with its SE) under the first
    modelled aggregation asked for (Dawid-Skene or GLAD), else the majority (analysis.uncertainty)."""
    if labels.empty:
        return None
    model = next((m for m in aggregation if m in UNCERTAINTY_MODELS and m != "majority"), "majority")
    section = uncertainty_summary(estimate_uncertainty(labels[["level", "item_id", "worker_id", "label"]], model,
                                                       with_soft=False, counts=counts))
    section["workers"] = _named_workers(section["workers"], who)  # type: ignore[arg-type]
    return section


def build_report(project: Project | str, by: str | None = None, aggregation: Sequence[str] = ()) -> dict[str, Any]:
    """Assemble the report of a project, optionally broken down by dataset, system or split (a campaign
    project: by any of its groupings); `aggregation` adds where Dawid-Skene / GLAD / MACE differ from the majority."""
    if isinstance(project, str):
        found = Project.objects.filter(name=project).first()
        if found is None:
            raise ReportError(f"no project named {project!r}")
        project = found
    if campaigns.campaign_of(project) is not None:
        try:
            return to_jsonable(campaigns.build_report(project, by=by, aggregation=aggregation))
        except (campaigns.CampaignError, ValueError) as exc:
            raise ReportError(str(exc)) from exc
    if by is not None and by not in GROUPINGS:
        raise ReportError(f"--by must be one of {', '.join(GROUPINGS)}, not {by!r}")
    responses = frames.responses_frame(project)
    # the sections group QAs by system and `by`, labels by `by` only: the other ids and names of a response per
    # label and QA left out (~55 MB at 10^6 labels), and the labels' assignment ids too
    qas = frames.qas_frame(project, responses=responses,  # read once: the QA labels' items, consistency
                           group_columns=[c for c in frames.GROUP_COLUMNS if c in ("system", by)])
    labels = frames.labels_frame(project, responses=responses, items={"qa": qas},
                                 group_columns=[c for c in frames.GROUP_COLUMNS if c == by], with_assignments=False)
    labelled_counts, unlabelled = _labelled_counts(responses, labels), _unlabelled_groups(responses, labels, by)
    del labels["response_id"]  # read by those two only: 8 MB less under every later section at 10^6 labels
    n_responses = int(len(responses))
    facts = frames.facts_frame(project)
    if not len(facts):
        del responses  # read again by the FActScore section only
    counts = counts_by_level(labels)  # each level's item counts and majorities: one pass, shared by every section
    workers, confusion = worker_table(labels, counts), worker_confusion(labels, counts)
    who = identity.describe_many({r["worker_id"] for r in workers} | {r["worker_id"] for r in confusion},
                                 project_id=project.pk)
    report: dict[str, Any] = {
        "project": project.name,
        "by": by,
        "counts": {
            "responses": n_responses,
            "labels": {str(k): int(v) for k, v in labels["level"].value_counts(sort=False).items() if v},
            "workers": int(labels["worker_id"].nunique()),
            **labelled_counts,
        },
        "agreement": agreement_table(labels, by=by, counts=counts),
        "workers": _named_workers(workers, who),
        "unlabelled_groups": unlabelled,
        "confusion": _named_workers(confusion, who),
        "time_on_task": _time_on_task(project),
        "consistency": [],
        "factscore": [],
        "pairwise": [],
        "notes": dict(NOTES),
    }
    if (labels["level"] == "qa").any():
        qa_spans = frames.qa_spans_frame(project)
        report["consistency"] = system_consistency(labels, qas, qa_spans, by=by, counts=counts, **BOOTSTRAP)
    if len(facts):
        report["factscore"] = human_factscore(responses, facts, by=by)
    report["pairwise"] = pairwise_summary(frames.preferences_frame(project))
    try:
        report["aggregation"] = compare_with_majority(labels, aggregation) if aggregation else None
        report["uncertainty"] = _uncertainty(labels, aggregation, who, counts)
    except ValueError as exc:
        raise ReportError(str(exc)) from exc
    from annotation_tasks.services.adjudication import majority_agreement

    report["adjudication"] = majority_agreement(project)  # the majority against the experts' adjudicated gold
    from annotation_tasks.services.scoring import report_section

    report["scores"] = report_section(project, by=by)  # automatic scorers against the human labels, ROC, calibration
    return to_jsonable(report)


NOTES = {
    "tie_rule": "majority ties go to the error label (not_covered, not_supported, NS before IR before S)",
    "split": "sha1 of the source id, even = dev",
    "consistency": "supported QAs / judged QAs per response (a QA whose span is not covered is not "
    "supported), mean per system with a seeded percentile bootstrap 95% interval",
    "factscore": "Min et al. 2023: responding generations only, IR = not supported, model facts of "
    "irrelevant sentences count as not supported",
}
# what the summary leaves to the full build (`details`): tables that grow with the workers or items, and the
# figures that need every label (bootstrap intervals, model fits, scorer evaluations)
DETAILS = ("workers", "confusion", "consistency", "factscore", "pairwise", "aggregation", "uncertainty", "scores")


def summary(project: Project, by: str | None = None) -> dict[str, Any] | None:
    """The report's figures that need only each level's item × category counts, from grouped SQL counts
    (services.adjudication.kept_level_counts) instead of the labels frame: counts, agreement per level, the systems
    without labels, time on task and the majority against the decisions (read fresh). build_report took 8 s and
    +270 MB at 10^6 labels (issue 25 item 2); this reads the kept counts (about 2 s of SQL when they are counted
    afresh, after a change), and gives the same figures as build_report (tests/review/test_report_summary.py).
    The rest (DETAILS) comes from the kept full build (section `details` and the table pages). None where it
    does not apply (a breakdown `by`, a campaign project, or repeat votes the labels frame must resolve): the
    caller then answers from the full build."""

    from annotation_tasks.services import adjudication

    if by is not None or campaigns.campaign_of(project) is not None:
        return None
    from annotation_tasks.services import derived

    try:
        kept = adjudication.kept_level_counts(project)
    except derived.Building:  # a large project's first count runs in Celery: the dashboard asks again
        return {"building": True, "section": "summary", "by": None}
    if kept.counts is None:
        return None
    key = f"factcrowd:report-summary:{project.pk}"
    store = derived.store(project)
    base = store.get(key)
    if base is None or base[0] != kept.token:  # figures of these counts (and of the same data version)
        base = (kept.token, _summary_figures(project, kept.counts))
        store.set(key, base, adjudication.COUNTS_SECONDS if not kept.stale else 60)
    tallies = [c.tally for c in kept.counts.values()] + adjudication._pairwise_tallies(project)
    report = {"project": project.name, "by": None, "partial": True, "details": list(DETAILS), **base[1],
              "notes": NOTES, "adjudication": adjudication.majority_agreement_of(project, tallies)}
    if kept.stale:
        report["stale"] = True
    return to_jsonable(report)


def _summary_figures(project: Project, levels: dict[str, Any]) -> dict[str, Any]:
    """counts, agreement, unlabelled_groups and time_on_task of the report from level_counts."""
    from annotation_tasks.models import Response

    systems = dict(Response.objects.filter(project=project).order_by().values_list("id", "system").iterator(
        chunk_size=20_000))
    labelled = np.unique(np.concatenate([c.response_ids for c in levels.values()])) if levels else np.empty(0)
    n_labelled = int(np.isin(labelled, np.fromiter(systems, dtype=np.int64, count=len(systems))).sum())
    return to_jsonable({
        "counts": {
            "responses": len(systems),
            "labels": {name: int(c.tally.counts.sum()) for name, c in levels.items()},
            "workers": len(frozenset().union(*(c.worker_ids for c in levels.values()))),
            "responses_labelled": n_labelled,
            "responses_unlabelled": len(systems) - n_labelled,
        },
        "agreement": [
            {"level": name, "by": None, "group": None,
             **counts_summary(c.tally.counts, c.tally.categories, len(c.worker_ids))}
            for name, c in sorted(levels.items())
        ],
        "unlabelled_groups": _systems_without_labels(systems, labelled),
        "time_on_task": _time_on_task(project),
    })


def _systems_without_labels(systems: dict[int, str], labelled: np.ndarray) -> list[dict[str, Any]]:
    """_unlabelled_groups(responses, labels, None) from {response id: system} and the labelled response ids."""
    sizes = pd.Series(list(systems.values()), dtype=object).value_counts(sort=False, dropna=True).sort_index()
    seen = {systems[int(r)] for r in labelled if int(r) in systems}
    missing = groups_without_labels(list(sizes.index), seen)
    return [{"by": "system", "group": g, "n_responses": int(sizes[g])} for g in missing]


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return out


def render_text(report: dict[str, Any], max_workers: int = 20) -> str:
    """Human-readable tables of a report dict (the command's default output)."""
    if report.get("kind") == "campaign":
        return campaigns.render_text(report, max_workers)
    title = f"Project {report['project']}" + (f" (by {report['by']})" if report["by"] else "")
    lines = [title]
    counts = report["counts"]
    lines.append(
        f"{counts['responses']} responses ({counts.get('responses_labelled', '-')} with labels, "
        f"{counts.get('responses_unlabelled', '-')} without), {counts['workers']} workers, labels: "
        + (", ".join(f"{k} {v}" for k, v in counts["labels"].items()) or "none")
    )
    tot = report.get("time_on_task") or {}
    if tot.get("n"):
        lines.append(f"time on task: {tot['n']} assignments, median {tot['median']:.0f} s, p90 {tot['p90']:.0f} s"
                     + (f", {tot['overflow']} beyond {tot['edges'][-1]:g} s" if tot.get("overflow") else ""))
    for g in report.get("unlabelled_groups", []):
        n = g["n_responses"]
        lines.append(f"no labels yet: {g['by']} {g['group']} ({n} response{'' if n == 1 else 's'})")
    lines += ["", "Agreement"]
    lines += _table(
        ["level", "group", "items", "labels", "fleiss_k", "kripp_a", "unanimous%"],
        [
            [r["level"], "all" if r["group"] is None else str(r["group"]), str(r["n_items"]), str(r["n_labels"]),
             _fmt(r["fleiss_kappa"]), _fmt(r["krippendorff_alpha"]), _fmt(r["percent_unanimous"], 1)]
            for r in report["agreement"]
        ],
    )
    if report["consistency"]:
        key = [k for k in ("dataset", "split") if k in report["consistency"][0]]
        lines += ["", "QASem consistency (mean per response, %)"]
        lines += _table(
            [*key, "system", "responses", "QAs", "consistency", "95% CI", "mixed_pred%", "extrinsic", "intrinsic"],
            [
                [*(str(r[k]) for k in key), str(r["system"]), str(r["n_responses"]), str(r["n_qas"]),
                 _fmt(r["consistency"], 1),
                 "-" if r["ci95"] is None else f"{r['ci95'][0]:.1f}–{r['ci95'][1]:.1f}",
                 _fmt(r["mixed_predicates_pct"], 1), str(r["n_extrinsic"]), str(r["n_intrinsic"])]
                for r in report["consistency"]
            ],
        )
    if report["factscore"]:
        key = [k for k in ("dataset", "split") if k in report["factscore"][0]]
        lines += ["", "Human FActScore"]
        lines += _table(
            [*key, "system", "FActScore", "% responding", "facts/response", "responses"],
            [
                [*(str(r[k]) for k in key), str(r["system"]), _fmt(r["factscore"], 1),
                 _fmt(r["percent_responding"], 1), _fmt(r["facts_per_response"], 1), str(r["n_responses"])]
                for r in report["factscore"]
            ],
        )
    if report["pairwise"]:
        lines += ["", "Pairwise preferences (first system's view; alpha: ordinal, 1-5)"]
        lines += _table(
            ["aspect", "first", "second", "judgments", "first%", "tie%", "second%", "alpha"],
            [[r["aspect"], str(r["system_first"]), str(r["system_second"]), str(r["n_judgments"]),
              _fmt(r["first_wins_pct"], 1), _fmt(r["ties_pct"], 1), _fmt(r["second_wins_pct"], 1),
              _fmt(r["krippendorff_alpha_ordinal"])]
             for r in report["pairwise"]],
        )
    if report.get("adjudication"):
        lines += ["", "Majority against the adjudicated gold"]
        lines += _table(
            ["level", "adjudicated", "accuracy", "cohen_k", "changed"],
            [[r["level"], str(r["n_items"]), _fmt(r["accuracy"]), _fmt(r["cohen_kappa"]), str(r["changed"])]
             for r in report["adjudication"]],
        )
    if report["workers"]:
        ranked = sorted(report["workers"], key=lambda r: (-(r["n_compared"]), str(r["worker_id"])))[:max_workers]
        lines += ["", f"Worker agreement with the others' majority (top {len(ranked)} by items compared)"]
        lines += _table(
            ["level", "worker", "name", "labels", "compared", "agreement"],
            [[r["level"], r.get("worker", str(r["worker_id"])), str(r.get("name") if r.get("name") not in (None, r.get("worker")) else "-"), str(r["n_labels"]),
              str(r["n_compared"]), _fmt(r["agreement"])]
             for r in ranked],
        )
    lines += campaigns.render_aggregation(report.get("aggregation"), max_workers)
    lines += _render_uncertainty(report.get("uncertainty"), max_workers)
    return "\n".join(lines) + "\n"


def _render_uncertainty(section: dict[str, Any] | None, max_rows: int) -> list[str]:
    """Item difficulty and worker ability tables (the JSON holds every worker and the 50 least certain items)."""
    if not section:
        return []
    lines = ["", f"Label certainty ({section['model']}: posterior of the aggregated label, 95% interval)"]
    lines += _table(["level", "items", "mean posterior", "below 0.9"],
                    [[r["level"], str(r["items"]), _fmt(r["mean_posterior"]), str(r["below_0_9"])]
                     for r in section["levels"]])
    items = section["items"][:max_rows]
    lines += ["", f"Item difficulty (the {len(items)} least certain)"]
    lines += _table(["level", "item", "label", "votes", "posterior", "95% CI"],
                    [[r["level"], str(r["item_id"]), str(r["label"]), str(r["n_votes"]), _fmt(r["posterior"]),
                      f"{r['ci_low']:.2f}–{r['ci_high']:.2f}"] for r in items])
    workers = section["workers"][:max_rows]
    lines += ["", f"Worker ability (top {len(workers)}: estimated accuracy ± SE)"]
    lines += _table(["level", "worker", "labels", "accuracy", "se"],
                    [[r["level"], str(r.get("worker", r["worker_id"])), str(r["n_labels"]), _fmt(r["accuracy"]),
                      _fmt(r["se"])] for r in workers])
    return lines


# -- the report in sections (issue 25 item 2): the dashboard asks for a summary, then pages of its tables ---------

TABLES: dict[str, tuple[str, ...]] = {
    # a section name: its path in the report dict (lists that grow with the workers, items or groups)
    "workers": ("workers",),
    "confusion": ("confusion",),
    "agreement": ("agreement",),
    "consistency": ("consistency",),
    "factscore": ("factscore",),
    "unlabelled_groups": ("unlabelled_groups",),
    "uncertainty_workers": ("uncertainty", "workers"),
    "uncertainty_items": ("uncertainty", "items"),
}
SECTIONS = ("summary", "details", *TABLES)  # details: the full build's summary (summary() gives the cheap part)
REPORT_CACHE_SECONDS = 600


def cached_report(project: Project, by: str | None = None, background: bool = False) -> dict[str, Any]:
    """build_report, kept in the cache while the project's data is unchanged (report_version): the summary and
    each table page read the same report without building it again. With `background` (the dashboard's sections),
    a large project's is built by a Celery task (services.derived), which also compares the data version: the
    request serves the last build (`stale` while a check is due) or raises derived.Building when there is none."""

    from annotation_tasks.services import derived
    from annotation_tasks.services.versions import version_hash

    key = _report_key(project, by)
    kept = derived.store(project).get(key)
    if background and derived.in_background(project):
        if by is not None and by not in GROUPINGS and campaigns.campaign_of(project) is None:
            raise ReportError(f"--by must be one of {', '.join(GROUPINGS)}, not {by!r}")
        if kept is None:
            derived.queue_build(BUILD_TASK, project, by)
            raise derived.Building("the report is being built")
        if not derived.checked_recently(key, project):
            derived.queue_build(BUILD_TASK, project, by)
            return {**kept[1], "stale": True}
        return kept[1]
    version = version_hash(project, "report", recent=True)
    if kept is not None and kept[0] == version:
        return kept[1]
    return build_and_keep(project, by, version)


BUILD_TASK = "annotation_tasks.build_report"


def _report_key(project: Project, by: str | None) -> str:
    return f"factcrowd:report:{project.pk}:{by}"


def build_and_keep(project: Project, by: str | None = None, version: str | None = None,
                   only_if_changed: bool = False) -> dict[str, Any]:
    """Build the report and keep it with its data version; only_if_changed (the Celery task's body for a large
    project): keep the last build when its version is still the current one, marked checked."""

    from annotation_tasks.services import derived
    from annotation_tasks.services.versions import version_hash

    key = _report_key(project, by)
    version = version or version_hash(project, "report")
    store = derived.store(project)
    if only_if_changed:
        kept = store.get(key)
        if kept is not None and kept[0] == version:
            derived.mark_checked(key, project)
            return kept[1]
    report = build_report(project, by=by)
    store.set(key, (version, report), derived.KEEP_SECONDS if derived.in_background(project) else REPORT_CACHE_SECONDS)
    derived.mark_checked(key, project)
    derived.release_memory()
    return report


def _table_at(report: dict[str, Any], path: tuple[str, ...]) -> list | None:
    node: Any = report
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
    return node if isinstance(node, list) else None


def report_section(report: dict[str, Any], section: str, page: int = 1, page_size: int = 50) -> dict[str, Any]:
    """One section of a report: "summary" or "details" (everything, each table cut to its first page_size rows,
    with `tables` giving every table's full length), or one table's page {section, count, page, page_size,
    results}."""
    if section not in SECTIONS:
        raise ReportError(f"section must be one of {', '.join(SECTIONS)}, not {section!r}")
    if section in ("summary", "details"):
        out = dict(report)
        lengths: dict[str, int] = {}
        for name, path in TABLES.items():
            rows = _table_at(report, path)
            if rows is None:
                continue
            lengths[name] = len(rows)
            if len(path) == 1:
                out[path[0]] = rows[:page_size]
            else:
                out[path[0]] = {**out[path[0]], path[1]: rows[:page_size]}
        out["tables"] = lengths
        return out
    rows = _table_at(report, TABLES[section]) or []
    start = (page - 1) * page_size
    if page > 1 and start >= len(rows):
        raise ReportError(f"page {page} of {section} is past its end ({len(rows)} rows)")
    return {"section": section, "count": len(rows), "page": page, "page_size": page_size,
            "results": rows[start: start + page_size]}
