"""How sure is each aggregated label, and how good is each worker: a posterior with a 95% interval per item, an
accuracy with its standard error per worker, for the majority, Dawid-Skene and GLAD.

Items (one row per level and item; `label` is the aggregation's label, `posterior` the probability it is right):
- majority: a Dirichlet(1, ..., 1) prior on the share of the crowd giving each label, updated with the item's vote
  counts. `posterior` is the posterior mean share of the majority label and the interval that share's 95%
  equal-tailed interval (its marginal is Beta(n_label + 1, n - n_label + K - 1)); `p_majority`, the posterior
  probability that more than half of the crowd would give it. Three votes 3-0 give 0.80 [0.40, 0.99]; 2-1 0.60.
- dawid_skene / glad: `posterior` is crowd-kit's fitted probability of the label (probas_). Its interval comes from
  what is not known about the workers: seeded draws of every worker's confusion matrix from a Dirichlet on its soft
  confusion counts (Dawid-Skene's M step with the posteriors as weights), the item posterior recomputed per draw;
  the 2.5 / 97.5 percentiles, widened to contain the point value (GLAD's item difficulty is not redrawn).
- `soft`: {label: probability} per item (the soft label the exports write beside the hard one).

Workers (one row per level and worker): `accuracy` is the expected share of their labels that are right, each
label counted with the probability the model gives its value (majority: the Dirichlet posterior mean from the
OTHER workers' votes, so a worker's own vote never vouches for itself; an item no one else labelled gives 1/K);
`se` the standard deviation of a Beta(correct + 1, wrong + 1) posterior on it, and its 95% interval.

Pure: a labels frame (level, item_id, worker_id, label) in, frames out; label orders come in as a parameter.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special  # not scipy.stats: its import is ~46 MB more in every worker that builds a queue

from annotation_tasks.analysis.aggregation import ItemCounts, LabelOrders, item_counts, level_counts, split_levels

MODELS = ("majority", "dawid_skene", "glad")
PRIOR = 1.0  # symmetric Dirichlet pseudo-count per label
LEVEL = 0.95
DRAWS = 200
MAX_DRAW_CELLS = 20_000_000  # draws x labels x categories held at once: fewer draws on very large projects
ITEM_COLUMNS = ["level", "item_id", "label", "posterior", "ci_low", "ci_high", "p_majority", "n_votes", "soft"]
WORKER_COLUMNS = ["level", "worker_id", "n_labels", "accuracy", "se", "ci_low", "ci_high"]


@dataclass(frozen=True)
class Uncertainty:
    """Per-item posteriors and per-worker accuracies of one aggregation model over every level."""

    model: str
    items: pd.DataFrame  # ITEM_COLUMNS, sorted by level, item_id
    workers: pd.DataFrame  # WORKER_COLUMNS, sorted by level, worker_id


def beta_interval(a: np.ndarray, b: np.ndarray, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed interval of Beta(a, b), computed once per distinct (a, b): vote counts repeat a lot, and scipy's
    beta quantile costs microseconds each."""
    tail = (1.0 - level) / 2.0
    ua, ub, inverse = _distinct(a, b)
    low = special.betaincinv(ua, ub, tail)[inverse]
    high = special.betaincinv(ua, ub, 1.0 - tail)[inverse]
    return low.reshape(np.shape(a)), high.reshape(np.shape(a))


def _distinct(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct a, matching b, index of each input pair among them), by hashing (pandas.factorize, no sort)."""
    a, b = np.ravel(np.asarray(a, dtype=float)), np.ravel(np.asarray(b, dtype=float))
    codes_a, _ = pd.factorize(a)
    codes_b, values_b = pd.factorize(b)
    inverse, keys = pd.factorize(codes_a.astype(np.int64) * max(len(values_b), 1) + codes_b)
    first = np.zeros(len(keys), dtype=np.int64)
    first[inverse[::-1]] = np.arange(len(inverse))[::-1]  # the first input of each distinct pair
    return a[first], b[first], inverse


def _beta_sf_half(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """P(X > 1/2) for X ~ Beta(a, b), once per distinct (a, b)."""
    ua, ub, inverse = _distinct(a, b)
    return special.betaincc(ua, ub, 0.5)[inverse].reshape(np.shape(a))


def majority_posterior(counts: np.ndarray, winner: np.ndarray, prior: float = PRIOR) -> dict[str, np.ndarray]:
    """Dirichlet posterior of the winning label's share per item (counts: items x categories)."""
    counts = np.asarray(counts, dtype=float)
    alpha = counts + prior
    total = alpha.sum(axis=1)
    rows = np.arange(len(counts))
    a = alpha[rows, winner]
    b = total - a
    low, high = beta_interval(a, b)
    return {"posterior": a / total, "ci_low": low, "ci_high": high, "p_majority": _beta_sf_half(a, b),
            "soft": alpha / total[:, None]}


