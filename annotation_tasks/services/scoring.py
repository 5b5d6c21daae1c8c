"""Scoring a project's QAs and atomic facts with an automatic scorer: the Django side of annotation_tasks/scoring.

Why it is shaped this way:
- A score is stored per (item, scorer, version) (ItemScore), so scores of a retrained model or another prompt sit
  beside the old ones and the meta-evaluation names exactly what it evaluated.
- A score Job is resumable without bookkeeping: it skips items that already have a score of this scorer and
  version (a scorer's output is a function of its version and the item), so a killed worker loses one chunk.
- References: a QA is checked against its source's text; a fact against the passages retrieved for it from the
  project's knowledge source (services/knowledge.py, FActScore's retrieve-then-verify) when there are any, else
  the source's passages or text. Items with no reference at all are counted, not scored.
- Imported scores (Ragas, MiniCheck, AlignScore run elsewhere) are validated whole before one is written.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from django.conf import settings
from django.db import transaction
from django.db.models import Q

from annotation_tasks.importers.base import ImportFormatError, Where, read_csv, read_jsonl
from annotation_tasks.models import QA, AtomicFact, ItemScore, Job, Project, RetrievedPassage
from annotation_tasks.scoring import registry
from annotation_tasks.scoring.base import Claim, Reference, Scorer, ScorerError
from annotation_tasks.services import jobs

CHUNK = 256  # items per scorer call (an NLI batch, a round of LLM requests) and per write transaction
TARGETS = ("qa", "fact")
SCORE_TASK = "annotation_tasks.score_items"  # services.jobs.KINDS[Job.Kind.SCORE] queues it by this name


class ScoringError(ValueError):
    """Arguments that cannot be scored (unknown project or scorer, a scorer without its settings)."""


# ------------------------------------------------------------------------------------------- scorers by name


def scorer_options(name: str) -> dict[str, Any]:
    """Settings a scorer needs (local model directories, endpoints: models never download), as its package
    declares them (scoring/registry.OPTIONS)."""
    try:
        return registry.scorer_options(name, lambda setting: getattr(settings, setting, None))
    except registry.UnknownScorer as exc:
        raise ScoringError(str(exc)) from exc
    except ValueError as exc:
        raise ScoringError(f"{exc} (docs/scoring.md)") from exc


def get_scorer(name: str) -> Scorer:
    name = (name or "").strip().lower()
    options = scorer_options(name)
    try:
        return registry.get_scorer(name, **options)
    except registry.UnknownScorer as exc:
        raise ScoringError(str(exc)) from exc
    except ScorerError as exc:  # a model directory that does not load: a located 400 / CommandError, not a 500
        raise ScoringError(f"the {name} scorer cannot load: {exc} (docs/scoring.md)") from exc


def project_named(name: str | Project) -> Project:
    if isinstance(name, Project):
        return name
    found = Project.objects.filter(name=name).first()
    if found is None:
        raise ScoringError(f"no project named {name!r}")
    return found


# ------------------------------------------------------------------------------------------ items to score


@dataclass(frozen=True)
class Target:
    """One item to score: which row (qa or fact, pk), its claim and its reference (None: nothing to check against)."""

    kind: str
    pk: int
    claim: Claim
    reference: Reference | None


def _sentence_text(sentences: Sequence[Any] | None, index: int, text: str) -> str:
    """The response sentence an item comes from: a flat summary (one sentence, as the QASem release's verifiability
    part) is its own context whatever the item's sentence index, and a response without sentences is one."""
    sentences = [s for s in (sentences or []) if isinstance(s, dict)]
    if len(sentences) == 1:
        return str(sentences[0].get("text", ""))
    if 0 <= index < len(sentences):
        return str(sentences[index].get("text", ""))
    return text if not sentences else ""


def _source_reference(text: str, passages: Sequence[Any] | None) -> Reference | None:
    passages = [p if isinstance(p, str) else str((p or {}).get("text", "")) for p in (passages or [])]
    passages = [p for p in passages if p.strip()]
    if passages:
        return Reference.of_passages(passages)
    return Reference(text) if text.strip() else None


