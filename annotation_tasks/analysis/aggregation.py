"""Per-item label counts and majority labels, vectorised over a labels frame.

The labels frame (built by annotation_tasks.services.frames) has one row per label with at least the
columns level, item_id, worker_id, label. Everything here works on category codes and np.bincount so
that a million labels aggregate in well under a second; nothing loops over items in Python.

Tie rule (explicit, used everywhere a majority is taken): when several labels share the highest count,
the one that comes first in the level's label order wins. The orders are not kept here: each protocol declares
its levels' labels (annotation_tasks.protocols, LabelLevel.labels) and the app hands them over
(analysis.vocabularies: apps.py gives the registry as provider; or `orders=` on a call). Each order lists the *error* label first
(not_covered, not_supported, NS), so an item half of the workers flagged stays flagged: for consistency
evaluation a missed error costs more than a false alarm. A level with no known order uses its observed labels,
sorted. Pass tie="none" to get None for ties instead. With three workers and two categories (the QASem release)
there are no ties.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from annotation_tasks.analysis.vocabularies import LabelOrders, label_orders, use_label_orders  # noqa: F401

MAJORITY_COLUMNS = ["level", "item_id", "majority", "n_labels", "votes", "tie"]


def code_dtype(n_categories: int) -> type[np.signedinteger]:
    """The dtype of a category code (-1 for none): a level has a handful of labels, and per-label arrays of int8
    instead of int64 are ~30 MB less of a report build at 10^6 labels."""
    return np.int8 if n_categories < np.iinfo(np.int8).max else np.int32


def _factorize_ids(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int32 code per value, sorted distinct values): pd.factorize(sort=True), without its hash table when the
    values are already sorted (a labels frame is sorted by item)."""
    ids = np.asarray(ids)
    if len(ids) > 1 and (ids[1:] >= ids[:-1]).all():
        step = ids[1:] != ids[:-1]
        codes = np.zeros(len(ids), dtype=np.int32)
        np.cumsum(step, out=codes[1:])
        return codes, ids[np.concatenate(([True], step))]
    codes, uniques = pd.factorize(ids, sort=True)
    return codes.astype(np.int32), np.asarray(uniques)


@dataclass(frozen=True, eq=False)
class ItemCounts:
    """Label counts of one level: counts[i, c] = labels of category c on item item_ids[i].

    The majority, the others' majority per label and the worker codes are computed on first use and kept, so
    the report's sections (agreement, worker agreement, confusion, consistency) share one pass over the labels.
    """

    item_ids: np.ndarray  # (n_items,) sorted item ids
    categories: tuple[str, ...]  # column order of counts = tie priority
    counts: np.ndarray  # (n_items, n_categories) int64
    item_codes: np.ndarray  # (n_labels,) row of counts for each input label, in input order
    label_codes: np.ndarray  # (n_labels,) column of counts for each input label, in input order
    worker_ids: np.ndarray | None = None  # (n_labels,) the labels' worker ids, in input order (when given)

    @property
    def n_per_item(self) -> np.ndarray:
        return self.counts.sum(axis=1)

    @cached_property
    def majority(self) -> tuple[np.ndarray, np.ndarray]:
        """majority_from_counts(counts): (winning column per item, whether its top count was shared)."""
        return majority_from_counts(self.counts)

    @cached_property
    def others_majority(self) -> tuple[np.ndarray, np.ndarray]:
        """Per label: the majority column of the OTHER labels of its item (the label's own vote removed), and
        whether it can be compared (someone else labelled the item and the others do not tie)."""
        n_cat = len(self.categories)
        others = np.empty((len(self.item_codes), n_cat), dtype=np.int32)
        for c in range(n_cat):  # column by column: no (n_labels, n_cat) temporary per step
            np.subtract(self.counts[self.item_codes, c], self.label_codes == c, out=others[:, c])
        winner, tie = majority_from_counts(others)
        compared = ~tie
        compared &= self.n_per_item[self.item_codes] > 1  # the others' counts sum to the item's labels minus one
        return winner, compared

    @cached_property
    def workers(self) -> tuple[np.ndarray, np.ndarray]:
        """(worker code per label, sorted distinct worker ids): pd.factorize of worker_ids with sort=True."""
        if self.worker_ids is None:
            raise ValueError("these counts were built without worker ids")
        return _factorize_ids(self.worker_ids)


def split_levels(labels: pd.DataFrame) -> Iterator[tuple[str, pd.DataFrame]]:
    """(level, that level's labels) in level order, like groupby("level", sort=True, observed=True), but a frame
    of one level is given back as it is (no copy of a million rows for the common case)."""
    if labels.empty:
        return
    column = labels["level"]
    first = column.iloc[0]
    if (column == first).all():
        yield str(first), labels
        return
    for level, group in labels.groupby("level", sort=True, observed=True):
        yield str(level), group


def counts_by_level(labels: pd.DataFrame, orders: LabelOrders | None = None) -> dict[str, ItemCounts]:
    """item_counts of every level of a labels frame, computed once for all the sections that use them."""
    return {level: item_counts(group, level, orders) for level, group in split_levels(labels)}


def level_counts(labels: pd.DataFrame, level: str, counts: Mapping[str, ItemCounts] | None) -> ItemCounts:
    """counts[level] when it was built from these labels (same number of labels), else item_counts afresh."""
    given = (counts or {}).get(level)
    if given is not None and len(given.label_codes) == len(labels):
        return given
    return item_counts(labels, level)


