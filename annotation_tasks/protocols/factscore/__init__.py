"""The FActScore protocol: atomic facts labelled S / NS / IR, the decomposition fixed by the worker.

protocol.py: FactScoreProtocol; review.py: its review companion; evidence.py: the knowledge passages shown per
fact (only this protocol shows them).
"""
from annotation_tasks.protocols.factscore.protocol import FactScoreProtocol

__all__ = ["FactScoreProtocol"]