def qa_targets(project: Project, pks: Sequence[int]) -> list[Target]:
    """QAs (by pk) as claims against their source's text, with their response sentence as context."""
    rows = (
        QA.objects.filter(pk__in=pks)
        .order_by("id")
        .values_list("id", "question", "answer", "predicate__text", "predicate__sentence_index",
                     "response__sentences", "response__text", "response__source__text", "response__source__passages")
    )
    return [
        Target("qa", pk, Claim.qa(question, answer, predicate, _sentence_text(sentences, sent, response_text)),
               _source_reference(text, passages))
        for pk, question, answer, predicate, sent, sentences, response_text, text, passages in rows
    ]


def fact_targets(project: Project, pks: Sequence[int]) -> list[Target]:
    """Facts (by pk) as claims against their retrieved passages (else their source's passages or text)."""
    retrieved: dict[int, list[str]] = {}
    for fact_id, text in (
        RetrievedPassage.objects.filter(fact_id__in=pks).order_by("fact_id", "rank").values_list("fact_id", "passage__text")
    ):
        retrieved.setdefault(fact_id, []).append(text)
    rows = AtomicFact.objects.filter(pk__in=pks).order_by("id").values_list(
        "id", "text", "sentence_index", "response__sentences", "response__text", "response__source__text",
        "response__source__passages",
    )
    out = []
    for pk, text, sent, sentences, response_text, source_text, passages in rows:
        reference = Reference.of_passages(retrieved[pk]) if pk in retrieved else _source_reference(source_text, passages)
        out.append(Target("fact", pk, Claim.fact(text, _sentence_text(sentences, sent, response_text)), reference))
    return out


def _item_pks(project: Project, kind: str) -> list[int]:
    if kind == "qa":
        qs = QA.objects.filter(response__project=project).exclude(validity=QA.Validity.INVALID)
    else:
        qs = AtomicFact.objects.filter(response__project=project)
    return list(qs.order_by("id").values_list("id", flat=True))


def _scored_pks(kind: str, scorer: str, version: str, pks: Sequence[int], since: datetime | None = None) -> set[int]:
    found: set[int] = set()
    after = {"created_at__gte": since} if since is not None else {}
    for start in range(0, len(pks), 500):
        chunk = pks[start : start + 500]
        found.update(
            ItemScore.objects.filter(**{f"{kind}_id__in": chunk}, scorer=scorer, version=version, **after)
            .values_list(f"{kind}_id", flat=True)
        )
    return found


def pending_items(project: Project, scorer: str, version: str, rescore: bool = False,
                  since: datetime | None = None) -> dict[str, list[int]]:
    """Per target kind, the pks still to score with this scorer at this version. `since` (a --rescore Job's first
    start): items scored at or after it count as done, so a resumed rescore redoes only what it had not rewritten."""
    out = {}
    for kind in TARGETS:
        pks = _item_pks(project, kind)
        done = set() if rescore and since is None else _scored_pks(kind, scorer, version, pks, since)
        out[kind] = [pk for pk in pks if pk not in done]
    return out


# ------------------------------------------------------------------------------------------------ writing


def write_scores(kind: str, scorer: str, version: str, scores: Sequence[tuple[int, float, dict]]) -> int:
    """Replace the scores of (these items, scorer, version) with `scores` in one transaction."""
    if not scores:
        return 0
    field = f"{kind}_id"
    with transaction.atomic():
        ItemScore.objects.filter(**{f"{field}__in": [pk for pk, _, _ in scores]}, scorer=scorer, version=version).delete()
        ItemScore.objects.bulk_create(
            [ItemScore(**{field: pk}, scorer=scorer, version=version, score=float(value), evidence=evidence)
             for pk, value, evidence in scores],
            batch_size=500,
        )
    return len(scores)


def score_items(project: Project, scorer: Scorer, *, rescore: bool = False, progress: Any = None,
                since: datetime | None = None, already: int = 0) -> dict[str, Any]:
    """Score every pending QA and fact of `project`; progress.add(n) after each written chunk. A resumed Job passes
    `since` (its first start, for --rescore) and `already` (what its earlier parts did, kept in the progress)."""
    pending = pending_items(project, scorer.name, scorer.version, rescore=rescore, since=since)
    if progress is not None:
        progress.set(total=already + sum(len(v) for v in pending.values()), done=already)
    counts = {"scorer": scorer.name, "version": scorer.version, "qa": 0, "fact": 0, "no_reference": 0}
    for kind, pks in pending.items():
        build = qa_targets if kind == "qa" else fact_targets
        for start in range(0, len(pks), CHUNK):
            targets = build(project, pks[start : start + CHUNK])
            usable = [t for t in targets if t.reference is not None]
            counts["no_reference"] += len(targets) - len(usable)
            results = scorer.score_batch([(t.reference, t.claim) for t in usable]) if usable else []
            counts[kind] += write_scores(
                kind, scorer.name, scorer.version,
                [(t.pk, s.value, s.evidence) for t, s in zip(usable, results, strict=True)],
            )
            if progress is not None:
                progress.add(len(targets))
    return counts


