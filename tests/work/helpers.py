"""Complete, valid submissions built from a unit payload and its plan (what a careful worker would send)."""
from __future__ import annotations


def qasem_labels(payload: dict, uncovered: set[int] = frozenset(), unsupported: set[int] = frozenset(),
                 pairwise: int | None = 2) -> dict:
    spans, qas = [], []
    for r in payload["responses"]:
        derived = set()
        for s in r["spans"]:
            covered = s["id"] not in uncovered
            spans.append({"span_id": s["id"], "covered": covered})
            if not covered:
                derived.update(s["qa_ids"])
        for q in r["qas"]:
            if q["id"] in derived:
                qas.append({"qa_id": q["id"], "supported": False, "derived_from_span": True, "note": ""})
            else:
                qas.append({"qa_id": q["id"], "supported": q["id"] not in unsupported, "derived_from_span": False,
                            "note": ""})
    labels = {"spans": spans, "qas": qas}
    compare = [section for section in payload["plan"] if section["kind"] == "pairwise"]
    if pairwise is not None and compare:
        labels["pairwise"] = [{"aspect": a, "score": pairwise} for a in compare[0]["aspects"]]
    return labels
