"""FactCrowd's QA-SRL / QANom parser: text in, sentences and predicate frames out.

Independent of Django on purpose: the web app, the CLI, the evaluation and the benchmarks all call the same
code, and a backend can be swapped (embedded spaCy rules, T5) without the rest of the app knowing which ran.
"""
from parser.types import Answer, ParsedText, PredicateFrame, QAPair, Sentence, Token

__all__ = ["Answer", "ParsedText", "PredicateFrame", "QAPair", "Sentence", "Token"]