# ---------------------------------------------------------------------------------------------------- jobs


def start_score_job(project: Project | str, scorer: str | None = None, *, rescore: bool = False, user: Any = None,
                    queue: bool = True) -> Job:
    """A score Job for every QA and fact of the project, queued once the transaction commits."""
    project = project_named(project)
    name = (scorer or registry.DEFAULT_SCORER).strip().lower()
    get_scorer(name)  # fail here, not in the worker, when the scorer is unknown or unconfigured
    return jobs.start(project, Job.Kind.SCORE, params={"scorer": name, "rescore": rescore}, user=user, queue=queue)


def _score_body(job: Job, progress: jobs.Progress) -> dict[str, Any]:
    scorer = get_scorer(job.params.get("scorer") or registry.DEFAULT_SCORER)
    rescore = bool(job.params.get("rescore"))
    # A killed --rescore Job, resumed, redoes every item not rewritten since its first start (claim keeps
    # started_at), not only the unscored ones (it said "done 0/0" with most scores old); its progress and result
    # count all its parts: the scores this Job wrote are those of this version created since it started.
    counts = score_items(job.project, scorer, rescore=rescore, progress=progress,
                         since=job.started_at if rescore and job.done else None, already=job.done)
    return {**counts, **_written_since(job.project, scorer, job.started_at)}


def _written_since(project: Project, scorer: Scorer, since: datetime | None) -> dict[str, int]:
    """Per kind, the scores of this scorer and version written since `since` (every part of a resumed Job)."""
    if since is None:
        return {}
    out = {}
    for kind in TARGETS:
        pks = _item_pks(project, kind)
        out[kind] = len(_scored_pks(kind, scorer.name, scorer.version, pks, since))
    return out


def run_score_job(job_id: int) -> Job:
    """The worker side (celery_tasks.score_items)."""
    return jobs.run(job_id, _score_body)


# ------------------------------------------------------------------------------------------ imported scores


@dataclass(frozen=True)
class ImportedScore:
    kind: str
    pk: int
    score: float
    line: int


def _parse_score_row(row: dict[str, Any], where: Where, csv_row: bool) -> tuple[str, int, float]:
    kind = row.get("kind", "qa")
    kind = (kind.strip() if isinstance(kind, str) else kind) or "qa"
    if kind not in TARGETS:
        raise where.child("kind").error(f"unknown kind {kind!r} (expected qa or fact)")
    if "item_id" not in row:
        raise where.child("item_id").error("missing field")
    if "score" not in row:
        raise where.child("score").error("missing field")
    item, value = row["item_id"], row["score"]
    try:
        pk = int(item) if csv_row or isinstance(item, str) else item
        if not isinstance(pk, int) or isinstance(pk, bool):
            raise TypeError
    except (TypeError, ValueError):
        raise where.child("item_id").error(f"expected an integer item id, got {item!r}") from None
    try:
        score = float(value) if csv_row or isinstance(value, str) else value
        if not isinstance(score, int | float) or isinstance(score, bool):
            raise TypeError
        score = float(score)
    except (TypeError, ValueError):
        raise where.child("score").error(f"expected a number, got {value!r}") from None
    if not 0.0 <= score <= 1.0:
        raise where.child("score").error(f"a score must lie in [0, 1], got {score!r}")
    return kind, pk, score


