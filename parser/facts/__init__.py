"""Atomic facts: the embedded rule splitter (`embedded`), the FActScore LLM procedure (`llm`), and the evaluation
against FActScore's human-revised facts (`evaluation`). The backend interface and registry stay in
`parser/atomic_facts.py`."""
