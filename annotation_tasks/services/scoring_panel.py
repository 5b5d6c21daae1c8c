"""What the dashboard's scoring card needs: which scorers are configured here, what was scored and imported, and the
knowledge-source import the upload job runs (importers.registry's "knowledge" format).

Why: scoring (`manage.py score`) and knowledge sources (`manage.py import_knowledge`) were command-line only. The
card starts the existing Jobs instead of new machinery: a score Job (services.scoring.start_score_job: resumable,
progress per chunk) and an import Job (services.uploads: the file kept, located errors, nothing written on a bad
line) whose service is import_knowledge_file below: import the corpus, then retrieve passages for every fact.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db.models import Count

from annotation_tasks.importers.common import ImportResult
from annotation_tasks.models import KnowledgeSource, Project, RetrievedPassage
from annotation_tasks.scoring import registry
from annotation_tasks.services import knowledge, scoring


def scorer_choices() -> list[dict[str, Any]]:
    """Every registered scorer: {name, configured, why, default}; `why` says which settings an unconfigured one
    lacks (nothing is loaded: an NLI model is only read by the worker that scores)."""
    out = []
    for name in registry.available_scorers():
        if name == registry.IMPORTED:
            continue
        try:
            registry.scorer_options(name, lambda setting: getattr(settings, setting, None))
            configured, why = True, ""
        except ValueError as exc:
            configured, why = False, f"{exc} (docs/scoring.md)"
        out.append({"name": name, "configured": configured, "why": why, "default": name == registry.DEFAULT_SCORER})
    return out


def panel(project: Project) -> dict[str, Any]:
    """The card's state: scorers, scores present per (scorer, version), knowledge sources and retrieval coverage."""
    sources = (KnowledgeSource.objects.filter(project=project).annotate(n=Count("passages")).order_by("id"))
    return {
        "scorers": scorer_choices(),
        "default": registry.DEFAULT_SCORER,
        "scores": [{"scorer": s, "version": v, "items": n} for s, v, n in scoring.iter_versions(project)],
        "knowledge": [{"name": k.name, "file_name": k.file_name, "passages": k.n, "created_at": k.created_at}
                      for k in sources],
        "facts_with_passages": RetrievedPassage.objects.filter(fact__response__project=project)
        .values("fact_id").distinct().count(),
    }


@dataclass
class KnowledgeImportResult(ImportResult):
    """An import result that also says what retrieval found."""

    retrieval: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        r = self.retrieval
        if not r:
            return super().summary()
        return (f"{super().summary()}; passages retrieved for {r.get('with_passages', 0)} of {r.get('facts', 0)} "
                f"facts ({r.get('topics_matched', 0)} topics with their own document)")


def import_knowledge_file(path: str | Path, project_name: str) -> KnowledgeImportResult:
    """The upload job's "knowledge" format: import the JSONL corpus ({title, text} a line; located errors, nothing
    written on a bad line; the same file name twice is skipped) and retrieve the best passages for every fact."""
    path = Path(path)
    try:
        source, passages, created = knowledge.import_knowledge(path, project_name)
        retrieval = knowledge.retrieve_for_facts(project_name)
    except knowledge.KnowledgeError as exc:
        from annotation_tasks.importers.base import ImportFormatError

        raise ImportFormatError(path.name, None, None, str(exc)) from exc
    documents = source.passages.values("title").distinct().count()
    result = KnowledgeImportResult(file=path.name, lines=documents, skipped=0 if created else documents,
                                   retrieval=retrieval)
    if created:
        result.created.update({"KnowledgeSource": 1, "Passage": passages})
    return result
