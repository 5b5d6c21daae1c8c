"""Study design to a target precision: the fewest labels whose 95% interval on a metric is narrower than W.

From a pilot's votes (or, for agreement, stated priors), for each number of annotators per item m the smallest
number of items n such that the interval the report would give is narrower than W in at least `target` (95%) of
simulated studies; the design with the fewest labels wins (ties: fewer annotators). Then an independent check draws
the recommended design many more times (another seed) and reports `simulated_coverage`, the share of draws whose
interval is narrower than W.

A simulated study resamples the pilot: items (or, per system, whole responses with all their QAs or facts) with
replacement, and m votes per item drawn from that item's pilot votes, without replacement while the item has m
of them (a hypergeometric draw), else with replacement (a binomial on the item's share). Before a pilot, stated
priors (share supported p, agreement kappa) give items whose vote probability is Beta-distributed with mean p and
intra-class correlation kappa (the beta-binomial model under which Fleiss' kappa is kappa).

Metrics and their intervals (binary labels: supported / covered / S against everything else):
- kappa: Fleiss' kappa, jackknife over items (estimate +- 1.96 SE); alpha: Krippendorff's nominal alpha, same.
- consistency: per system, the mean over responses of the share of QAs whose majority of m votes is supported
  (a tie is not supported), in points, +- 1.96 SD / sqrt(n) over responses; factscore: the same over facts.
  Per-system metrics need every system's interval narrower than W; n is responses per system.
Pure numpy: counts in, dicts out.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

METRICS = ("kappa", "alpha", "consistency", "factscore")
PER_SYSTEM = ("consistency", "factscore")
Z = 1.959963984540054
MAX_ANNOTATORS = 9
MAX_ITEMS = 200_000
SEARCH_DRAWS = 200
CHECK_DRAWS = 1000


class DesignError(ValueError):
    """A design that cannot be planned from the arguments (names the argument)."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name


@dataclass(frozen=True)
class Pilot:
    """Positive votes and votes per item; for per-system metrics each item's response and each response's system."""

    yes: np.ndarray  # (items,) positive votes
    votes: np.ndarray  # (items,) votes
    response: np.ndarray | None = None  # (items,) response index 0..R-1, items grouped by response
    system: np.ndarray | None = None  # (R,) system name of each response
    seconds_per_label: float | None = None

    def __post_init__(self) -> None:
        if len(self.yes) != len(self.votes) or (self.votes < 1).any() or (self.yes > self.votes).any():
            raise DesignError("pilot", "each item needs at least one vote and no more positive votes than votes")


@dataclass(frozen=True)
class Priors:
    """Stated expectations before a pilot: share of positive labels and chance-corrected agreement."""

    supported: float
    kappa: float


