"""Adjudication: the queue of disputed items, an expert's decision with its provenance, and how the majority
agrees with the adjudicated gold.

The queue holds every labelled span, QA, atomic fact (model facts, and facts workers edited or added) and
pairwise aspect, ordered by disagreement: the share of votes against the gold label when the item has gold,
else the share of minority votes (1 - top count / votes). A fact a worker edited or added has only its author's
vote; its disagreement is the share of the response's other workers who did not write it. Labels and their
names come from the protocols (protocols/review.py: level_labels); the majority uses the analysis's tie rule.
"""
from __future__ import annotations

import threading
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation_tasks.analysis.aggregation import item_counts, majority_from_counts
from annotation_tasks.analysis.agreement import cohen_kappa
from annotation_tasks.analysis.metric_eval import THRESHOLD as SCORER_THRESHOLD
from annotation_tasks.analysis.scorer_calibration import disagreements
from annotation_tasks.analysis.uncertainty import beta_interval
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
from annotation_tasks.protocols import vocabulary
from annotation_tasks.protocols.review import adjudication_levels, context_of, level_labels, oriented
from annotation_tasks.services import frames
from annotation_tasks.services.review import Key, counted_votes, majority_of, project_gold, tie_order, worker_names

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


@dataclass(frozen=True)
class Tally:
    """Counted votes of every labelled item of one level: counts[i, c] = votes of categories[c] on item i.

    Categories are in the level's tie order, so the first maximum of a row is its majority by the tie rule
    (analysis.aggregation for span / qa / fact; for pairwise scores the one nearest to 3, then the lower)."""

    level: str
    item_ids: np.ndarray
    aspects: np.ndarray
    categories: tuple[str, ...]
    counts: np.ndarray

    def votes(self, row: int) -> dict[str, int]:
        return {c: int(n) for c, n in zip(self.categories, self.counts[row], strict=True) if n}


def tallies(project: Project) -> list[Tally]:
    """One Tally per level with labels: span, qa, fact from grouped SQL counts (level_counts) or, where a worker
    may hold two counted votes on one item, from the labels frame (one np.bincount each, through
    analysis.aggregation.item_counts), pairwise per (unit, aspect) from the preferences frame."""
    return _tallies_from(project, level_counts(project))


def _tallies_from(project: Project, counted: dict[str, LevelCounts] | None) -> list[Tally]:
    out = [c.tally for c in counted.values()] if counted is not None else _frame_tallies(project)
    return out + _pairwise_tallies(project)


COUNTS_SECONDS = 600


@dataclass(frozen=True)
class KeptCounts:
    """level_counts as kept: the counts (None: repeat votes, the labels frame decides), the build's token (what
    is built from them keys on it) and whether a check against the data is due (queued)."""

    counts: dict[str, LevelCounts] | None
    token: str
    stale: bool = False


def _counts_key(project: Project) -> str:
    return f"factcrowd:level-counts:{project.pk}"


def kept_level_counts(project: Project) -> KeptCounts:
    """level_counts, kept in the cache with the labels version (issue 25 item 2: about 2 s of SQL at 10^6 labels,
    so the summaries answer from the kept ones). A small project, or a cache the Celery workers do not share,
    compares the version (read at most every 15 s for a large project) and recounts on a change; a large
    project with a shared cache serves the kept counts and, once a check is due, queues the queue table's
    build task (build_table, which recounts when the labels changed) and says `stale`; with nothing kept it queues
    that task and raises derived.Building (counting in the request took the web worker over 300 MB)."""
    from annotation_tasks.services import derived
    from annotation_tasks.services.versions import version_hash

    key = _counts_key(project)
    if derived.in_background(project):
        kept = _counts_here(project, key)
        if kept is None:
            derived.queue_build(BUILD_TASK, project)
            raise derived.Building("the label counts are being counted")
        if derived.checked_recently(key, project):
            return KeptCounts(kept[1], kept[2])
        derived.queue_build(BUILD_TASK, project)
        return KeptCounts(kept[1], kept[2], stale=True)
    return counts_for(project, version_hash(project, "labels", recent=True))


_COUNTS_HERE: dict[int, tuple] = {}  # this process's copy of a large project's kept counts, by their token


def _counts_here(project: Project, key: str) -> tuple | None:
    """A large project's kept counts (version, counts, token), from this process's copy while it is the latest (one
    small read of the token): reading and unpickling the whole counts (~15 MB at 10^6 labels) for every summary
    took ~130 ms and grew the web worker."""
    from annotation_tasks.services import derived

    return derived.latest_copy(project, key, _COUNTS_HERE, lambda kept: kept, token_at=2)


def counts_for(project: Project, version: str) -> KeptCounts:
    """The kept counts when they are of `version`, else counted now and kept (either way marked checked)."""
    from annotation_tasks.services import derived

    key = _counts_key(project)
    store = derived.store(project)
    kept = store.get(key)
    if kept is None or kept[0] != version:
        kept = (version, level_counts(project), uuid.uuid4().hex)
        keep = derived.KEEP_SECONDS if derived.in_background(project) else COUNTS_SECONDS
        store.set(key, kept, keep)
        store.set(f"{key}:token", kept[2], keep)
    derived.mark_checked(key, project)
    return KeptCounts(kept[1], kept[2])


