"""Quality control: gold mixing, per-worker metrics, the policy, logged decisions and what the policy decides.

- policy: DEFAULT_POLICY and per-batch overrides (policy_for)
- gold: how often a worker gets gold, and gold mixed into platform batches
- metrics: gold accuracy, agreement, units done, time on task (labels and gold from services.frames)
- decision_log: every platform action recorded before the call, with a request token, claimed, done once
- decisions: approve, reject, bonus; qualify, warn, soft-block, block, unblock (in one project: standing,
  blocked_in); reverse_decision
- thresholds: worker states by gold accuracy (evaluate_workers), approval of submitted work

Callers use the package (`from annotation_tasks.services import quality`); the names below are its API.
"""
from annotation_tasks.services.quality.decision_log import CLAIM_LEASE, DecisionInProgress, QualityError
from annotation_tasks.services.quality.decisions import (
    approve,
    block,
    blocked_in,
    grant_qualification,
    pay_bonus,
    reject,
    reverse_decision,
    revoke_qualification,
    soft_block,
    standing,
    unblock,
    warn,
)
from annotation_tasks.services.quality.gold import (
    gold_first,
    gold_rate,
    gold_source_ids,
    mix_gold,
    should_serve_gold,
    units_done,
)
from annotation_tasks.services.quality.metrics import WorkerMetrics, worker_metrics
from annotation_tasks.services.quality.policy import DEFAULT_POLICY, policy_for
from annotation_tasks.services.quality.thresholds import apply_approval_policy, evaluate_workers

__all__ = [
    "CLAIM_LEASE",
    "DEFAULT_POLICY",
    "DecisionInProgress",
    "QualityError",
    "WorkerMetrics",
    "apply_approval_policy",
    "approve",
    "block",
    "blocked_in",
    "evaluate_workers",
    "gold_first",
    "gold_rate",
    "gold_source_ids",
    "grant_qualification",
    "mix_gold",
    "pay_bonus",
    "policy_for",
    "reject",
    "reverse_decision",
    "revoke_qualification",
    "should_serve_gold",
    "soft_block",
    "standing",
    "unblock",
    "units_done",
    "warn",
    "worker_metrics",
]