def _accuracy_rows(level: str, worker_codes: np.ndarray, workers: np.ndarray, p_right: np.ndarray) -> pd.DataFrame:
    n = np.bincount(worker_codes, minlength=len(workers)).astype(float)
    right = np.bincount(worker_codes, weights=p_right, minlength=len(workers))
    a, b = right + 1.0, n - right + 1.0
    low, high = beta_interval(a, b)
    return pd.DataFrame({
        "level": level, "worker_id": workers, "n_labels": n.astype(np.int64), "accuracy": right / np.maximum(n, 1),
        "se": np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1.0))), "ci_low": low, "ci_high": high,
    })


def _fit_probas(group: pd.DataFrame, ic: ItemCounts, model: str) -> tuple[np.ndarray, np.ndarray]:
    """(probabilities items x categories in ic order, the model's label column per item) from crowd-kit."""
    from crowdkit.aggregation import GLAD, DawidSkene

    from annotation_tasks.analysis.crowd_models import _task_frame

    data = _task_frame(group)
    fitted = DawidSkene(n_iter=100) if model == "dawid_skene" else GLAD()
    with warnings.catch_warnings():  # crowd-kit 1.4.2 passes arguments pandas 3 deprecates; results unchanged
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"crowdkit\.")
        warnings.filterwarnings("ignore", category=FutureWarning, module=r"crowdkit\.")
        fitted.fit(data)
    assert fitted.probas_ is not None and fitted.labels_ is not None  # set by fit
    probas = fitted.probas_.reindex(index=ic.item_ids, columns=list(ic.categories)).fillna(0.0).to_numpy(float)
    labels = fitted.labels_.reindex(ic.item_ids).astype(str)
    index = {c: k for k, c in enumerate(ic.categories)}
    return probas, np.array([index[v] for v in labels], dtype=np.int64)