@dataclass
class _Sampler:
    """Draws simulated studies of one pool of items (one system's responses, or all items)."""

    yes: np.ndarray
    votes: np.ndarray
    starts: np.ndarray | None = None  # per response: first item; None = items are the units
    counts: np.ndarray | None = None  # per response: items
    priors: Priors | None = None
    rng: np.random.Generator = field(default_factory=np.random.default_rng)

    @property
    def units(self) -> int:
        return len(self.starts) if self.starts is not None else len(self.yes)

    def draw(self, n: int, m: int) -> tuple[np.ndarray, np.ndarray | None]:
        """(positive votes of m per drawn item, response position of each item or None)."""
        if self.priors is not None:
            p, rho = self.priors.supported, min(max(self.priors.kappa, 1e-3), 0.999)
            theta = self.rng.beta(p * (1 - rho) / rho, (1 - p) * (1 - rho) / rho, size=n)
            return self.rng.binomial(m, theta), None
        units = self.rng.integers(0, self.units, size=n)
        owner = None
        if self.starts is not None and self.counts is not None:
            sizes = self.counts[units]
            owner = np.repeat(np.arange(n), sizes)
            offsets = np.arange(len(owner)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
            items = np.repeat(self.starts[units], sizes) + offsets
        else:
            items = units
        yes, votes = self.yes[items], self.votes[items]
        enough = votes >= m
        k = np.empty(len(items), dtype=np.int64)
        k[enough] = self.rng.hypergeometric(yes[enough], votes[enough] - yes[enough], m)
        k[~enough] = self.rng.binomial(m, yes[~enough] / votes[~enough])
        return k, owner


def _jackknife(values: np.ndarray) -> float:
    n = len(values)
    if n < 2 or not np.isfinite(values).all():
        return float("inf")  # too few items, or a leave-one-out sample without both labels
    return float(np.sqrt((n - 1) / n * ((values - values.mean()) ** 2).sum()))


def fleiss_kappa(k: np.ndarray, m: int) -> tuple[float, float]:
    """(Fleiss' kappa, jackknife SE) of n items with k positive votes of m each (vectorised leave-one-out)."""
    n = len(k)
    agree = (k * (k - 1) + (m - k) * (m - k - 1)) / (m * (m - 1))
    total_agree, total_yes = agree.sum(), k.sum()

    def kappa(p_bar: np.ndarray | float, p: np.ndarray | float) -> Any:
        pe = p ** 2 + (1 - p) ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            return (p_bar - pe) / (1 - pe)

    value = kappa(total_agree / n, total_yes / (n * m))
    loo = kappa((total_agree - agree) / (n - 1), (total_yes - k) / ((n - 1) * m)) if n > 1 else np.array([value])
    return float(value), _jackknife(np.asarray(loo, dtype=float))


def kripp_alpha(k: np.ndarray, m: int) -> tuple[float, float]:
    """(Krippendorff's nominal alpha, jackknife SE) of n items with k positive votes of m each."""
    n = len(k)
    pairs = k * (m - k) / (m - 1)  # each item's disagreeing pairs (coincidence units)

    def alpha(pair_sum: np.ndarray | float, yes: np.ndarray | float, n_values: np.ndarray | float) -> Any:
        no = n_values - yes
        with np.errstate(divide="ignore", invalid="ignore"):
            return 1 - (n_values - 1) * pair_sum / (yes * no)

    value = alpha(pairs.sum(), k.sum(), n * m)
    loo = alpha(pairs.sum() - pairs, k.sum() - k, (n - 1) * m) if n > 1 else np.array([value])
    return float(value), _jackknife(np.asarray(loo, dtype=float))


def share_supported(k: np.ndarray, owner: np.ndarray, n: int, m: int) -> tuple[float, float]:
    """(mean over responses of the share of items whose m-vote majority is positive, in points; its SE)."""
    supported = (2 * k > m).astype(float)
    per = np.bincount(owner, weights=supported, minlength=n) / np.maximum(np.bincount(owner, minlength=n), 1) * 100
    return float(per.mean()), float(per.std(ddof=1) / np.sqrt(n)) if n > 1 else float("inf")


def interval_width(metric: str, k: np.ndarray, owner: np.ndarray | None, n: int, m: int) -> float:
    if metric == "kappa":
        _v, se = fleiss_kappa(k, m)
    elif metric == "alpha":
        _v, se = kripp_alpha(k, m)
    else:
        _v, se = share_supported(k, owner if owner is not None else np.arange(n), n, m)
    return 2 * Z * se if np.isfinite(se) else float("inf")


def coverage(sampler: _Sampler, metric: str, n: int, m: int, width: float, draws: int) -> float:
    """Share of `draws` simulated studies of n units and m annotators whose interval is narrower than width."""
    hits = 0
    for _ in range(draws):
        k, owner = sampler.draw(n, m)
        hits += interval_width(metric, k, owner, n, m) < width
    return hits / draws


def smallest_n(sampler: _Sampler, metric: str, m: int, width: float, target: float, draws: int) -> int | None:
    """The fewest units reaching `target` coverage (doubling, then bisection); None beyond MAX_ITEMS."""
    def ok(n: int) -> bool:
        return coverage(sampler, metric, n, m, width, draws) >= target

    low, high = 1, 4
    while not ok(high):
        low, high = high, high * 2
        if high > MAX_ITEMS:
            return None
    while high - low > max(1, high // 50):  # within 2%: the check at the end says what it covers
        mid = (low + high) // 2
        low, high = (low, mid) if ok(mid) else (mid, high)
    return high


def _samplers(pilot: Pilot | None, priors: Priors | None, metric: str, seed: int) -> dict[str, _Sampler]:
    """One sampler per pool: 'all' for agreement; one per system for per-system metrics."""
    rng = np.random.default_rng(seed)
    if pilot is None:
        if priors is None or metric in PER_SYSTEM:
            raise DesignError("pilot", f"{metric} needs a pilot's labels" if priors else "give a pilot or priors")
        return {"all": _Sampler(np.zeros(0), np.zeros(0), priors=priors, rng=rng)}
    if metric not in PER_SYSTEM:
        if pilot.yes.sum() == 0 or (pilot.yes == pilot.votes).all():
            raise DesignError("pilot", "every pilot vote is the same label: agreement cannot be estimated from it")
        if (pilot.votes < 2).all():
            raise DesignError("pilot", "agreement needs items with two votes or more")
        return {"all": _Sampler(pilot.yes, pilot.votes, rng=rng)}
    if pilot.response is None or pilot.system is None:
        raise DesignError("pilot", f"{metric} needs each item's response and system")
    out = {}
    starts_all = np.searchsorted(pilot.response, np.arange(len(pilot.system)))
    counts_all = np.bincount(pilot.response, minlength=len(pilot.system))
    for system in sorted(set(pilot.system.tolist())):
        chosen = np.flatnonzero((pilot.system == system) & (counts_all > 0))
        if len(chosen) >= 2:
            out[str(system)] = _Sampler(pilot.yes, pilot.votes, starts_all[chosen], counts_all[chosen], rng=rng)
    if not out:
        raise DesignError("pilot", "no system has two responses with labels")
    return out


def plan(metric: str, width: float, *, pilot: Pilot | None = None, priors: Priors | None = None,
         seconds_per_label: float = 15.0, pay_per_hour: float = 12.0, budget: float | None = None,
         annotators: range | None = None, target: float = 0.95, seed: int = 0,
         search_draws: int = SEARCH_DRAWS, check_draws: int = CHECK_DRAWS) -> dict[str, Any]:
    """The recommended design and its simulated coverage (see the module doc)."""
    if metric not in METRICS:
        raise DesignError("metric", f"must be one of {', '.join(METRICS)}")
    if not width > 0:
        raise DesignError("target_ci", "must be a positive width")
    if metric in ("kappa", "alpha") and width >= 2 or metric in PER_SYSTEM and width >= 100:
        raise DesignError("target_ci", "wider than the metric's range: kappa/alpha in [-1, 1], shares in points")
    if budget is not None and budget <= 0:
        raise DesignError("budget", "must be a positive amount")
    if seconds_per_label <= 0 or pay_per_hour < 0:
        raise DesignError("seconds_per_label", "must be positive (and pay_per_hour not negative)")
    agreement = metric in ("kappa", "alpha")
    choices = annotators or range(2 if agreement else 1, MAX_ANNOTATORS + 1)
    samplers = _samplers(pilot, priors, metric, seed)
    per_unit = {name: float(s.counts.mean()) if s.counts is not None else 1.0 for name, s in samplers.items()}
    candidates: list[dict[str, Any]] = []
    for m in choices:
        ns = {name: smallest_n(s, metric, m, width, target, search_draws) for name, s in samplers.items()}
        if any(v is None for v in ns.values()):
            continue
        n = max(v for v in ns.values() if v is not None)
        labels = m * n * sum(per_unit.values())
        candidates.append({"annotators_per_item": m, "items": n, "labels": int(round(labels)), "per_pool": ns})
    if not candidates:
        raise DesignError("target_ci", f"no design up to {MAX_ITEMS} items reaches a width of {width}")
    best: dict[str, Any] = min(candidates, key=lambda c: (c["labels"], c["annotators_per_item"]))
    check_rng = np.random.default_rng(seed + 1_000_003)
    shares = []
    for sampler in samplers.values():
        sampler.rng = check_rng
        shares.append(coverage(sampler, metric, best["items"], best["annotators_per_item"], width, check_draws))
    hours = best["labels"] * seconds_per_label / 3600
    cost = hours * pay_per_hour
    return {
        "metric": metric,
        "target_ci": width,
        "annotators_per_item": best["annotators_per_item"],
        "items": best["items"],
        "items_are": "responses per system" if metric in PER_SYSTEM else "items",
        "systems": sorted(samplers) if metric in PER_SYSTEM else None,
        "labels": best["labels"],
        "hours": round(hours, 2),
        "cost": round(cost, 2),
        "budget": budget,
        "within_budget": None if budget is None else cost <= budget,
        "simulated_coverage": min(shares),
        "simulated_draws": check_draws,
        "source": "pilot" if pilot is not None else "priors",
        "seconds_per_label": seconds_per_label,
        "pay_per_hour": pay_per_hour,
        "alternatives": [{k: v for k, v in c.items() if k != "per_pool"} for c in candidates],
    }

