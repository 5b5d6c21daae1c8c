"""Automatic scores s(reference, claim) in [0, 1] for QAs, atomic facts and statements (no Django here).

base: Reference, Claim, Score, the Scorer protocol · registry: scorers by name · text, features: lexical
alignment · overlap (baseline), embedded (default, JSON coefficients), nli (local cross-encoder), llm
(OpenAI-compatible endpoint) · imported_file: reading scores computed elsewhere · retrieval: BM25 passages.
"""
