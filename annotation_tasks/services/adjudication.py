"""Adjudication: the queue of disputed items, an expert's decision with its provenance, and how the majority
agrees with the adjudicated gold.

The queue holds every labelled span, QA, atomic fact (model facts, and facts workers edited or added) and
pairwise aspect, ordered by disagreement: the share of votes against the gold label when the item has gold,
else the share of minority votes (1 - top count / votes). A fact a worker edited or added has only its author's
vote; its disagreement is the share of the response's other workers who did not write it. Labels and their
names come from the protocols (protocols/review.py: level_labels); the majority uses the analysis's tie rule.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation_tasks.models import (
    QA,
    AdjudicatedLabel,
    AnswerSpan,
    Assignment,
    AtomicFact,
    PairwisePreference,
    Project,
    Unit,
    UnitResponse,
)
from annotation_tasks.protocols.review import adjudication_levels, context_of, level_labels
from annotation_tasks.services import frames
from annotation_tasks.services.review import Key, counted_votes, majority_of, project_gold, worker_names

MAX_REASON = 2000
MAX_LIMIT = 500


class AdjudicationError(ValueError):
    """Bad input to the queue or a decision: `errors` are [{field, message}] naming each offending field."""

    def __init__(self, errors: list[dict[str, str]]):
        super().__init__("; ".join(f"{e['field']}: {e['message']}" for e in errors))
        self.errors = errors


def _bad(field: str, message: str) -> AdjudicationError:
    return AdjudicationError([{"field": field, "message": message}])


# -- the queue ------------------------------------------------------------------------------------------


@dataclass
class Candidate:
    key: Key
    votes: Counter
    n_votes: int
    majority: str | None
    tie: bool
    minority_share: float
    gold: str | None
    gold_disagreement: float | None
    disagreement: float
    origin: str = "model"
    workers_on_response: int = 0


def _vote_counts(project: Project) -> dict[Key, Counter]:
    """Counted votes per item of every level (span, qa, fact from the labels frame; pairwise from the
    preferences frame), as label counts."""
    counts: dict[Key, Counter] = defaultdict(Counter)
    labels = frames.labels_frame(project)
    if len(labels):
        grouped = labels.groupby(["level", "item_id", "label"], observed=True).size()
        for (level, item, label), n in grouped.items():
            if n:
                counts[(str(level), int(item), "")][str(label)] += int(n)
    prefs = frames.preferences_frame(project)
    if len(prefs):
        for (unit_id, aspect, score), n in prefs.groupby(["unit_id", "aspect", "score"]).size().items():
            counts[("pairwise", int(unit_id), str(aspect))][str(int(score))] += int(n)
    return counts


def _human_fact_authorship(project: Project) -> dict[int, int]:
    """{human fact id: counted assignments on units that show its response} for facts workers wrote."""
    written = dict(
        AtomicFact.objects.filter(response__project=project, created_by_assignment__isnull=False)
        .values_list("id", "response_id")
    )
    if not written:
        return {}
    unit_ids: dict[int, set[int]] = defaultdict(set)
    for unit_id, response_id in UnitResponse.objects.filter(
        unit__project=project, unit__mode=Unit.Mode.FACTSCORE
    ).values_list("unit_id", "response_id"):
        unit_ids[response_id].add(unit_id)
    per_unit = Counter(
        Assignment.objects.filter(Assignment.counted_q(), unit__project=project, unit__mode=Unit.Mode.FACTSCORE)
        .values_list("unit_id", flat=True)
    )
    return {f: sum(per_unit.get(u, 0) for u in unit_ids.get(r, ())) for f, r in written.items()}


def candidates(project: Project, counts: dict[Key, Counter] | None = None) -> list[Candidate]:
    """Every labelled item of the project with its disagreement, unsorted."""
    counts = _vote_counts(project) if counts is None else counts
    gold = project_gold(project)
    authored = _human_fact_authorship(project)
    out: list[Candidate] = []
    for key, votes in counts.items():
        n = sum(votes.values())
        top = max(votes.values())
        majority = majority_of(key[0], votes)
        tie = sum(1 for v in votes.values() if v == top) > 1
        minority = 1.0 - top / n
        g = gold.get(key)
        gold_dis = None if g is None else 1.0 - votes.get(g, 0) / n
        cand = Candidate(key, votes, n, majority, tie, minority, g, gold_dis,
                         gold_dis if gold_dis is not None else minority)
        if key[1] in authored and key[0] == "fact":
            cand.origin = "human"
            cand.workers_on_response = authored[key[1]]
            if g is None and cand.workers_on_response > 1:
                cand.disagreement = max(minority, 1.0 - n / cand.workers_on_response)
        out.append(cand)
    return out


def _flag(params: Mapping[str, Any], name: str) -> bool:
    value = params.get(name, "")
    if isinstance(value, bool):
        return value
    if not isinstance(value, str) or value.lower() not in ("", "true", "false", "1", "0"):
        raise _bad(name, "must be true or false")
    return value.lower() in ("true", "1")


def _int(params: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = params.get(name)
    if value in (None, ""):
        return default
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str) and value.isdecimal())):
        raise _bad(name, "must be a whole number")
    number = int(value)
    if not low <= number <= high:
        raise _bad(name, f"must be from {low} to {high}")
    return number


def queue(project: Project, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The adjudication queue, most disputed first. params (query strings or values): level (one of the
    adjudicable levels), include_agreed (items everyone agrees on too), decided (true: only adjudicated,
    false: only open; absent: both), limit (1..500, default 100), offset."""
    params = params or {}
    levels = adjudication_levels()
    level = params.get("level") or None
    if level is not None and level not in levels:
        raise _bad("level", f"must be one of {', '.join(levels)}")
    include_agreed = _flag(params, "include_agreed")
    decided_raw = params.get("decided", "")
    decided = None if decided_raw in ("", None) else _flag(params, "decided")
    limit = _int(params, "limit", 100, 1, MAX_LIMIT)
    offset = _int(params, "offset", 0, 0, 10**9)

    counts = _vote_counts(project)
    cands = [c for c in candidates(project, counts) if (level is None or c.key[0] == level)
             and (include_agreed or c.disagreement > 0)]
    adjudicated = _adjudicated(project)
    if decided is not None:
        cands = [c for c in cands if (c.key in adjudicated) == decided]
    rank = {lv: i for i, lv in enumerate(levels)}
    cands.sort(key=lambda c: (-c.disagreement, -c.n_votes, rank.get(c.key[0], 99), c.key[1], c.key[2]))
    page = cands[offset: offset + limit]
    return {
        "count": len(cands),
        "levels": {lv: list(level_labels(lv)) for lv in levels},
        "decided": sum(1 for c in cands if c.key in adjudicated),
        "results": _rows(page, adjudicated),
        "agreement": majority_agreement(project, counts, adjudicated),
    }


