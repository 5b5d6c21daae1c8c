"""Annotation protocols as plug-ins: one module per Unit.Mode behind AnnotationProtocol (base.py).

- qasem: span coverage, QA support, optional pairwise comparison
- factscore: atomic-fact labeling with edited / split / merged / added human facts
- validation: the expert QA-validation pre-step

How to add one: docs/protocols.md.
"""
from annotation_tasks.protocols.base import AnnotationProtocol, Errors, LabelLevel, Shown, Submission
from annotation_tasks.protocols.registry import (
    UnknownProtocol,
    available_protocols,
    get_protocol,
    label_level,
    label_levels,
    register_protocol,
)

__all__ = [
    "AnnotationProtocol", "Errors", "LabelLevel", "Shown", "Submission", "UnknownProtocol",
    "available_protocols", "get_protocol", "label_level", "label_levels", "register_protocol",
]
