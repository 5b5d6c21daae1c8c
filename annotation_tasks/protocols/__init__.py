"""Annotation protocols as plug-ins: one package per Unit.Mode behind AnnotationProtocol (base.py).

- qasem/: span coverage, QA support, optional pairwise comparison
- factscore/: atomic-fact labeling with edited / split / merged / added human facts
- validation/: the expert QA-validation pre-step
- ragas/: Ragas' human protocol (answers and contexts compared)

Shared: base.py (the interface and its declarations), registry.py, payload.py (the unit payload), fields.py (the
validators' checks), display.py (shown text), review.py (the review companions' interface), manifest.py.
How to add one: docs/protocols.md.
"""
from annotation_tasks.protocols.base import (
    AnnotationProtocol,
    Errors,
    Key,
    LabelLevel,
    Shown,
    Step,
    Submission,
    Vocabulary,
)
from annotation_tasks.protocols.registry import (
    UnknownProtocol,
    available_protocols,
    get_protocol,
    label_level,
    label_levels,
    label_order,
    mode_for_steps,
    register_protocol,
    vocabulary,
)

__all__ = [
    "AnnotationProtocol", "Errors", "Key", "LabelLevel", "Shown", "Step", "Submission", "UnknownProtocol",
    "Vocabulary", "available_protocols", "get_protocol", "label_level", "label_levels", "label_order",
    "mode_for_steps", "register_protocol", "vocabulary",
]