def _frame_tallies(project: Project) -> list[Tally]:
    out: list[Tally] = []
    labels = frames.labels_frame(project)
    for level, group in labels.groupby("level", sort=True, observed=True):
        if not len(group):
            continue
        ic = item_counts(group, str(level))
        out.append(Tally(str(level), ic.item_ids.astype(np.int64), np.full(len(ic.item_ids), "", dtype=object),
                         ic.categories, ic.counts))
    return out


@dataclass(frozen=True)
class LevelCounts:
    """One label level's Tally from SQL, each item's response, and the level's distinct workers."""

    tally: Tally
    response_ids: np.ndarray
    worker_ids: frozenset[int]


def repeat_votes_possible(project: Project) -> bool:
    """Whether a worker may hold two counted votes on one item, which the labels frame resolves by its first-vote
    rule (frames._first_votes) and a grouped count would count twice. A worker has at most one counted
    assignment per unit (the one_active_assignment_per_worker_unit constraint) and a unit shows responses of its
    one source, so that needs a source under two data units that one worker both did (a re-published or
    test-retest batch): a small aggregate over the units, and over the assignments only when a source is shared."""
    from django.db.models import Count

    shared = (Unit.objects.filter(project=project, is_training=False).order_by()
              .values("source_id").annotate(n=Count("pk")).filter(n__gt=1))
    if not shared.exists():
        return False
    twice = (Assignment.objects.filter(Assignment.data_q(), unit__project=project).order_by()
             .values("worker_id", "unit__source_id").annotate(n=Count("pk")).filter(n__gt=1))
    return twice.exists()


def level_counts(project: Project) -> dict[str, LevelCounts] | None:
    """{level: LevelCounts} of every label level with labels, in the levels' order, from one grouped SQL count
    per level (item, its response, value: COUNT) and one distinct-workers query: the same item × category counts
    as the labels frame (counted data assignments, the level's own items: no QA marked invalid) without reading
    its million rows (issue 25: the queue's table and the report's summary). None when repeat_votes_possible:
    the labels frame then decides which vote counts."""
    from annotation_tasks.protocols import label_levels

    if repeat_votes_possible(project):
        return None
    out: dict[str, LevelCounts] = {}
    for level in label_levels():
        try:
            counted = _sql_level(project, level)
        except _ForeignItems:
            return None
        if counted is not None:
            out[level.name] = counted
    return out


class _ForeignItems(Exception):
    """A counted label of this project is on another project's item, or over MAX_HIDDEN items are left out: the
    labels frame decides (it drops those labels)."""


MAX_HIDDEN = 5_000  # items a protocol leaves out, excluded by a list of ids in the SQL (NOT IN a subquery of
# the kept ones ran for minutes on PostgreSQL at 3 * 10^5 items: an unhashed subplan)


def _sql_level(project: Project, level: Any) -> LevelCounts | None:
    """One level's counts: its counted labels (a semi-join on the project's counted data assignments, items the
    protocol leaves out excluded) grouped by (item, value) and by assignment in one pass (PostgreSQL: GROUPING
    SETS, read packed; about 2 s at 10^6 labels where three joins per label took 4 s), joined to the level's items
    (their responses) and the assignments' workers in numpy."""
    from annotation_tasks.analysis.aggregation import categories_for

    counted = Assignment.objects.filter(Assignment.data_q(), unit__project=project)
    labels = level.model._default_manager.filter(assignment_id__in=counted.values("pk"))
    if not labels.exists():  # a level of another protocol: no item read
        return None
    valid = level.items(project)
    known = frames._number_records(valid, ["id", "response_id"], sort=True)
    known_ids = known["id"].to_numpy()
    every = valid.model._default_manager.filter(response__project=project)
    if every.count() != len(known_ids):  # items the protocol leaves out (QAs marked invalid): their labels too
        hidden = np.setdiff1d(np.fromiter(every.values_list("pk", flat=True), dtype=np.int64), known_ids)
        if len(hidden) > MAX_HIDDEN:
            raise _ForeignItems
        labels = labels.exclude(**{f"{level.item_field}__in": hidden.tolist()})
    labels = labels.order_by().values_list(level.item_field, level.value_field, "assignment_id")
    items, values, n, assignment_ids = _grouped(labels, boolean=level.names is not None)
    if not len(items):
        return None
    pos = np.minimum(np.searchsorted(known_ids, items), max(len(known_ids) - 1, 0))
    if not len(known_ids) or not (known_ids[pos] == items).all():
        raise _ForeignItems
    if level.names is not None:  # codes straight from the flags: a name per group cost ~65 MB at 10^6 labels
        flags = values.astype(bool)
        seen = [name for name, present in ((level.names[0], flags.any()), (level.names[1], not flags.all()))
                if present]
        categories = categories_for(level.name, seen)
        code = {c: k for k, c in enumerate(categories)}
        label_codes = np.where(flags, code.get(level.names[0], -1), code.get(level.names[1], -1)).astype(np.int64)
    else:
        categories = categories_for(level.name, pd.unique(values))
        label_codes = pd.Categorical(values, categories=list(categories)).codes.astype(np.int64)
    item_ids, first, item_codes = np.unique(items, return_index=True, return_inverse=True)
    flat = np.bincount(item_codes * len(categories) + label_codes, weights=n, minlength=len(item_ids) * len(categories))
    workers = frames._number_records(counted, ["id", "worker_id"], sort=True)
    at = np.searchsorted(workers["id"].to_numpy(), assignment_ids)
    tally = Tally(level.name, item_ids.astype(np.int64), np.full(len(item_ids), "", dtype=object), categories,
                  flat.astype(np.int64).reshape(len(item_ids), len(categories)))
    return LevelCounts(tally, known["response_id"].to_numpy()[pos[first]],
                       frozenset(int(w) for w in np.unique(workers["worker_id"].to_numpy()[at])))


