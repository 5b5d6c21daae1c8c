"""The FActScore estimator (share of a response's facts the embedded scorer supports, averaged per system) against
the human FActScore, calibrated on the shared files only.

    .venv/bin/python bench/bench_factscore_estimator.py [--json] [--write]

Facts: the human atomic facts of the shared InstructGPT and ChatGPT files whose topic has its Wikipedia page in the
shared data (the QASem dev factscore sources: 9 topics; titles matched with accents folded). Each fact is scored as
the app does: BM25 top 5 passages of the topic's page on "topic fact", then the embedded scorer's statement head.
Human truth: S = supported, NS and IR not. Per response the share supported (human) and the share with score >=
t (estimator); per system their means over responses, error = estimate - human, in points.

The balanced training (0.5 = equal costs for both classes) makes the estimator strict. The calibration is one
decision threshold t for facts: chosen on one system's responses (the t whose estimate is closest to the human
score; ties to the t nearest 0.5), reported on the other (cross-fit), and the shipped value fitted on both
(scoring/data/estimator.json, which `evaluate_scorer` applies to facts). Per-system errors of all three are printed.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from annotation_tasks.analysis.factscore_calibration import fit_threshold, system_errors  # noqa: E402
from annotation_tasks.scoring.base import Claim, Reference  # noqa: E402
from annotation_tasks.scoring.embedded import EmbeddedScorer  # noqa: E402
from annotation_tasks.scoring.retrieval import BM25Index, chunk_document  # noqa: E402
from annotation_tasks.scoring.text import fold_title  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
SYSTEMS = ("InstructGPT", "ChatGPT")
ESTIMATOR = Path(__file__).resolve().parent.parent / "annotation_tasks" / "scoring" / "data" / "estimator.json"


def pages(data: Path = DATA) -> dict[str, str]:
    """{folded title: page text} of the QASem dev factscore sources."""
    out: dict[str, str] = {}
    for line in (data / "qasem_consistency" / "dev.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("dataset") == "factscore":
            out.setdefault(fold_title(record["source_id"]), " ".join(record["source"]))
    return out


def fact_rows(data: Path = DATA) -> list[dict[str, Any]]:
    """One row per human fact of a topic with a page: system, response, supported (human), score (embedded)."""
    found = pages(data)
    scorer = EmbeddedScorer()
    rows: list[dict[str, Any]] = []
    for system in SYSTEMS:
        for number, line in enumerate((data / "factscore_labeled" / f"{system}.jsonl").read_text(encoding="utf-8")
                                      .splitlines()):
            record = json.loads(line)
            page = found.get(fold_title(record["topic"]))
            if page is None or not record.get("annotations"):
                continue
            passages = chunk_document(page)
            index = BM25Index(passages)
            for sentence in record["annotations"]:
                for fact in (sentence.get("human-atomic-facts") or []) if sentence.get("is-relevant") else []:
                    top = index.top(f"{record['topic']} {fact['text']}")
                    reference = Reference.of_passages([passages[i] for i, _ in top] or passages[:1])
                    score = scorer.score_batch([(reference, Claim.fact(fact["text"], context=sentence["text"]))])[0]
                    rows.append({"system": system, "response": f"{system}:{number}", "supported": fact["label"] == "S",
                                 "score": score.value})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--write", action="store_true", help="write the fitted threshold to scoring/data/estimator.json")
    args = parser.parse_args(argv)
    rows = fact_rows()
    system = np.array([r["system"] for r in rows])
    out: dict[str, Any] = {"facts": len(rows), "responses": len({r["response"] for r in rows}),
                           "at_0.5": system_errors(rows, 0.5), "cross_fit": {}}
    for fit_on, report_on in (SYSTEMS, SYSTEMS[::-1]):
        t = fit_threshold([r for r, s in zip(rows, system, strict=True) if s == fit_on])
        out["cross_fit"][f"{fit_on}->{report_on}"] = {"threshold": t, "errors": system_errors(rows, t)}
    both = fit_threshold(rows)
    out["fitted_on_both"] = {"threshold": both, "errors": system_errors(rows, both)}
    if args.write:
        ESTIMATOR.write_text(json.dumps({"embedded": {
            "version": EmbeddedScorer().version, "fact_threshold": both,
            "fitted_on": "human facts of the shared InstructGPT and ChatGPT files whose topic has a page (QASem dev "
                         "factscore sources)", "cross_fit": out["cross_fit"], "errors": out["fitted_on_both"]["errors"],
        }}, indent=1) + "\n")
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"{out['facts']} human facts of {out['responses']} responses with a page")
    print("  at 0.5: " + ", ".join(f"{k} {v['metric']:.1f} vs {v['human']:.1f} ({v['error']:+.1f})"
                                   for k, v in out["at_0.5"].items()))
    for name, fit in [*out["cross_fit"].items(), ("both", out["fitted_on_both"])]:
        print(f"  threshold {fit['threshold']:.3f} fitted on {name}: "
              + ", ".join(f"{k} {v['metric']:.1f} vs {v['human']:.1f} ({v['error']:+.1f})" for k, v in fit["errors"].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
