"""Importers of the published formats and plain items: read + validate a whole file, then write it in one go.

Each format module has ``read(path, ...) -> records`` (raises ImportFormatError naming file, line and field)
and ``write(project, records, file_name) -> ImportResult``; annotation_tasks.services.imports wraps them in a
transaction and creates the project.
"""
from annotation_tasks.importers.base import ImportFormatError
from annotation_tasks.importers.common import ImportResult

__all__ = ["ImportFormatError", "ImportResult"]
