"""The quality policy: gold rates, accuracy thresholds and approval rules, with per-batch overrides."""
from __future__ import annotations

from django.conf import settings

from annotation_tasks.models import Batch, Project

DEFAULT_POLICY: dict = {
    # gold mixing: more gold while a worker is new, then less
    "gold_rate_initial": 0.5,
    "gold_initial_units": 5,
    "gold_rate": 0.1,
    # thresholds on gold accuracy, once a worker has answered enough gold items
    "min_gold_items": 5,
    "qualify_accuracy": 0.8,
    "warn_accuracy": 0.7,
    "soft_block_accuracy": 0.5,
    "qualification": "factcrowd-qualified",
    "platform_block": False,
    # approval policy
    "auto_approve_days": 3,
    "auto_approve_gold_accuracy": 0.8,
}


def policy_for(target: Batch | Project | None = None) -> dict:
    """Defaults < settings.QUALITY_POLICY < the batch's settings["quality"] (per-batch overrides)."""
    policy = {**DEFAULT_POLICY, **getattr(settings, "QUALITY_POLICY", {})}
    if isinstance(target, Batch):
        policy.update((target.settings or {}).get("quality", {}))
    return policy
