"""The expert QA-validation pre-step: protocol.py (ValidationProtocol) and review.py (its review companion)."""
from annotation_tasks.protocols.validation.protocol import ValidationProtocol

__all__ = ["ValidationProtocol"]