def read_scores_file(path: Path) -> list[ImportedScore]:
    """CSV (header item_id, score[, kind]) or JSONL ({"item_id", "score", "kind"?}); kind is qa (default) or fact,
    item_id is the QA's or fact's id in FactCrowd. The first bad value raises ImportFormatError naming the line."""
    csv_file = path.suffix.lower() == ".csv"
    rows = read_csv(path) if csv_file else read_jsonl(path)
    out: list[ImportedScore] = []
    seen: dict[tuple[str, int], int] = {}
    for lineno, row in rows:
        where = Where(path.name, lineno)
        if not isinstance(row, dict):
            raise where.error(f"expected a JSON object, got {type(row).__name__}")
        kind, pk, score = _parse_score_row(row, where, csv_file)
        if (kind, pk) in seen:
            raise where.child("item_id").error(f"{kind} {pk} already scored on line {seen[(kind, pk)]}")
        seen[(kind, pk)] = lineno
        out.append(ImportedScore(kind, pk, score, lineno))
    if not out:
        raise ImportFormatError(path.name, None, None, "no scores in the file")
    return out


def import_scores(path: str | Path, project: Project | str, scorer: str, version: str = "1") -> dict[str, int]:
    """Validate every line of the file (ids must be the project's items), then write all scores in one transaction."""
    path = Path(path)
    project = project_named(project)
    scorer = (scorer or "").strip().lower()
    if not scorer or len(scorer) > 40:
        raise ScoringError("--scorer must be a name of 1 to 40 characters")
    if scorer in registry.available_scorers():
        raise ScoringError(f"{scorer!r} is a built-in scorer; name imported scores after their tool (e.g. minicheck)")
    records = read_scores_file(path)
    for kind in TARGETS:
        wanted = [r for r in records if r.kind == kind]
        known = set(_item_pks(project, kind)) if wanted else set()
        for r in wanted:
            if r.pk not in known:
                raise Where(path.name, r.line, "item_id").error(f"project {project.name!r} has no {kind} {r.pk}")
    counts = {}
    with transaction.atomic():
        for kind in TARGETS:
            rows = [(r.pk, r.score, {"imported_from": path.name, "line": r.line}) for r in records if r.kind == kind]
            counts[kind] = write_scores(kind, scorer, version, rows)
    return counts


# ----------------------------------------------------------------------------------- scores as a data frame


def latest_version(project: Project, scorer: str) -> str | None:
    """The most recently written version of `scorer` in this project (what evaluation uses by default)."""
    row = (
        ItemScore.objects.filter(scorer=scorer)
        .filter(Q(qa__response__project=project) | Q(fact__response__project=project))
        .order_by("-created_at", "-id").values_list("version", flat=True).first()
    )
    return row


def scores_frame(project: Project, scorer: str, version: str | None = None) -> pd.DataFrame:
    """One row per scored item: level ('qa'|'fact'), item_id, response_id, score (analysis.metric_eval's input)."""
    columns = ["level", "item_id", "response_id", "score"]
    version = version or latest_version(project, scorer)
    if version is None:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
    parts = []
    for kind in TARGETS:
        rows = ItemScore.objects.filter(
            **{f"{kind}__response__project": project}, scorer=scorer, version=version
        ).order_by().values_list(f"{kind}_id", f"{kind}__response_id", "score").iterator(chunk_size=20_000)
        frame = pd.DataFrame.from_records(rows, columns=["item_id", "response_id", "score"])
        if len(frame):
            parts.append(frame.assign(level=kind))
    if not parts:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
    return pd.concat(parts, ignore_index=True)[columns]


def iter_versions(project: Project) -> Iterator[tuple[str, str, int]]:
    """(scorer, version, items) present in the project, for the report and the CLI's hints (grouped in SQL)."""
    from django.db.models import Count

    seen: dict[tuple[str, str], int] = {}
    for kind in TARGETS:
        rows = (ItemScore.objects.filter(**{f"{kind}__response__project": project}).order_by()
                .values_list("scorer", "version").annotate(n=Count("id")))
        for scorer, version, n in rows:
            seen[(scorer, version)] = seen.get((scorer, version), 0) + n
    for (scorer, version), n in sorted(seen.items()):
        yield scorer, version, n


# ------------------------------------------------------------------------------------ meta-evaluation


EVAL_GROUPINGS = ("dataset", "system")
REPORT_GROUPINGS = ("dataset", "system", "split")