def _grouped(labels: Any, boolean: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(item, value, count) per (item, value) and the distinct assignments of a (item, value, assignment)
    values_list queryset, grouped in the database."""
    from django.db import connections

    connection = connections[labels.db]
    sql, params = labels.query.get_compiler(connection=connection).as_sql()
    cte = f"WITH q (c0, c1, c2) AS ({sql}) "
    if connection.vendor == "postgresql" and boolean:
        # both grouping sets in one pass, a count and its value in one number (n * 2 + value), streamed as binary
        # COPY rows (frames._copied): a string_agg of each column had libpq hold the whole result, and keep its
        # buffer at that size (~25 MB at 10^6 labels) for the connection's life
        grouped = (cte + "SELECT COALESCE(c0, 0), COUNT(*) * 2 + COALESCE(c1, false)::int, COALESCE(c2, 0), "
                   "GROUPING(c2) FROM q GROUP BY GROUPING SETS ((c0, c1), (c2))")
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL jit = off")  # compiling this one statement cost 0.2 s
            rows = frames._copied(connection, grouped, params, [False] * 4)
        by_item = rows[:, 3] == 1
        items, counts_values, assignments = rows[by_item, 0], rows[by_item, 1], rows[~by_item, 2]
        del rows
        return items, counts_values & 1, counts_values >> 1, assignments
    with connection.cursor() as cursor:
        cursor.execute(cte + "SELECT c0, c1, COUNT(*) FROM q GROUP BY c0, c1", params)
        rows = cursor.fetchall()
        cursor.execute(cte + "SELECT DISTINCT c2 FROM q", params)
        assignments = np.array([r[0] for r in cursor.fetchall()], dtype=np.int64)
    items = np.array([r[0] for r in rows], dtype=np.int64)
    values = np.array([r[1] for r in rows], dtype=np.int64 if boolean else object)
    return items, values, np.array([r[2] for r in rows], dtype=np.int64), assignments


def _pairwise_tallies(project: Project) -> list[Tally]:
    out: list[Tally] = []
    prefs = frames.preferences_frame(project)
    if len(prefs):
        order = tie_order("pairwise")
        pairs = pd.MultiIndex.from_arrays([prefs["unit_id"].astype(np.int64), prefs["aspect"].astype(str)])
        codes, keys = pd.factorize(pairs, sort=True)
        scores = [oriented(int(s), *(None if pd.isna(v) else int(v) for v in pair)) for s, *pair in zip(
            prefs["score"], prefs["response_a_id"], prefs["response_b_id"], prefs["context_a"], prefs["context_b"],
            strict=True)]  # from each pair's canonical side, as review shows and counts them
        score_codes = np.array([order.index(str(s)) for s in scores], dtype=np.int64)
        flat = np.bincount(codes * len(order) + score_codes, minlength=len(keys) * len(order))
        out.append(Tally("pairwise", np.asarray(keys.get_level_values(0), dtype=np.int64),
                         np.asarray(keys.get_level_values(1), dtype=object), order,
                         flat.reshape(len(keys), len(order))))
    return out


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


def _level_table(t: int, tally: Tally, gold: dict[Key, str], authored: dict[int, int]) -> pd.DataFrame:
    """One row per item of a tally with its majority and disagreement (vectorised over the count matrix)."""
    counts = tally.counts
    n = counts.sum(axis=1)
    top = counts.max(axis=1)
    winner, tie = majority_from_counts(counts)
    minority = 1.0 - top / n
    has_gold, gold_column, code = _golds(tally, gold)
    gold_votes = np.where(code >= 0, counts[np.arange(len(n)), np.maximum(code, 0)], 0)
    gold_dis = np.where(has_gold, 1.0 - gold_votes / n, np.nan)
    disagreement = np.where(has_gold, gold_dis, minority)
    # certainty of the label the item stands at (gold where set, else the majority): the Dirichlet(1) posterior
    # mean of its share of the votes, with its 95% interval (analysis.uncertainty); the queue shows the least
    # certain first
    at = np.where(code >= 0, code, winner)
    a = counts[np.arange(len(n)), at] + 1.0
    b = n + counts.shape[1] - a
    low, high = beta_interval(a, b)
    workers = np.array([authored.get(int(i), 0) for i in tally.item_ids], dtype=np.int64) \
        if tally.level == "fact" and authored else np.zeros(len(n), dtype=np.int64)
    human = workers > 0
    written = human & ~has_gold & (workers > 1)
    disagreement = np.where(written, np.maximum(minority, 1.0 - n / np.maximum(workers, 1)), disagreement)
    # narrow from the start (categories from codes, 32-bit counts): built as strings and 64-bit numbers and narrowed
    # afterwards, the build's peak held each column twice (+156 MB over a 34 MB table at 10^6 labels)
    size = len(n)
    return pd.DataFrame({
        "level": pd.Categorical.from_codes(np.zeros(size, dtype=np.int8), [tally.level]),
        "item_id": tally.item_ids,
        "aspect": pd.Categorical.from_codes(np.zeros(size, dtype=np.int8), [""])
        if size and bool((tally.aspects == "").all()) else pd.Categorical(tally.aspects),
        "tally": np.full(size, t, dtype=np.int32),
        "row": np.arange(size, dtype=np.int32), "n_votes": n.astype(np.int32),
        "majority": pd.Categorical.from_codes(winner, list(tally.categories)),
        "tie": tie, "minority_share": minority, "gold": gold_column,
        "gold_disagreement": gold_dis, "disagreement": disagreement, "posterior": a / (a + b),
        "ci_low": low, "ci_high": high,
        "origin": pd.Categorical.from_codes(human.astype(np.int8), ["model", "human"]),
        "workers_on_response": workers.astype(np.int32),
    })


def _golds(tally: Tally, gold: dict[Key, str]) -> tuple[np.ndarray, pd.Categorical, np.ndarray]:
    """(whether each item of the tally has a gold value, the values as categories, each one's column in the
    tally's counts or -1), found by a sorted search of the level's gold ids: a dict lookup and a Python object per
    item cost ~80 MB of the queue build at 3 * 10^5 items."""
    size = len(tally.item_ids)
    mine = {item: value for (level, item, aspect), value in gold.items()
            if level == tally.level and aspect == ""} if tally.level != "pairwise" else {}
    if not mine or not size:
        return np.zeros(size, dtype=bool), pd.Categorical.from_codes(np.full(size, -1, dtype=np.int8), []), \
            np.full(size, -1, dtype=np.int64)
    ids = np.fromiter(mine, dtype=np.int64, count=len(mine))
    order = np.argsort(ids, kind="stable")
    ids = ids[order]
    names = sorted(set(mine.values()))
    name_code = {name: k for k, name in enumerate(names)}
    values = np.array([name_code[v] for v in mine.values()], dtype=np.int64)[order]
    at = np.minimum(np.searchsorted(ids, tally.item_ids), len(ids) - 1)
    has = ids[at] == tally.item_ids
    value_code = np.where(has, values[at], -1)
    column = {c: k for k, c in enumerate(tally.categories)}
    column_of_name = np.array([column.get(name, -1) for name in names], dtype=np.int64)
    return has, pd.Categorical.from_codes(value_code, names), np.where(has, column_of_name[np.maximum(value_code, 0)], -1)


QUEUE_CACHE_SECONDS = 600


def _items_table(project: Project, counted: list[Tally] | None,
                 background: bool = False) -> tuple[pd.DataFrame, list[Tally]]:
    """The queue table without `decided`, and the tallies: built from the labels frame, or, for the project's
    own tallies, kept in the cache while its labels are unchanged (reports.labels_version): a decision does not
    change it, so an adjudicator's next page does not read a million labels again (issue 25). With `background`
    (the queue's pages), a large project's is built by a Celery task (services.derived): the last build is served
    meanwhile, derived.Building raised when there is none yet."""
    if counted is not None:
        return _build_items_table(project, counted)
    from annotation_tasks.services import derived

    if background and derived.in_background(project):
        # never the project's labels nor its version in the request: the task checks the version, rebuilds on a change
        kept = _kept_here(project)
        if kept is None:
            derived.queue_build(BUILD_TASK, project)
            raise derived.Building("the adjudication queue is being built")
        if not derived.checked_recently(_table_key(project), project):
            derived.queue_build(BUILD_TASK, project)
            _stale_set().add(project.pk)
        return kept[1], kept[2]
    kept = derived.store(project).get(_table_key(project))
    version = _table_version(project)
    if kept is not None and kept[0] == version:
        return kept[1], kept[2]
    return build_table(project, version)


BUILD_TASK = "annotation_tasks.build_queue_table"
_STALE = threading.local()  # .projects: those this thread last answered with a kept table of older labels


_HERE: dict[int, tuple[str, pd.DataFrame, list[Tally]]] = {}  # this process's copy of a large project's build


def _kept_here(project: Project) -> tuple[str, pd.DataFrame, list[Tally]] | None:
    """The kept build of a large project's table, from this process's copy while it is the latest build (one small
    cache read of the build's token): fetching and unpickling the table from a shared cache was ~1 s a page at
    10^6 labels. (token, table, tallies), or None when nothing is built."""
    from annotation_tasks.services import derived

    return derived.latest_copy(project, _table_key(project), _HERE,
                               lambda kept: (kept[3], kept[1], kept[2]) if len(kept) >= 4 else None, token_at=0)


def _stale_set() -> set[int]:
    if not hasattr(_STALE, "projects"):
        _STALE.projects = set()
    return _STALE.projects


def _table_key(project: Project) -> str:
    return f"factcrowd:queue-table:{project.pk}"


def _table_version(project: Project) -> str:
    from annotation_tasks.services.versions import version_hash

    return version_hash(project, "labels", recent=True)


def build_table(project: Project, version: str | None = None, only_if_changed: bool = False,
                ) -> tuple[pd.DataFrame, list[Tally]]:
    """Build the project's queue table from its labels and keep it; only_if_changed (the Celery task's body for a
    large project): keep the last build when its labels version is still the current one, marked checked."""
    from annotation_tasks.services import derived
    from annotation_tasks.services.versions import version_hash

    key = _table_key(project)
    version = version or version_hash(project, "labels")
    counted = counts_for(project, version).counts  # kept, or counted now for the summaries too
    store = derived.store(project)
    if only_if_changed:
        kept = store.get(key)
        if kept is not None and kept[0] == version:
            derived.mark_checked(key, project)
            return kept[1], kept[2]
    table, built = _build_items_table(project, _tallies_from(project, counted))
    table = queue_order(_ranked(table))  # kept in the queue's order: a page's rows are a mask away, no sort
    keep = derived.KEEP_SECONDS if derived.in_background(project) else QUEUE_CACHE_SECONDS
    token = uuid.uuid4().hex
    store.set(key, (version, table, built, token), keep)
    store.set(f"{key}:token", token, keep)
    derived.mark_checked(key, project)
    derived.release_memory()
    return table, built


def _build_items_table(project: Project, counted: list[Tally]) -> tuple[pd.DataFrame, list[Tally]]:
    gold = project_gold(project)
    authored = _human_fact_authorship(project)
    parts = [_level_table(t, tally, gold, authored) for t, tally in enumerate(counted)]
    columns = ["level", "item_id", "aspect", "tally", "row", "n_votes", "majority", "tie", "minority_share", "gold",
               "gold_disagreement", "disagreement", "posterior", "ci_low", "ci_high", "origin", "workers_on_response"]
    if not parts:
        return pd.DataFrame({c: [] for c in columns}), counted
    # a few names repeated over every row as categories, and small numbers in 32 bits: 50 -> 35 MB at 10^6 labels,
    # in the kept copy, its pickle and every sort too (the rows read the same: to_dict / itertuples give str, NaN, int);
    # levels' categories differ, so several parts concatenate to plain values and are narrowed again
    table = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True).astype(_NARROW)
    return table, counted


_NARROW = {"level": "category", "aspect": "category", "majority": "category", "gold": "category",
           "origin": "category", "tally": np.int32, "row": np.int32, "n_votes": np.int32,
           "workers_on_response": np.int32}


def queue_table(project: Project, counted: list[Tally] | None = None,
                background: bool = False) -> tuple[pd.DataFrame, list[Tally]]:
    """Every labelled item of the project with its majority and disagreement, unsorted, and the tallies
    (whose rows give each item's vote counts), plus a `decided` column (read fresh: decisions are not cached)."""
    table, counted = _items_table(project, counted, background)
    return _mark_decided(table, project), counted


def _mark_decided(table: pd.DataFrame, project: Project) -> pd.DataFrame:
    """The table with a `decided` column: whether each item has an expert's decision."""
    decided = pd.DataFrame(
        list(AdjudicatedLabel.objects.filter(project=project).values_list("level", "unit_id", "span_id", "qa_id",
                                                                         "fact_id", "aspect")),
        columns=["level", "unit_id", "span_id", "qa_id", "fact_id", "aspect"],
    )
    mark = np.zeros(len(table), dtype=bool)
    if len(decided):
        # a mask per (level, aspect), not a merge: a merge copied the whole table (50 MB at 10^6 labels) per page
        decided["item_id"] = decided[["unit_id", "span_id", "qa_id", "fact_id"]].bfill(axis=1).iloc[:, 0].astype(np.int64)
        decided["aspect"] = decided["aspect"].fillna("")
        levels = table["level"].to_numpy(dtype=object)
        aspects = table["aspect"].fillna("").to_numpy(dtype=object)
        items = table["item_id"].to_numpy()
        for (level, aspect), group in decided.groupby(["level", "aspect"], sort=False):
            mark |= (levels == level) & (aspects == aspect) & np.isin(items, group["item_id"].to_numpy())
    return table.assign(decided=mark)  # not in place: the kept build may be this process's copy


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


def _filters(params: Mapping[str, Any]) -> tuple[str | None, bool, bool | None]:
    """(level, include_agreed, decided) of queue params, each checked by name."""
    level = params.get("level") or None
    if level is not None and level not in adjudication_levels():
        raise _bad("level", f"must be one of {', '.join(adjudication_levels())}")
    include_agreed = _flag(params, "include_agreed")
    decided_raw = params.get("decided", "")
    decided = None if decided_raw in ("", None) else _flag(params, "decided")
    return level, include_agreed, decided


def _chosen(project: Project, filters: tuple[str | None, bool, bool | None], background: bool = False,
            ) -> tuple[pd.DataFrame, pd.DataFrame, list[Tally]]:
    """(the whole queue table, the rows the filters choose in queue order, the tallies the rows point into)."""
    table, counted = queue_table(project, background=background)
    mask = _filter_mask(table, filters)
    if "rank" in table:  # a kept build, in the queue's order already (build_table); the mask keeps it
        return table, table[mask], counted
    return table, queue_order(_ranked(table[mask])), counted


def _filter_mask(table: pd.DataFrame, filters: tuple[str | None, bool, bool | None]) -> np.ndarray:
    """The rows of the queue table that the filters (level, include_agreed, decided) choose."""
    level, include_agreed, decided = filters
    mask = np.ones(len(table), dtype=bool)
    if level is not None:
        mask &= (table["level"] == level).to_numpy()
    if not include_agreed:
        mask &= (table["disagreement"] > 0).to_numpy()
    if decided is not None:
        mask &= (table["decided"] == decided).to_numpy()
    return mask


def _ranked(table: pd.DataFrame) -> pd.DataFrame:
    """The table with each row's level's position among the adjudicable levels (the queue's order uses it)."""
    position = {lv: i for i, lv in enumerate(adjudication_levels())}
    level = table["level"]
    if isinstance(level.dtype, pd.CategoricalDtype):  # a number per category, then per row by its code
        per_category = np.array([position.get(str(c), 99) for c in level.cat.categories] + [99], dtype=np.int64)
        return table.assign(rank=per_category[level.cat.codes.to_numpy()])
    return table.assign(rank=level.map(position).fillna(99).astype(np.int64))


def queue_order(chosen: pd.DataFrame) -> pd.DataFrame:
    """The queue's order, least certain first: the label's posterior, then disagreement, votes, level, item.
    The one place the order is decided (a page is a slice of it; another ordering replaces this function)."""
    return chosen.sort_values(["posterior", "disagreement", "n_votes", "rank", "item_id", "aspect"],
                              ascending=[True, False, False, True, True, True], kind="stable")


def queue(project: Project, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The adjudication queue, least certain first (posterior of the item's label, then disagreement). params (query strings or values): level (one of the
    adjudicable levels), include_agreed (items everyone agrees on too), decided (true: only adjudicated,
    false: only open; absent: both), limit (1..500, default 100), offset; summary (true: the counts and the
    agreement without rows, for the dashboard's header before it asks for a page); scorer (a scorer with scores in
    the project: only the items where its verdict and the crowd's majority differ, the most confident first, agreed
    items included, each row with the scorer's score: the crowd-scorer disagreement queue)."""
    params = params or {}
    filters = _filters(params)
    limit = _int(params, "limit", 100, 1, MAX_LIMIT)
    offset = _int(params, "offset", 0, 0, 10**9)
    summary = _flag(params, "summary")
    scorer = _scorer(project, params)
    if scorer is not None:
        filters = (filters[0], True, filters[2])  # a unanimous crowd may disagree with the scorer
    from annotation_tasks.services import derived

    if summary and scorer is None and (fresh := _fresh_summary(project, filters)) is not None:
        return {**fresh, "offset": offset, "limit": limit}
    _stale_set().discard(project.pk)
    try:
        table, chosen, counted = _chosen_rows(project, filters)
    except derived.Building:
        return {"building": True, "stale": False, "count": None, "decided": None, "offset": offset, "limit": limit,
                "levels": {lv: list(level_labels(lv)) for lv in adjudication_levels()}, "next_offset": None,
                "results": [], "agreement": []}
    stale = project.pk in _stale_set()
    scores = None
    if scorer is not None:
        chosen, scores = _against_scorer(project, table, chosen, scorer)
    adjudicated = _adjudicated(project)
    page = [] if summary else _rows(table.take(chosen[offset: offset + limit]), counted, adjudicated, project.pk)
    if scores is not None and page:
        for row, score in zip(page, scores[offset: offset + limit], strict=True):
            row["scorer"] = {"name": scorer, "score": round(float(score), 4),
                             "verdict": (POSITIVE if score >= SCORER_THRESHOLD else NEGATIVE)[row["level"]]}
    return {
        "building": False,
        "stale": stale,
        "count": int(len(chosen)),
        "levels": {lv: list(level_labels(lv)) for lv in adjudication_levels()},
        "decided": int(table["decided"].to_numpy()[chosen].sum()),
        "offset": offset,
        "limit": limit,
        "next_offset": offset + limit if offset + limit < len(chosen) and not summary else None,
        "results": page,
        "agreement": majority_agreement(project, table, adjudicated),
    }


POSITIVE = {"qa": "supported", "fact": "S"}  # the scored levels' supported label
NEGATIVE = {"qa": "not_supported", "fact": "NS"}


def _scorer(project: Project, params: Mapping[str, Any]) -> str | None:
    """The `scorer` param: a scorer with scores in this project, or None when absent."""
    from annotation_tasks.services import scoring

    raw = params.get("scorer", "")
    if raw in ("", None):
        return None
    if not isinstance(raw, str) or scoring.latest_version(project, raw.strip().lower()) is None:
        names = sorted({s for s, _v, _n in scoring.iter_versions(project)})
        raise _bad("scorer", "must name a scorer with scores in this project"
                   + (f" ({', '.join(names)})" if names else " (none has scored it yet)"))
    return raw.strip().lower()


def _against_scorer(project: Project, table: pd.DataFrame, chosen: np.ndarray, scorer: str
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The chosen rows where the scorer's latest scores and the crowd's majority differ, the most confident
    disagreement first, with each kept row's score: scorer_calibration.disagreements on the queue table's
    majorities."""
    from annotation_tasks.services import scoring

    scores = scoring.scores_frame(project, scorer)
    rows = table.take(chosen)
    score = np.full(len(rows), np.nan)
    for level in POSITIVE:
        at = (rows["level"] == level).to_numpy()
        if at.any():
            mine = scores[scores["level"] == level]
            score[at] = rows["item_id"][at].map(dict(zip(mine["item_id"], mine["score"], strict=True))).to_numpy(float)
    crowd = np.array([m == POSITIVE.get(lv) for lv, m in zip(rows["level"], rows["majority"], strict=True)])
    scored = ~np.isnan(score)
    split = disagreements(pd.DataFrame({"item_id": rows["item_id"].to_numpy()[scored], "score": score[scored],
                                        "crowd": crowd[scored], "at": chosen[scored]}))
    return split["at"].to_numpy(), split["score"].to_numpy()


def _chosen_rows(project: Project, filters: tuple[str | None, bool, bool | None],
                 ) -> tuple[pd.DataFrame, np.ndarray, list[Tally]]:
    """_chosen's rows as positions into the table, in queue order: a summary or a page reads the count, the
    decided count and a page's rows from them, without a copy of the chosen rows (~50 MB at 10^6 labels)."""
    table, counted = queue_table(project, background=True)
    mask = _filter_mask(table, filters)
    if "rank" in table:  # a kept build, in the queue's order already (build_table)
        return table, np.flatnonzero(mask), counted
    ordered = queue_order(_ranked(table[mask]))
    return table, table.index.get_indexer(ordered.index), counted


def _fresh_summary(project: Project, filters: tuple[str | None, bool, bool | None]) -> dict[str, Any] | None:
    """A large project's queue summary (counts, decided, the majority against the decisions) from the kept
    counts (kept_level_counts) while its table is not built or not checked within derived.CHECK_SECONDS: the
    first build in Celery left the page saying `building` (issue 25 item 2). The same rows as the table
    (_build_items_table over the same tallies), without its sort or its cache. None otherwise (a project whose
    table is built in the request, from the same kept counts; a recent build; repeat votes)."""
    from annotation_tasks.services import derived

    key = _table_key(project)
    kept = derived.store(project).get(f"{key}:token") is not None
    if not derived.in_background(project) or (kept and derived.checked_recently(key, project)):
        return None  # built in the request (from the kept counts), then kept for the pages and the next summary
    try:
        counts = kept_level_counts(project)  # queues the table's build (which counts) when nothing is kept
    except derived.Building:
        return {"building": True, "stale": False, "count": None, "decided": None, "next_offset": None,
                "levels": {lv: list(level_labels(lv)) for lv in adjudication_levels()}, "results": [],
                "agreement": []}
    if not kept and not counts.stale:
        derived.queue_build(BUILD_TASK, project)  # the pages asked next need it
    if counts.counts is None:
        return None
    table, _ = _build_items_table(project, _tallies_from(project, counts.counts))
    table = _mark_decided(table, project)
    mask = _filter_mask(table, filters)
    adjudicated = _adjudicated(project)
    return {"building": False, "stale": counts.stale, "count": int(mask.sum()),
            "levels": {lv: list(level_labels(lv)) for lv in adjudication_levels()},
            "decided": int(table["decided"].to_numpy()[mask].sum()), "next_offset": None, "results": [],
            "agreement": majority_agreement(project, table, adjudicated)}


def queue_rows(project: Project, params: Mapping[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """Every row of the queue the params choose (level, include_agreed, decided), in queue order: the table is
    built once, the rows' votes and contexts are read a page at a time."""
    _table, chosen, counted = _chosen(project, _filters(params or {}))
    adjudicated = _adjudicated(project)
    for start in range(0, len(chosen), MAX_LIMIT):
        yield from _rows(chosen.iloc[start: start + MAX_LIMIT], counted, adjudicated, project.pk)


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


def _rows(page: pd.DataFrame, counted: list[Tally], adjudicated: dict[Key, AdjudicatedLabel],
          project_id: int) -> list[dict[str, Any]]:
    """Queue rows of one page: the item's context, every vote with its worker, gold, majority, decision."""
    records = page.to_dict("records")
    keys: list[Key] = [(r["level"], int(r["item_id"]), r["aspect"]) for r in records]
    votes = counted_votes(keys)
    names = worker_names({w for vs in votes.values() for _a, w, _l in vs}, project_id)
    by_level: dict[str, list[int]] = defaultdict(list)
    for level, item, _aspect in keys:
        by_level[level].append(item)
    contexts = {level: context_of(level, ids) for level, ids in by_level.items()}
    rows = []
    for r, key in zip(records, keys, strict=True):
        level, item, aspect = key
        gold_dis = r["gold_disagreement"]
        rows.append({
            "key": f"{level}:{item}" + (f":{aspect}" if aspect else ""),
            "level": level, "item_id": item, "aspect": aspect or None, "labels": list(level_labels(level)),
            "n_votes": int(r["n_votes"]), "counts": counted[int(r["tally"])].votes(int(r["row"])),
            "majority": r["majority"], "tie": bool(r["tie"]), "minority_share": round(float(r["minority_share"]), 4),
            "gold": r["gold"] if isinstance(r["gold"], str) else None,  # pandas string dtype: missing is NaN
            "gold_disagreement": None if pd.isna(gold_dis) else round(float(gold_dis), 4),
            "disagreement": round(float(r["disagreement"]), 4), "origin": r["origin"],
            "posterior": round(float(r["posterior"]), 4),
            "ci95": [round(float(r["ci_low"]), 4), round(float(r["ci_high"]), 4)],
            "workers_on_response": int(r["workers_on_response"]) or None,
            "votes": [{"assignment_id": a, "worker": names.get(w, {"id": w, "pseudonym": None, "name": str(w)}),
                       "label": lab} for a, w, lab in votes.get(key, [])],
            "context": contexts.get(level, {}).get(item, {}),
            "adjudicated": _decision(adjudicated.get(key)),
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
    """The model fields of a target in this project, or AdjudicationError naming the field that is wrong. The
    level's item type (its protocol's declaration) says what the item is: a span, a QA, a fact or a unit."""
    item_type = vocabulary(level).item_type
    if item_type == "span":
        if not AnswerSpan.objects.filter(pk=item_id, response__project=project).exists():
            raise _bad("item_id", "not an answer span of this project")
        return {"span_id": item_id}
    if item_type == "qa":
        qa = QA.objects.filter(pk=item_id, response__project=project).values_list("validity", flat=True).first()
        if qa is None:
            raise _bad("item_id", "not a QA of this project")
        if qa == QA.Validity.INVALID:
            raise _bad("item_id", "this QA was marked invalid: it is not part of the judged set")
        return {"qa_id": item_id}
    if item_type == "fact":
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
    """Check a decision body {level, item_id, aspect?, label, reason?}: every error names its field. The reason is
    optional (the dashboard offers preset ones on keys); when given it must be text, without NUL, not too long."""
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
    over_units = vocabulary(level).item_type == "unit"  # a comparison: its items are (unit, aspect)
    if not over_units and aspect:
        raise _bad("aspect", "only pairwise comparisons have aspects")
    if over_units and not aspect:
        raise _bad("aspect", "a pairwise decision names its aspect")
    label = _plain(data, "label")
    if over_units and isinstance(label, int) and not isinstance(label, bool):
        label = str(label)
    allowed = level_labels(level)
    if label not in allowed:
        raise _bad("label", f"must be one of {', '.join(allowed)}")
    reason = _plain(data, "reason")
    if reason is None:  # optional: the decision, its votes and its decider are kept either way
        reason = ""
    if not isinstance(reason, str):
        raise _bad("reason", "must be text")
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
    names = worker_names({w for _a, w, _l in votes}, project.pk)
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


def majority_agreement_of(project: Project, counted: list[Tally]) -> list[dict[str, Any]]:
    """majority_agreement from the tallies, reading only the decided items' rows (no queue table)."""
    decided = _adjudicated(project)
    if not decided:
        return []
    parts = []
    for tally in counted:
        wanted = {(item, aspect) for level, item, aspect in decided if level == tally.level}
        if not wanted:
            continue
        rows = np.flatnonzero(np.isin(tally.item_ids, np.fromiter((i for i, _a in wanted), dtype=np.int64)))
        rows = np.array([r for r in rows if (int(tally.item_ids[r]), tally.aspects[r] or "") in wanted], dtype=np.int64)
        winner, _tie = majority_from_counts(tally.counts[rows])
        parts.append(pd.DataFrame({"level": tally.level, "item_id": tally.item_ids[rows], "aspect": tally.aspects[rows],
                                   "majority": np.asarray(tally.categories, dtype=object)[winner], "decided": True}))
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        {"level": [], "item_id": [], "aspect": [], "majority": [], "decided": np.zeros(0, dtype=bool)})
    return majority_agreement(project, table, decided)


def majority_agreement(project: Project, table: pd.DataFrame | None = None,
                       decided: dict[Key, AdjudicatedLabel] | None = None) -> list[dict[str, Any]]:
    """Per level with decisions: how often the current majority equals the adjudicated label (accuracy) and
    Cohen's kappa between the two (analysis.agreement.cohen_kappa; None when undefined, e.g. one label only).
    Importing scikit-learn for these two numbers cost the report 3 s."""
    decided = _adjudicated(project) if decided is None else decided
    if not decided:
        return []
    table = queue_table(project)[0] if table is None else table
    majority = {(r.level, int(r.item_id), r.aspect): r.majority for r in table[table["decided"]].itertuples()}
    pairs: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for key, adj in decided.items():
        if majority.get(key) is not None:
            pairs[key[0]].append((majority[key], adj.value))
    rows = []
    for level in adjudication_levels():
        if level not in pairs:
            continue
        maj, gold = zip(*pairs[level], strict=True)
        labels = list(level_labels(level))
        kappa = cohen_kappa(gold, maj, labels=labels) if len(set(maj) | set(gold)) > 1 else None
        changed = sum(1 for m, g in zip(maj, gold, strict=True) if m != g)
        rows.append({"level": level, "n_items": len(maj), "accuracy": 1.0 - changed / len(maj),
                     "cohen_kappa": kappa, "changed": changed})
    return rows
