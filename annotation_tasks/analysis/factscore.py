"""Human FActScore per system, computed the way Min et al. (2023) compute it from their human labels.

Rule (see ../shared/data/factscore_labeled/README.md): only generations that respond (not abstained)
are scored. A generation's score is supported facts / all its facts, where
- a relevant sentence contributes its human atomic facts with their labels (IR counts as not supported);
- a sentence marked irrelevant contributes its model atomic facts, all as not supported.
The system's FActScore is the mean over responding generations; % responding and facts per responding
generation are reported beside it. On the released files this gives 42.6 (InstructGPT) and 58.3 (ChatGPT).

Generalisation for our own projects (where crowd workers may label the splitter's facts directly): a
relevant sentence with no human facts contributes its model facts with their labels instead. Facts with
several labels take the majority (aggregation's tie rule: NS before IR before S); a fact with no label
is not counted. A responding generation with no counted fact has no score and is left out of the mean.

Inputs: responses frame (response_id, system, abstained) and facts frame, one row per (fact, label):
response_id, fact_id, kind ('model'|'human'), sentence_index, sentence_relevant, worker_id, label (None when
the fact has no label).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from annotation_tasks.analysis.aggregation import item_counts, majority_from_counts


def _fact_majorities(facts: pd.DataFrame) -> pd.DataFrame:
    """One row per fact with its majority label (None when unlabeled)."""
    per_fact = facts.drop_duplicates("fact_id")[["response_id", "fact_id", "kind", "sentence_index", "sentence_relevant"]]
    labelled = facts[facts["label"].notna()]
    if labelled.empty:
        return per_fact.assign(label=None)
    ic = item_counts(labelled.assign(item_id=labelled["fact_id"], level="fact"), "fact")
    winner, _ = majority_from_counts(ic.counts)
    majority = pd.Series(np.asarray(ic.categories, dtype=object)[winner], index=ic.item_ids)
    return per_fact.assign(label=per_fact["fact_id"].map(majority))


def counted_facts(facts: pd.DataFrame) -> pd.DataFrame:
    """The facts that enter the score, one row each: response_id, fact_id, supported (bool)."""
    if facts.empty:
        return pd.DataFrame({"response_id": [], "fact_id": [], "supported": []})
    per_fact = _fact_majorities(facts)
    relevant = per_fact["sentence_relevant"].fillna(True).astype(bool)
    is_human = per_fact["kind"].eq("human")
    sentence_key = [per_fact["response_id"], per_fact["sentence_index"]]
    sentence_has_human = is_human.groupby(sentence_key).transform("any")
    irrelevant_model = ~relevant & ~is_human
    relevant_human = relevant & is_human
    relevant_model_fallback = relevant & ~is_human & ~sentence_has_human & per_fact["label"].notna()
    counted = per_fact[irrelevant_model | (relevant_human & per_fact["label"].notna()) | relevant_model_fallback]
    supported = counted["label"].eq("S") & relevant[counted.index]
    return pd.DataFrame(
        {"response_id": counted["response_id"], "fact_id": counted["fact_id"], "supported": supported.to_numpy()}
    )


def human_factscore(responses: pd.DataFrame, facts: pd.DataFrame, by: str | None = None) -> list[dict[str, Any]]:
    """Rows per system (and per `by` value when given): factscore (0–100), percent responding,
    facts per responding response, and counts."""
    keys = ["system"] if by in (None, "system") else [by, "system"]
    counted = counted_facts(facts)
    per_response = counted.groupby("response_id").agg(n_facts=("supported", "size"), n_supported=("supported", "sum"))
    frame = responses[["response_id", "abstained", *keys]].merge(
        per_response, left_on="response_id", right_index=True, how="left"
    )
    frame["responding"] = ~frame["abstained"].fillna(False).astype(bool)
    frame["score"] = frame["n_supported"] / frame["n_facts"]
    rows: list[dict[str, Any]] = []
    for key, group in frame.groupby(keys, sort=True, dropna=False):
        key_values = key if isinstance(key, tuple) else (key,)
        responding = group[group["responding"]]
        scored = responding[responding["n_facts"].fillna(0) > 0]
        if scored.empty and responding.shape[0] == group.shape[0]:
            continue  # no fact and no abstention (e.g. a QASem-only project): no FActScore to report
        rows.append(
            {
                **{k: (None if pd.isna(v) else v) for k, v in zip(keys, key_values, strict=True)},
                "n_responses": int(len(group)),
                "n_responding": int(len(responding)),
                "percent_responding": float(len(responding) / len(group) * 100.0),
                "n_scored": int(len(scored)),
                "factscore": float(scored["score"].mean() * 100.0) if len(scored) else None,
                "facts_per_response": float(responding["n_facts"].fillna(0).mean()) if len(responding) else None,
                "n_facts": int(responding["n_facts"].fillna(0).sum()),
            }
        )
    return rows