def _adjudicated(project: Project) -> dict[Key, AdjudicatedLabel]:
    return {(a.level, a.item_id, a.aspect): a
            for a in AdjudicatedLabel.objects.filter(project=project).select_related("decided_by")}


def _decision(adj: AdjudicatedLabel | None) -> dict[str, Any] | None:
    if adj is None:
        return None
    return {"id": adj.pk, "label": adj.value, "reason": adj.reason,
            "decided_by": adj.decided_by.get_username() if adj.decided_by else None,
            "decided_at": adj.decided_at.isoformat(), "majority": adj.majority, "version": adj.version,
            "votes": adj.votes, "history": adj.history}


def _rows(page: list[Candidate], adjudicated: dict[Key, AdjudicatedLabel]) -> list[dict[str, Any]]:
    """Queue rows of one page: the item's context, every vote with its worker, gold, majority, decision."""
    keys = [c.key for c in page]
    votes = counted_votes(keys)
    names = worker_names({w for vs in votes.values() for _a, w, _l in vs})
    by_level: dict[str, list[int]] = defaultdict(list)
    for level, item, _aspect in keys:
        by_level[level].append(item)
    contexts = {level: context_of(level, ids) for level, ids in by_level.items()}
    rows = []
    for c in page:
        level, item, aspect = c.key
        rows.append({
            "key": f"{level}:{item}" + (f":{aspect}" if aspect else ""),
            "level": level, "item_id": item, "aspect": aspect or None, "labels": list(level_labels(level)),
            "n_votes": c.n_votes, "counts": dict(c.votes), "majority": c.majority, "tie": c.tie,
            "minority_share": round(c.minority_share, 4), "gold": c.gold,
            "gold_disagreement": None if c.gold_disagreement is None else round(c.gold_disagreement, 4),
            "disagreement": round(c.disagreement, 4), "origin": c.origin,
            "workers_on_response": c.workers_on_response or None,
            "votes": [{"assignment_id": a, "worker": names.get(w, {"id": w, "pseudonym": None, "name": str(w)}), "label": lab}
                      for a, w, lab in votes.get(c.key, [])],
            "context": contexts.get(level, {}).get(item, {}),
            "adjudicated": _decision(adjudicated.get(c.key)),
        })
    return rows