def human_truth(project: Project, level: str, responses: pd.DataFrame, overrides: bool = True) -> pd.DataFrame:
    """item_id, response_id, supported per item with a human verdict: an expert's adjudicated label where there is
    one, else a quality-control gold label, else the majority (the analysis's tie rule). Facts follow FActScore's
    counting rule (analysis.factscore.counted_facts: IR and facts of irrelevant sentences are not supported)."""
    from annotation_tasks.analysis.aggregation import majority_labels
    from annotation_tasks.analysis.factscore import counted_facts
    from annotation_tasks.models import AdjudicatedLabel, GoldLabel
    from annotation_tasks.services import frames

    if level == "qa":
        labels = frames.labels_frame(project, levels=["qa"], responses=responses)
        if labels.empty:
            return pd.DataFrame({"item_id": [], "response_id": [], "supported": []})
        majority = majority_labels(labels, with_votes=False)
        truth = majority[["item_id"]].assign(supported=majority["majority"].eq("supported").to_numpy())
        truth = truth.merge(labels.drop_duplicates("item_id")[["item_id", "response_id"]], on="item_id")
        gold = {**dict(GoldLabel.objects.filter(qa__response__project=project).values_list("qa_id", "value")),
                **dict(AdjudicatedLabel.objects.filter(project=project, level="qa").values_list("qa_id", "value"))}
        positive = "supported"
    else:
        counted = counted_facts(frames.facts_frame(project))
        truth = counted.rename(columns={"fact_id": "item_id"})[["item_id", "response_id", "supported"]]
        gold = {**dict(GoldLabel.objects.filter(fact__response__project=project).values_list("fact_id", "value")),
                **dict(AdjudicatedLabel.objects.filter(project=project, level="fact").values_list("fact_id", "value"))}
        positive = "S"
    if overrides and gold and len(truth):  # overrides=False: the crowd's verdict alone (the disagreement queue)
        override = truth["item_id"].map(gold)
        truth["supported"] = np.where(override.notna(), override.eq(positive), truth["supported"].astype(bool))
    return truth.assign(supported=truth["supported"].astype(bool))


def evaluation_items(project: Project, scorer: str, version: str | None, level: str,
                     responses: pd.DataFrame) -> pd.DataFrame:
    """analysis.metric_eval's items frame: human verdict and score per item, with the response's grouping columns."""
    scores = scores_frame(project, scorer, version)
    scores = scores[scores["level"] == level][["item_id", "score"]]
    truth = human_truth(project, level, responses)
    items = truth.merge(scores, on="item_id", how="inner")
    return items.merge(responses[["response_id", "system", "dataset", "split"]], on="response_id", how="left")


def estimator_threshold(scorer: str, version: str) -> float | None:
    """The calibrated fact threshold of the FActScore estimator for this scorer version (scoring/data/estimator.json,
    written from bench/bench_factscore_estimator.py), None when that version was not calibrated."""
    import json

    from annotation_tasks.scoring.embedded import DEFAULT_COEFFICIENTS

    entry = json.loads((DEFAULT_COEFFICIENTS.parent / "estimator.json").read_text()).get(scorer) or {}
    return float(entry["fact_threshold"]) if entry.get("version") == version else None


def crowd_scorer_queue(project: Project, scorer: str, version: str | None, level: str, responses: pd.DataFrame,
                       limit: int = 20, items: pd.DataFrame | None = None) -> dict[str, Any]:
    """Where the scorer (score >= 0.5) and the crowd majority disagree, most confident disagreement first (the items
    to adjudicate), and on the adjudicated ones how often the crowd and how often the scorer matched the expert."""
    from annotation_tasks.analysis.scorer_calibration import disagreements, who_was_right
    from annotation_tasks.models import AdjudicatedLabel

    items = evaluation_items(project, scorer, version, level, responses) if items is None else items
    crowd = human_truth(project, level, responses, overrides=False)[["item_id", "supported"]]
    items = items.merge(crowd.rename(columns={"supported": "crowd"}), on="item_id", how="inner")
    positive = "supported" if level == "qa" else "S"
    decided = dict(AdjudicatedLabel.objects.filter(project=project, level=level)
                   .values_list(f"{level}_id", "value"))
    items = items.assign(adjudicated=[None if i not in decided else decided[i] == positive for i in items["item_id"]])
    top = disagreements(items).head(limit)
    return {**who_was_right(items), "versus_one_worker": _versus_one_worker(project, level, responses, items),
            "queue": [
        {"level": level, "item_id": int(r.item_id), "response_id": int(r.response_id), "score": float(r.score),
         "crowd": "supported" if r.crowd else "not_supported", "disagreement": float(r.disagreement),
         "adjudicated": None if r.adjudicated is None else bool(r.adjudicated)}
        for r in top.itertuples()]}