def _model_interval(ic: ItemCounts, worker_codes: np.ndarray, n_workers: int, probas: np.ndarray,
                    label: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Percentiles of the label's posterior over draws of the workers' confusion matrices (see the module doc)."""
    k = probas.shape[1]
    n_labels = len(ic.label_codes)
    draws = int(max(20, min(DRAWS, MAX_DRAW_CELLS // max(n_labels * k, 1))))
    soft = np.zeros((n_workers, k, k))  # soft[w, true c, given l]
    for c in range(k):  # soft counts of (worker, given label) weighted by P(true c)
        np.add.at(soft[:, c, :], (worker_codes, ic.label_codes), probas[ic.item_codes, c])
    rng = np.random.default_rng(seed)
    confusion = rng.gamma(soft[None] + 1.0, size=(draws, *soft.shape))  # (draws, w, c, l) after normalising over l
    confusion /= confusion.sum(axis=3, keepdims=True)
    priors = rng.gamma(probas.sum(axis=0) + 1.0, size=(draws, k))
    priors /= priors.sum(axis=1, keepdims=True)
    # log P(label of row r | true c) per draw: (draws, n_labels, c)
    logp = np.log(confusion[:, worker_codes, :, ic.label_codes].transpose(1, 0, 2))
    n_items = len(ic.item_ids)
    loglik = np.zeros((draws, n_items, k))
    for c in range(k):
        for d in range(draws):
            loglik[d, :, c] = np.bincount(ic.item_codes, weights=logp[d, :, c], minlength=n_items)
    loglik += np.log(priors)[:, None, :]
    loglik -= loglik.max(axis=2, keepdims=True)
    post = np.exp(loglik)
    post /= post.sum(axis=2, keepdims=True)
    chosen = post[:, np.arange(n_items), label]  # (draws, items)
    tail = (1.0 - LEVEL) / 2.0 * 100.0
    return np.percentile(chosen, tail, axis=0), np.percentile(chosen, 100.0 - tail, axis=0)


def _level(level: str, group: pd.DataFrame, model: str, orders: LabelOrders | None,
           seed: int, with_soft: bool = True, counts: Mapping[str, ItemCounts] | None = None,
           ) -> tuple[pd.DataFrame, pd.DataFrame]:
    ic = level_counts(group, level, counts) if orders is None else item_counts(group, level, orders)
    if ic.worker_ids is not None and len(ic.worker_ids) == len(group):
        worker_codes, workers = ic.workers  # kept by the counts, shared with the report's worker tables
    else:
        worker_codes, workers = pd.factorize(group["worker_id"].to_numpy(), sort=True)
    categories = np.asarray(ic.categories, dtype=object)
    n = ic.n_per_item
    rows = np.arange(len(ic.item_ids))
    if model == "majority" or len(ic.categories) < 2 or group["label"].nunique() < 2:
        label, _tie = ic.majority
        # once per distinct row of counts (3 votes on 2 labels: 4 rows for 10^5 items), then one gather per figure
        patterns, inverse = np.unique(ic.counts, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        post = majority_posterior(patterns, label[np.unique(inverse, return_index=True)[1]])
        point, low, high, p_majority = (post[k][inverse] for k in ("posterior", "ci_low", "ci_high", "p_majority"))
        soft = post["soft"][inverse] if with_soft else None
        # the others' votes only: own vote removed from the item's counts; figured per item and category, then
        # one gather per label (no per-label temporaries: 10^6 labels made five of them, ~40 MB)
        others = (ic.counts - 1 + PRIOR) / (n - 1 + len(categories) * PRIOR)[:, None]
        p_right = others[ic.item_codes, ic.label_codes]
        del others
    else:
        soft, label = _fit_probas(group, ic, model)
        point = soft[rows, label]
        low, high = _model_interval(ic, worker_codes, len(workers), soft, label, seed)
        low, high = np.minimum(low, point), np.maximum(high, point)
        p_right = soft[ic.item_codes, ic.label_codes]
        a = ic.counts[rows, label] + PRIOR
        p_majority = _beta_sf_half(a, n + len(categories) * PRIOR - a)
    items = pd.DataFrame({  # level and label as categories: a string per item of 10^5-10^6 cost tens of MB
        "level": pd.Categorical.from_codes(np.zeros(len(rows), dtype=np.int8), [level]), "item_id": ic.item_ids,
        "label": pd.Categorical.from_codes(label, list(categories)), "posterior": point,
        "ci_low": low, "ci_high": high, "p_majority": p_majority, "n_votes": n,
        "soft": ([dict(zip(ic.categories, r, strict=True)) for r in np.round(soft, 4).tolist()]
                 if with_soft and soft is not None else None),
    }, copy=False)  # the arrays are this function's own: not copied again (~15 MB at 3 * 10^5 items)
    return items, _accuracy_rows(level, worker_codes, np.asarray(workers), p_right)


def estimate(labels: pd.DataFrame, model: str = "majority", *, orders: LabelOrders | None = None,
             seed: int = 0, with_soft: bool = True, counts: Mapping[str, ItemCounts] | None = None) -> Uncertainty:
    """Item posteriors and worker accuracies of one aggregation model, level by level (with_soft=False leaves the
    per-item soft-label dicts out: the report does not show them, and a million items build them slowly).
    `counts`: the levels' item counts of these labels already made (aggregation.counts_by_level, the report's), so
    they are not counted again (~50 MB of a 10^6-label report build's peak)."""
    if model not in MODELS:
        raise ValueError(f"uncertainty: unknown aggregation {model!r} (expected one of {', '.join(MODELS)})")
    parts = [_level(level, group, model, orders, seed, with_soft, counts) for level, group in split_levels(labels)
             if len(group)]
    if not parts:
        return Uncertainty(model, pd.DataFrame(columns=ITEM_COLUMNS), pd.DataFrame(columns=WORKER_COLUMNS))
    items = pd.concat([p[0] for p in parts], ignore_index=True)[ITEM_COLUMNS]
    workers = pd.concat([p[1] for p in parts], ignore_index=True)[WORKER_COLUMNS]
    return Uncertainty(model, items, workers)


def summary(result: Uncertainty, least_certain: int = 50) -> dict[str, object]:
    """The report's section: per level the mean posterior and the share below 0.9, the least certain items
    (item difficulty, ascending posterior) and every worker's accuracy (ability, descending)."""
    items, workers = result.items, result.workers
    levels = []
    for level, group in items.groupby("level", sort=True):
        levels.append({"level": str(level), "items": int(len(group)), "mean_posterior": float(group["posterior"].mean()),
                       "below_0_9": int((group["posterior"] < 0.9).sum())})
    # the least certain rows only are sorted: a sort of every item copied the whole table (~20 MB at 3 * 10^5)
    cut = np.partition(items["posterior"].to_numpy(), least_certain - 1)[least_certain - 1] \
        if len(items) > least_certain else np.inf
    hardest = items[items["posterior"].to_numpy() <= cut].sort_values(
        ["posterior", "level", "item_id"], kind="stable").head(least_certain)
    ability = workers.sort_values(["level", "accuracy", "worker_id"], ascending=[True, False, True], kind="stable")
    return {
        "model": result.model,
        "levels": levels,
        "items": hardest.drop(columns=["soft"]).to_dict("records"),
        "workers": ability.to_dict("records"),
    }