# -- deciding --------------------------------------------------------------------------------------------


def _plain(data: Mapping[str, Any], name: str) -> Any:
    """data[name] unless it is a JSON list or object (never an id nor a label): those are refused by name."""
    value = data.get(name)
    if isinstance(value, list | dict):
        raise _bad(name, "must be a single value, not a list or object")
    return value


def _target(project: Project, level: str, item_id: int, aspect: str) -> dict[str, Any]:
    """The model fields of a target in this project, or AdjudicationError naming the field that is wrong."""
    if level == "span":
        if not AnswerSpan.objects.filter(pk=item_id, response__project=project).exists():
            raise _bad("item_id", "not an answer span of this project")
        return {"span_id": item_id}
    if level == "qa":
        qa = QA.objects.filter(pk=item_id, response__project=project).values_list("validity", flat=True).first()
        if qa is None:
            raise _bad("item_id", "not a QA of this project")
        if qa == QA.Validity.INVALID:
            raise _bad("item_id", "this QA was marked invalid: it is not part of the judged set")
        return {"qa_id": item_id}
    if level == "fact":
        if not AtomicFact.objects.filter(pk=item_id, response__project=project).exists():
            raise _bad("item_id", "not an atomic fact of this project")
        return {"fact_id": item_id}
    unit = Unit.objects.filter(pk=item_id, project=project).first()
    if unit is None:
        raise _bad("item_id", "not a unit of this project")
    asked = sorted(set(PairwisePreference.objects.filter(unit=unit).values_list("aspect", flat=True)))
    if not asked:
        raise _bad("item_id", "this unit has no pairwise judgments")
    if aspect not in asked:
        raise _bad("aspect", f"must be one of {', '.join(asked)}")
    return {"unit_id": item_id, "aspect": aspect}


def parse_decision(project: Project, data: Any) -> dict[str, Any]:
    """Check a decision body {level, item_id, aspect?, label, reason}: every error names its field."""
    if not isinstance(data, Mapping):
        raise _bad("", "must be a JSON object")
    levels = adjudication_levels()
    level = _plain(data, "level")
    if level not in levels:
        raise _bad("level", f"must be one of {', '.join(levels)}")
    item_id = _plain(data, "item_id")
    if isinstance(item_id, str) and item_id.isdecimal():
        item_id = int(item_id)
    if not isinstance(item_id, int) or isinstance(item_id, bool) or item_id <= 0:
        raise _bad("item_id", "must be a positive integer id")
    aspect = _plain(data, "aspect") or ""
    if not isinstance(aspect, str):
        raise _bad("aspect", "must be text")
    if level != "pairwise" and aspect:
        raise _bad("aspect", "only pairwise comparisons have aspects")
    if level == "pairwise" and not aspect:
        raise _bad("aspect", "a pairwise decision names its aspect")
    label = _plain(data, "label")
    if level == "pairwise" and isinstance(label, int) and not isinstance(label, bool):
        label = str(label)
    allowed = level_labels(level)
    if label not in allowed:
        raise _bad("label", f"must be one of {', '.join(allowed)}")
    reason = _plain(data, "reason")
    if not isinstance(reason, str) or not reason.strip():
        raise _bad("reason", "say why: the decision is kept with its reason")
    if "\x00" in reason:
        raise _bad("reason", "must not contain NUL characters")
    if len(reason) > MAX_REASON:
        raise _bad("reason", f"at most {MAX_REASON} characters")
    target = _target(project, level, item_id, aspect)
    return {"level": level, "item_id": item_id, "aspect": aspect, "label": label, "reason": reason.strip(),
            "target": target}