def _versus_one_worker(project: Project, level: str, responses: pd.DataFrame, items: pd.DataFrame
                       ) -> dict[str, Any] | None:
    """The scorer against single workers of the QAs with three votes or more, the other workers judging
    (analysis.scorer_calibration.versus_one_worker): who was right without an expert. None for facts (FActScore's
    facts have one annotator each) and where no QA has three votes."""
    from annotation_tasks.analysis.scorer_calibration import versus_one_worker
    from annotation_tasks.services import frames

    if level != "qa":
        return None
    labels = frames.labels_frame(project, levels=["qa"], responses=responses, group_columns=(), with_assignments=False)
    votes = labels[["item_id"]].assign(supported=labels["label"].eq("supported").to_numpy())
    got = versus_one_worker(votes, items)
    return got if got["disagreements"] else None


def evaluate_scorer(project: Project | str, scorer: str, by: str | None = None, version: str | None = None,
                    curves: bool = True) -> dict[str, Any]:
    """The meta-evaluation of one scorer version (the latest by default) against the project's human labels.

    The top level is the QA evaluation when QAs are scored and labelled, else the facts'; "levels" holds both."""
    from annotation_tasks.analysis.metric_eval import evaluate, jsonable, metric_faithfulness, ragas_agreement
    from annotation_tasks.services import frames

    if by is not None and by not in REPORT_GROUPINGS:
        raise ScoringError(f"--by must be one of {', '.join(EVAL_GROUPINGS)}, not {by!r}")
    project = project_named(project)
    scorer = (scorer or "").strip().lower()
    version = version or latest_version(project, scorer)
    if version is None:
        raise ScoringError(f"project {project.name!r} has no scores of {scorer!r}; run `score` or `import_scores` first")
    responses = frames.responses_frame(project)
    responding = responses.set_index("response_id")["abstained"].map(lambda a: not a)
    preferences = frames.preferences_frame(project)
    levels = {}
    for level in TARGETS:
        items = evaluation_items(project, scorer, version, level, responses)
        if len(items):
            levels[level] = evaluate(items, by=by, preferences=preferences, responding=responding, curves=curves,
                                     estimator_threshold=estimator_threshold(scorer, version) if level == "fact" else None)
            levels[level]["crowd_vs_scorer"] = crowd_scorer_queue(project, scorer, version, level, responses,
                                                                  items=items)
    # Ragas' WikiEval accuracy needs no item labels: the metric's faithfulness per answer against the humans' pairs
    ragas = ragas_agreement(preferences, metric_faithfulness(scores_frame(project, scorer, version)))
    if not levels and not ragas:
        raise ScoringError(f"no item of project {project.name!r} has both a human label and a {scorer} {version} score")
    primary = ("qa" if "qa" in levels else "fact") if levels else None
    return jsonable({"project": project.name, "scorer": scorer, "version": version, "by": by, "level": primary,
                        **(levels[primary] if primary else {}), "levels": levels, "ragas": ragas,
                        "notes": {"truth": "the adjudicated label where present, else gold, else the majority label",
                                  "threshold": "BAcc at a fixed 0.5, no tuning; faithfulness = share of items >= 0.5"}})


def report_section(project: Project, by: str | None = None) -> list[dict[str, Any]]:
    """The report's "scores": per scorer present in the project (its latest version), the evaluation of its main
    level with the ROC points and calibration bins the dashboard draws; [] when nothing is scored or labelled."""
    rows = []
    by = by if by in REPORT_GROUPINGS else None
    for scorer in sorted({s for s, _, _ in iter_versions(project)}):
        try:
            result = evaluate_scorer(project, scorer, by=by)
        except ScoringError:  # scored but nothing labelled yet
            continue
        if result["level"] is None:  # only Ragas pairs (the report's pairwise section has them): no item figures
            continue
        result.pop("levels", None)
        result.pop("notes", None)
        rows.append(result)
    return rows
