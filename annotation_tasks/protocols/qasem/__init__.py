"""The QASem protocol: span coverage, QA support, optionally a pairwise comparison.

protocol.py: QASemProtocol (payload items, plan, validation, writing, declarations); review.py: its review
companion. The names other code reads are re-exported here.
"""
from annotation_tasks.protocols.qasem.protocol import (
    LATER_PART_ATTR,
    QASemProtocol,
    crowd_qas,
    pairwise_aspects,
    pairwise_section,
    qa_items,
    qa_items_of,
)

__all__ = ["LATER_PART_ATTR", "QASemProtocol", "crowd_qas", "pairwise_aspects", "pairwise_section", "qa_items",
           "qa_items_of"]
