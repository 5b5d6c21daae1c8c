"""Crowd platforms behind one interface. Nothing outside this package knows which platform is in use.

Use `get_provider(name)`; providers: "local" (our own annotators, the default), "mturk" (MTurk-compatible
endpoints only since MTurk's closure), "prolific" (one study per batch), "panel" (other panels by URL parameters).
"""
from annotation_tasks.crowd.base import (
    CostEstimate,
    CrowdProvider,
    EntryCheck,
    EntryContext,
    EntryVerdict,
    ProviderError,
    SubmissionRecord,
)
from annotation_tasks.crowd.registry import available_providers, get_provider

__all__ = [
    "CostEstimate",
    "CrowdProvider",
    "EntryCheck",
    "EntryContext",
    "EntryVerdict",
    "ProviderError",
    "SubmissionRecord",
    "available_providers",
    "get_provider",
]
