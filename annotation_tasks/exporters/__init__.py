"""Streaming exporters, one module per format; each has ``export_lines(project, ...) -> Iterator[str]``.

- qasem_release: the QASemConsistency release schema with raw votes (+ majority per QA and span)
- factscore: the FActScore labeled schema
- qa_jsonl: one flat line per QA with majority label, votes and a dev/test split by source
"""
