"""3-way fact entailment: each atomic fact of a response is supported, contradicted or not enough info, with an
optional rationale. protocol.py: EntailmentProtocol; review.py: its review companion. The worked example of
docs/protocols.md: added by this folder, its label model (models/labels.EntailmentLabel + migration), its
Unit.Mode value, the element's folder and the contract fixtures."""
from annotation_tasks.protocols.entailment.protocol import EntailmentProtocol

__all__ = ["EntailmentProtocol"]