def decide(project: Project, data: Any, user) -> AdjudicatedLabel:
    """Record an expert's label of one item with the votes and majority seen now. Deciding an item again
    replaces the decision and keeps the replaced one in `history` (version + 1)."""
    clean = parse_decision(project, data)
    key: Key = (clean["level"], clean["item_id"], clean["aspect"])
    votes = counted_votes([key]).get(key, [])
    names = worker_names({w for _a, w, _l in votes})
    seen = [{"assignment_id": a, "worker_id": w, "worker": names.get(w, {}).get("pseudonym"),
             "name": names.get(w, {}).get("name", str(w)), "label": lab} for a, w, lab in votes]
    majority = majority_of(clean["level"], Counter(v["label"] for v in seen)) or ""
    now = timezone.now()
    fields = {"value": clean["label"], "reason": clean["reason"], "decided_by": user, "decided_at": now,
              "votes": seen, "majority": majority}
    try:
        return _store(project, clean, fields)
    except IntegrityError:  # a concurrent first decision of the same target won: this one replaces it
        return _store(project, clean, fields)


def _store(project: Project, clean: dict[str, Any], fields: dict[str, Any]) -> AdjudicatedLabel:
    """Create the target's decision, or replace it keeping the replaced one in history (row locked)."""
    with transaction.atomic():
        current = AdjudicatedLabel.objects.select_for_update().filter(level=clean["level"], **clean["target"]).first()
        if current is None:
            return AdjudicatedLabel.objects.create(project=project, level=clean["level"], **clean["target"], **fields)
        current.history = [*current.history, {
            "version": current.version, "label": current.value, "reason": current.reason,
            "decided_by": current.decided_by.get_username() if current.decided_by else None,
            "decided_at": current.decided_at.isoformat(), "majority": current.majority, "votes": current.votes,
        }]
        current.version += 1
        for name, value in fields.items():
            setattr(current, name, value)
        current.save()
        return current


def decisions(project: Project) -> list[dict[str, Any]]:
    """Every current decision of the project, with provenance, in level then item order."""
    rows = []
    for adj in AdjudicatedLabel.objects.filter(project=project).select_related("decided_by").order_by("level", "id"):
        rows.append({"level": adj.level, "item_id": adj.item_id, "aspect": adj.aspect or None, **_decision(adj)})
    return rows


# -- the majority against the adjudicated gold -------------------------------------------------------------


def majority_agreement(project: Project, counts: dict[Key, Counter] | None = None,
                       decided: dict[Key, AdjudicatedLabel] | None = None) -> list[dict[str, Any]]:
    """Per level with decisions: how often the current majority equals the adjudicated label (accuracy) and
    Cohen's kappa between the two (scikit-learn; None when undefined, e.g. one label only)."""
    from sklearn.metrics import accuracy_score, cohen_kappa_score

    decided = _adjudicated(project) if decided is None else decided
    if not decided:
        return []
    counts = _vote_counts(project) if counts is None else counts
    pairs: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for key, adj in decided.items():
        votes = counts.get(key)
        majority = majority_of(key[0], votes) if votes else None
        if majority is not None:
            pairs[key[0]].append((majority, adj.value))
    rows = []
    for level in adjudication_levels():
        if level not in pairs:
            continue
        maj, gold = zip(*pairs[level], strict=True)
        labels = list(level_labels(level))
        kappa = None
        if len(set(maj) | set(gold)) > 1:
            value = float(cohen_kappa_score(gold, maj, labels=labels))
            kappa = value if value == value else None  # NaN when undefined
        rows.append({"level": level, "n_items": len(maj), "accuracy": float(accuracy_score(gold, maj)),
                     "cohen_kappa": kappa, "changed": sum(1 for m, g in zip(maj, gold, strict=True) if m != g)})
    return rows
