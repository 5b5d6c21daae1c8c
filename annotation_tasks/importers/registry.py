"""The import formats: format name -> its reader/writer module, the service that runs it, the project steps a
project it creates gets, and what a caller must say. Read by the CLI (`manage.py import_file`), the upload job
(services.uploads), the upload serializer and, through the manifest (GET /api/protocols/, `importers`), the
dashboard's upload form: adding a format is its module and its entry here.

Light on purpose (the web process imports it for the serializer): the service is named by path and imported when
an import runs.
"""
from __future__ import annotations

from dataclasses import dataclass

from annotation_tasks.importers import factscore, qasem_release, wikieval
from annotation_tasks.models.projects import DEFAULT_PROTOCOL


@dataclass(frozen=True)
class ImportFormat:
    """One importable format."""

    value: str
    label: str
    module: str
    """The importers module with read (validate the whole file) and write (in one go)."""
    service: str
    """"module:function" that runs read + write in one transaction: (path or [paths], project name, **options)."""
    steps: tuple[str, ...]
    """The steps of a project the import creates; () when it needs the project to exist (or makes an
    analysis-only one)."""
    help: str = ""
    fields: tuple[str, ...] = ()
    """Options the caller may give (the dashboard asks for them): passed to the service by name."""
    suffixes: tuple[str, ...] = (".jsonl", ".json", ".csv")
    """The file names an upload must end with (empty: any; the reader says what is wrong inside)."""
    many_files: bool = False
    """The service takes a list of paths."""


IMPORTERS: dict[str, ImportFormat] = {f.value: f for f in (
    ImportFormat("items", "Plain items (JSONL / CSV)", "annotation_tasks.importers.items",
                 "annotation_tasks.services.imports:import_items", tuple(DEFAULT_PROTOCOL),
                 "Sources with their responses (plain text), to parse and annotate."),
    ImportFormat("qasem-release", "QASem consistency release", "annotation_tasks.importers.qasem_release",
                 "annotation_tasks.services.imports:import_qasem_release", tuple(qasem_release.PROTOCOL),
                 "The published release: sources, responses, QAs, spans and the crowd's labels.", suffixes=()),
    ImportFormat("factscore", "FActScore labeled", "annotation_tasks.importers.factscore",
                 "annotation_tasks.services.imports:import_factscore", tuple(factscore.PROTOCOL),
                 "A FActScore labeled file: one system's biographies, sentences and labeled atomic facts.",
                 fields=("system",), suffixes=(), many_files=True),
    ImportFormat("wikieval", "WikiEval (Ragas)", "annotation_tasks.importers.wikieval",
                 "annotation_tasks.services.imports:import_wikieval", tuple(wikieval.PROTOCOL),
                 "Per question its contexts and its grounded, ungrounded and poor answers (JSONL or CSV)."),
    ImportFormat("atomic-facts", "Atomic facts (JSONL)", "annotation_tasks.importers.atomic_facts",
                 "annotation_tasks.services.imports:import_facts", (),
                 "Atomic facts made elsewhere, per response and sentence, onto this project's responses.",
                 suffixes=()),
    ImportFormat("knowledge", "Knowledge source (JSONL of title, text)", "annotation_tasks.services.knowledge",
                 "annotation_tasks.services.scoring_panel:import_knowledge_file", (),
                 "Documents (e.g. the topics' Wikipedia pages; FActScore's format) cut into passages; the best "
                 "passages for every atomic fact are retrieved for the scorers and the workers' reference panel.",
                 suffixes=(".jsonl", ".json")),
    ImportFormat("labels-long", "Long-form crowd labels (CSV / JSONL)", "annotation_tasks.importers.labels_long",
                 "annotation_tasks.services.campaigns:import_labels", (),
                 "A past campaign's raw labels: item_id, worker_id, label and groupings, one row per label "
                 "(an analysis-only project)."),
)}
