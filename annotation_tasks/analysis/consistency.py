"""QASem consistency: per-QA verdicts from the two steps, per-response scores, per-system means.

Two-step rule: step 1 asks whether an answer span is covered by the source, step 2 whether each QA is
supported. A QA whose answer span is (by majority) not covered cannot be supported, whatever step 2 said:
its error is *extrinsic* (the answer is not in the source). A QA whose span is covered but which the
majority marks not supported is an *intrinsic* error (the source has the content but says otherwise).
A QA that belongs to no span, or whose spans carry no labels (step 1 not run), counts as covered.

Inputs (frames from annotation_tasks.services.frames):
- labels: the labels frame (levels 'qa' and 'span' are used)
- qas: one row per QA: item_id, response_id, predicate_id, system (+ any grouping column: dataset, split...)
- qa_spans: one row per (qa_id, span_id) membership
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from annotation_tasks.analysis.aggregation import ItemCounts, level_counts, split_levels

# indices drawn at once (whole resamples of n, at least one): 10^5 is under 1 MB of indices (and of values) a
# chunk, which the allocator reuses, where 10^6 was 16 MB and 5 * 10^6 80 MB of a report build's peak at 10^5
# responses, for the same seconds
BOOTSTRAP_CELLS = 100_000
VERDICT_COLUMNS = ["item_id", "response_id", "predicate_id", "qa_majority", "span_covered", "supported", "error"]


def _majority_codes(by_level: Mapping[str, pd.DataFrame], level: str, ids: np.ndarray,
                    counts: Mapping[str, ItemCounts] | None = None) -> tuple[np.ndarray, tuple[str, ...]]:
    """The majority (a column of the level's categories, tie rule of aggregation) of each of `ids`, -1 for an
    item without labels of that level; and the categories. Found by np.searchsorted in the sorted item ids."""
    level_labels = by_level.get(level)
    if level_labels is None or level_labels.empty or len(ids) == 0:
        return np.full(len(ids), -1, dtype=np.int64), ()
    ic = level_counts(level_labels, level, counts)
    winner, _ = ic.majority
    pos = np.minimum(np.searchsorted(ic.item_ids, ids), len(ic.item_ids) - 1)
    return np.where(ic.item_ids[pos] == ids, winner[pos], -1), ic.categories


def _code(categories: tuple[str, ...], name: str) -> int:
    return categories.index(name) if name in categories else -2  # -2: never equal to a code or to "no label"


def qa_verdicts(labels: pd.DataFrame, qas: pd.DataFrame, qa_spans: pd.DataFrame,
                counts: Mapping[str, ItemCounts] | None = None) -> pd.DataFrame:
    """One row per judged QA: the QA's majority, whether its span is covered, supported, and its error kind.

    error is 'extrinsic' (span not covered), 'intrinsic' (covered, QA not supported) or None. QAs with no
    QA labels and no uncovered span are unjudged and left out. Extra columns of `qas` are carried along.
    `counts` may give each level's item_counts (aggregation.counts_by_level), shared with other sections.
    Computed on category codes (no string comparison per QA).
    """
    by_level = dict(split_levels(labels))
    qa_ids = qas["item_id"].to_numpy()
    qa_code, qa_categories = _majority_codes(by_level, "qa", qa_ids, counts)
    span_not_covered = np.zeros(len(qa_ids), dtype=bool)
    if len(qa_spans):
        span_code, span_categories = _majority_codes(by_level, "span", qa_spans["span_id"].to_numpy(), counts)
        uncovered_links = span_code == _code(span_categories, "not_covered")
        if uncovered_links.any():
            span_not_covered = np.isin(qa_ids, qa_spans["qa_id"].to_numpy()[uncovered_links])
    out = qas.copy()
    # text columns taken from a few names by code (no text inferred per QA); code -1 (no QA label) -> missing
    out["qa_majority"] = _texts([*qa_categories, np.nan], qa_code)
    out["span_covered"] = ~span_not_covered
    judged = (qa_code >= 0) | span_not_covered
    out["supported"] = (qa_code == _code(qa_categories, "supported")) & ~span_not_covered
    not_supported = qa_code == _code(qa_categories, "not_supported")
    error = np.where(span_not_covered, 2, np.where(not_supported, 1, 0))
    out["error"] = pd.Series(np.asarray([None, "intrinsic", "extrinsic"], dtype=object)[error], dtype=object)
    return out[judged].reset_index(drop=True)


def _texts(names: list, codes: np.ndarray) -> pd.Series:
    """names[code] per row, with the dtype pandas infers for such a column: its string dtype when a text is
    among them, object when every value is missing."""
    used = np.unique(codes)
    if not any(isinstance(names[c], str) for c in used):
        return pd.Series(np.asarray(names, dtype=object)[codes])
    return pd.Series(pd.Series(names, dtype=pd.Series(["x"]).dtype).array.take(codes))


def response_scores(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Consistency per response: supported QAs / judged QAs (0–1), with the QA and error counts."""
    grouping = [c for c in verdicts.columns if c not in set(VERDICT_COLUMNS)]
    keys = ["response_id", *grouping]
    if verdicts.empty:
        return pd.DataFrame(columns=[*keys, "n_qas", "n_supported", "n_extrinsic", "n_intrinsic", "consistency"])
    frame = verdicts.assign(
        _extrinsic=verdicts["error"].eq("extrinsic"), _intrinsic=verdicts["error"].eq("intrinsic")
    )
    scores = (
        frame.groupby(keys, sort=True, dropna=False)
        .agg(
            n_qas=("item_id", "size"),
            n_supported=("supported", "sum"),
            n_extrinsic=("_extrinsic", "sum"),
            n_intrinsic=("_intrinsic", "sum"),
        )
        .reset_index()
    )
    scores["consistency"] = scores["n_supported"] / scores["n_qas"]
    return scores


def bootstrap_mean_ci(
    values: np.ndarray, *, n_boot: int = 2000, seed: int = 0, level: float = 0.95
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean. Seeded: the same values give the same interval.

    Resamples are drawn in chunks so memory stays bounded for large inputs. None for no values.
    """
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if n == 0:
        return None
    if n == 1:
        return float(values[0]), float(values[0])
    rng = np.random.default_rng(seed)
    chunk = max(1, min(n_boot, BOOTSTRAP_CELLS // n))  # the draws are the same whatever the chunk
    means = np.empty(n_boot)
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        means[start:stop] = values[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return float(low), float(high)


def mixed_predicates(verdicts: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per group: predicates with judged QAs, and how many have both supported and unsupported QAs."""
    per_predicate = (
        verdicts.groupby([*keys, "predicate_id"], sort=False, dropna=False)["supported"]
        .agg(["any", "all"])
        .reset_index()
    )
    per_predicate["mixed"] = per_predicate["any"] & ~per_predicate["all"]
    return (
        per_predicate.groupby(keys, sort=True, dropna=False)
        .agg(n_predicates=("mixed", "size"), n_mixed=("mixed", "sum"))
        .reset_index()
    )


def system_consistency(
    labels: pd.DataFrame,
    qas: pd.DataFrame,
    qa_spans: pd.DataFrame,
    *,
    by: str | None = None,
    n_boot: int = 2000,
    seed: int = 0,
    counts: Mapping[str, ItemCounts] | None = None,
) -> list[dict[str, Any]]:
    """Rows per system (and per `by` value when given): mean response consistency (0–100) with a seeded
    bootstrap 95% interval, the mixed-predicate share, and extrinsic vs intrinsic error counts and shares.

    Each group's interval uses its own generator seeded with `seed`, so adding a system to a project does not
    move the intervals of the others. `counts`: as in qa_verdicts.
    """
    keys = ["system"] if by in (None, "system") else [by, "system"]
    # the grouping names as categories: one code per QA instead of a string (10^5-10^6 QAs), grouped by code
    qas = qas[["item_id", "response_id", "predicate_id", *keys]].astype({k: "category" for k in keys})
    verdicts = qa_verdicts(labels, qas, qa_spans, counts)
    if verdicts.empty:
        return []
    scores = response_scores(verdicts)
    mixed = mixed_predicates(verdicts, keys).set_index(keys)
    rows: list[dict[str, Any]] = []
    for key, group in scores.groupby(keys, sort=True, dropna=False):
        key_values = key if isinstance(key, tuple) else (key,)
        ci = bootstrap_mean_ci(group["consistency"].to_numpy(), n_boot=n_boot, seed=seed)
        n_qas = int(group["n_qas"].sum())
        n_errors = int(group["n_extrinsic"].sum() + group["n_intrinsic"].sum())
        mixed_row = mixed.loc[key_values if len(keys) > 1 else key_values[0]]
        rows.append(
            {
                **{k: (None if pd.isna(v) else v) for k, v in zip(keys, key_values, strict=True)},
                "n_responses": int(len(group)),
                "n_qas": n_qas,
                "consistency": float(group["consistency"].mean() * 100.0),
                "ci95": [ci[0] * 100.0, ci[1] * 100.0] if ci else None,
                "n_predicates": int(mixed_row["n_predicates"]),
                "mixed_predicates_pct": float(mixed_row["n_mixed"] / mixed_row["n_predicates"] * 100.0),
                "n_extrinsic": int(group["n_extrinsic"].sum()),
                "n_intrinsic": int(group["n_intrinsic"].sum()),
                "extrinsic_pct_of_errors": (float(group["n_extrinsic"].sum() / n_errors * 100.0) if n_errors else None),
            }
        )
    return rows