def categories_for(level: str | None, labels: Sequence[str] | np.ndarray,
                   orders: LabelOrders | None = None) -> tuple[str, ...]:
    """The category order for a level: the known vocabulary (`orders`, else those in use), or sorted observed
    values when unknown.

    Known vocabularies are kept whole even when a category is unobserved, so that codes are stable across
    groupings (e.g. per dataset) and Fleiss' expected agreement sees the real category set.
    """
    observed = pd.unique(np.asarray(labels, dtype=object))
    given = (label_orders() if orders is None else orders).get(level or "")
    known = tuple(given) if given is not None else None
    if known is not None and set(observed) <= set(known):
        return known
    return tuple(sorted(str(v) for v in observed))


def item_counts(labels: pd.DataFrame, level: str | None = None, orders: LabelOrders | None = None) -> ItemCounts:
    """Count labels per (item, category) for ONE level with a single np.bincount.

    `labels` must hold one level only (filter first); `level` picks the vocabulary (defaults to the frame's).
    """
    if level is None and len(labels):
        levels = pd.unique(labels["level"]) if "level" in labels else [None]
        if len(levels) > 1:
            raise ValueError(f"item_counts expects one level, got {list(levels)}")
        level = levels[0]
    column = labels["label"]
    if isinstance(column.dtype, pd.CategoricalDtype):
        # Fast path for frames from services.frames: remap the existing codes, no string comparisons.
        categories = categories_for(level, column.unique().dropna().to_numpy(), orders)
        remap = np.array([categories.index(c) if c in categories else -1 for c in column.cat.categories] + [-1])
        label_codes = remap[column.cat.codes.to_numpy()].astype(code_dtype(len(categories)))  # -1: missing
    else:
        label_values = column.to_numpy()
        categories = categories_for(level, label_values[pd.notna(label_values)], orders)
        label_codes = pd.Categorical(label_values, categories=list(categories)).codes.astype(code_dtype(len(categories)))
    if (label_codes < 0).any():
        raise ValueError("labels frame has missing labels; drop them before counting")
    item_codes, item_ids = _factorize_ids(labels["item_id"].to_numpy())
    n_items, n_cat = len(item_ids), len(categories)
    flat = np.bincount(item_codes.astype(np.int64) * n_cat + label_codes, minlength=n_items * n_cat)
    return ItemCounts(
        item_ids=item_ids,
        categories=categories,
        counts=flat.reshape(n_items, n_cat),
        item_codes=item_codes,
        label_codes=label_codes,
        worker_ids=labels["worker_id"].to_numpy() if "worker_id" in labels else None,
    )


def majority_from_counts(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(winning column per row by the tie rule, whether the top count was shared).

    The first maximum wins, i.e. the highest-priority category: that *is* the tie rule. Computed column by
    column (a few categories, many items): numpy's row-wise max/argmax over rows of two or three values cost
    several times more.
    """
    counts = np.asarray(counts)
    if counts.size == 0:
        return np.zeros(0, dtype=np.int8), np.zeros(0, dtype=bool)
    top = counts[:, 0].copy()
    winner = np.zeros(len(counts), dtype=code_dtype(counts.shape[1]))
    for c in range(1, counts.shape[1]):
        column = counts[:, c]
        winner[column > top] = c
        np.maximum(top, column, out=top)
    n_top = np.zeros(len(counts), dtype=code_dtype(counts.shape[1]))
    for c in range(counts.shape[1]):
        n_top += counts[:, c] == top
    return winner, n_top > 1


def _votes_in_worker_order(labels: pd.DataFrame, ic: ItemCounts) -> list[list[str]]:
    """Per item (in ic.item_ids order) the list of its labels sorted by worker_id.

    One lexsort and slices of one Python list: groupby(...).agg(list) takes seconds on a million labels.
    """
    worker_codes, _ = pd.factorize(labels["worker_id"].to_numpy(), sort=True)
    order = np.lexsort((worker_codes, ic.item_codes))
    values = np.asarray(ic.categories, dtype=object)[ic.label_codes[order]].tolist()
    bounds = np.concatenate(([0], np.cumsum(ic.n_per_item))).tolist()
    return [values[bounds[i] : bounds[i + 1]] for i in range(len(bounds) - 1)]


def majority_labels(labels: pd.DataFrame, *, tie: str = "priority", with_votes: bool = True,
                    orders: LabelOrders | None = None) -> pd.DataFrame:
    """Majority label per (level, item): columns level, item_id, majority, n_labels, votes, tie.

    votes lists the item's labels in worker order (ascending worker_id), the order the QASem release
    format needs to write `annotations` back. tie="priority" applies the module's tie rule;
    tie="none" leaves majority None on ties. with_votes=False skips building the lists (faster).
    """
    if tie not in ("priority", "none"):
        raise ValueError("tie must be 'priority' or 'none'")
    frames = []
    for level, group in labels.groupby("level", sort=True, observed=True):
        ic = item_counts(group, str(level), orders)
        winner, is_tie = majority_from_counts(ic.counts)
        majority = np.asarray(ic.categories, dtype=object)[winner]
        if tie == "none":
            majority = np.where(is_tie, None, majority)
        out = pd.DataFrame(
            {
                "level": level,
                "item_id": ic.item_ids,
                "majority": majority,
                "n_labels": ic.n_per_item,
                "tie": is_tie,
            }
        )
        if with_votes:
            out["votes"] = _votes_in_worker_order(group, ic)
        else:
            out["votes"] = None
        frames.append(out[MAJORITY_COLUMNS])
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in MAJORITY_COLUMNS})
    return pd.concat(frames, ignore_index=True)
