"""Ragas' human protocol (WikiEval): protocol.py (RagasProtocol, comparisons) and review.py (its companion)."""
from annotation_tasks.protocols.ragas.protocol import RagasProtocol, comparisons

__all__ = ["RagasProtocol", "comparisons"]
