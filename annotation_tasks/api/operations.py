"""Operations on a project's data, routed under /api/projects/<id>/: upload (import), parse, report, export.

Each only translates HTTP to a service call: imports run as a background Job (services.uploads), parsing
as a Job (services.parsing), the report is services.reports' dict (what `report --json` prints), and
exports stream the exporters' lines (the same lines `export` writes).
"""
from __future__ import annotations

from collections.abc import Iterator

from django.http import FileResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from annotation_tasks.api.serializers import (
    ExportQuerySerializer,
    JobSerializer,
    ParseRequestSerializer,
    UploadSerializer,
)
from annotation_tasks.services import exports

# What a download can be: every line format of services.exports and the dataset folder (as a zip).
EXPORT_FORMATS = (*exports.FORMATS, *exports.DATASET_FORMATS)
AGGREGATIONS = exports.AGGREGATIONS


class ProjectOperationsMixin:
    """Actions of ProjectViewSet that run the pipeline; ProjectAccess limits them to the project's researchers."""

    @extend_schema(request={"multipart/form-data": UploadSerializer}, responses={202: JobSerializer})
    @action(detail=True, methods=["post"], parser_classes=[MultiPartParser, FormParser],
            pagination_class=None, filter_backends=[])
    def upload(self, request: Request, pk: str | None = None) -> Response:
        """Upload a file (plain items JSONL/CSV, a QASem release, FActScore) and import it in the background.

        All or nothing: when any line is wrong the Job fails with errors naming file, line and field.
        """
        project = self.get_object()
        payload = UploadSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        from annotation_tasks.services import uploads

        try:
            job = uploads.start_import_job(
                project, payload.validated_data["file"], payload.validated_data["format"],
                system=payload.validated_data["system"], user=request.user,
            )
        except uploads.UploadError as exc:
            raise ValidationError({"file": str(exc)}) from exc
        return Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=ParseRequestSerializer, responses={
        202: JobSerializer,
        409: OpenApiResponse(description="A parse Job of the project is queued or running: {detail, job}."),
    })
    @action(detail=True, methods=["post"], pagination_class=None, filter_backends=[])
    def parse(self, request: Request, pk: str | None = None) -> Response:
        """Start parsing the project's unparsed responses (QASem QAs, spans); watch the Job's progress."""
        project = self.get_object()
        payload = ParseRequestSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        from annotation_tasks.services import parsing

        try:
            job = parsing.start_parse_job(project, backend=payload.validated_data["backend"] or None, user=request.user,
                                          only_unparsed=not payload.validated_data["reparse"])
        except parsing.ParseRunning as exc:
            return Response({"detail": str(exc), "job": JobSerializer(exc.job).data}, status=status.HTTP_409_CONFLICT)
        except ValueError as exc:
            raise ValidationError({"backend": str(exc)}) from exc
        return Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        parameters=[
            OpenApiParameter("by", str, required=False, enum=["dataset", "system", "split"]),
            OpenApiParameter("section", str, required=False, description=(
                "summary: counts, agreement, unlabelled systems, time on task and adjudication from SQL counts "
                "(`partial`: true; `details` names what section=details adds), or, where those do not apply (a "
                "breakdown, a campaign), the full build as details gives it; details: the full report with each "
                "table cut to page_size rows (`tables` gives their lengths); a table name (workers, confusion, "
                "agreement, ...): one page of it. Absent: the whole report.")),
            OpenApiParameter("page", int, required=False), OpenApiParameter("page_size", int, required=False),
        ],
        responses={200: {"type": "object", "additionalProperties": True}},
    )
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def report(self, request: Request, pk: str | None = None) -> Response:
        """The project report (agreement, worker agreement, consistency, human FActScore): `report --json`.
        With ?section= it comes in parts: the summary from SQL counts, then the details and pages of its tables
        from one cached build."""
        project = self.get_object()
        from annotation_tasks.services import reports

        by = request.query_params.get("by") or None
        section = request.query_params.get("section") or None
        if section is None:
            try:
                return Response(reports.build_report(project, by=by))
            except reports.ReportError as exc:
                raise ValidationError({"by": str(exc)}) from exc
        if section not in reports.SECTIONS:
            raise ValidationError({"section": f"must be one of {', '.join(reports.SECTIONS)}"})
        page, page_size = _whole(request, "page", 1, 10**6), _whole(request, "page_size", 50, 500)
        from annotation_tasks.services import derived

        if section == "summary" and (cheap := reports.summary(project, by)) is not None:
            return Response(cheap)  # issue 25 item 2: no labels frame; the rest comes with section=details

        try:  # a large project's report is built by a Celery task (services.derived): none kept yet says so
            report = reports.cached_report(project, by=by, background=True)
        except reports.ReportError as exc:
            raise ValidationError({"by": str(exc)}) from exc
        except derived.Building:
            return Response({"building": True, "section": section, "by": by})
        try:
            return Response(reports.report_section(report, section, page, page_size))
        except reports.ReportError as exc:
            raise ValidationError({"page": str(exc)}) from exc

    @extend_schema(request=ExportQuerySerializer, responses={202: JobSerializer})
    @action(detail=True, methods=["post"], url_path="export-job", pagination_class=None, filter_backends=[])
    def export_job(self, request: Request, pk: str | None = None) -> Response:
        """Start an export as a background Job (the same options as GET export): answers 202 at once; the Job
        shows progress, and once done its result's `download` (GET /api/jobs/<id>/download/) serves the file.
        For the CSV and the dataset zip, which cannot stream (two passes; a folder)."""
        project = self.get_object()
        query = ExportQuerySerializer(data={k: v for k, v in request.data.items() if v != ""})
        query.is_valid(raise_exception=True)
        from annotation_tasks.services import export_jobs

        try:
            job = export_jobs.start_export_job(project, query.validated_data["export_format"],
                                               as_csv=query.validated_data["file"] == "csv", user=request.user,
                                               **query.exporter_options())
        except exports.ExportError as exc:
            raise ValidationError({"export_format": str(exc)}) from exc
        return Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        parameters=[ExportQuerySerializer],
        responses={(200, "application/jsonl"): OpenApiResponse(OpenApiTypes.BINARY, description="JSON lines"),
                   (200, "text/csv"): OpenApiResponse(OpenApiTypes.BINARY, description="CSV"),
                   (200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY, description="hf-dataset folder")},
    )
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def export(self, request: Request, pk: str | None = None) -> StreamingHttpResponse | FileResponse:
        """Download an export: JSON lines streamed line by line (byte-identical to `manage.py export`), its CSV,
        or a Hugging Face dataset folder as a zip (what `export --format hf-dataset` writes)."""
        project = self.get_object()
        # an empty parameter means its default, as when it is left out
        query = ExportQuerySerializer(data={k: v for k, v in request.query_params.items() if v != ""})
        query.is_valid(raise_exception=True)
        fmt, as_csv = query.validated_data["export_format"], query.validated_data["file"] == "csv"
        options = query.exporter_options()
        safe_name = "".join(c if c.isalnum() or c in "-_" else "_" for c in project.name)
        try:
            if as_csv or fmt in exports.DATASET_FORMATS:
                handle, suffix = exports.export_download(project.name, fmt, as_csv=as_csv, **options)
                content_type = "application/zip" if suffix.endswith(".zip") else "text/csv; charset=utf-8"
                return FileResponse(handle, as_attachment=True, filename=f"{safe_name}.{suffix}",
                                    content_type=content_type)
            lines = exports.export_lines(project.name, fmt, **options)  # raises before streaming when it cannot run
        except exports.ExportError as exc:
            raise ValidationError({"export_format": str(exc)}) from exc

        def body() -> Iterator[bytes]:
            # the first line at once (first byte), then blocks of about BLOCK bytes: one write per line cost the
            # WSGI server a syscall and a chunk header for each of a million lines
            block: list[str] = []
            size = 0
            for n, line in enumerate(lines):
                block.append(line)
                size += len(line) + 1
                if n == 0 or size >= _STREAM_BLOCK:
                    yield ("\n".join(block) + "\n").encode("utf-8")
                    block, size = [], 0
            if block:
                yield ("\n".join(block) + "\n").encode("utf-8")

        response = StreamingHttpResponse(body(), content_type="application/jsonl; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{safe_name}.{fmt}.jsonl"'
        return response


_STREAM_BLOCK = 64 * 1024  # characters a streamed export sends per write (the first line goes alone)


def _whole(request: Request, name: str, default: int, high: int) -> int:
    """A whole-number query parameter from 1 to `high`, or a 400 naming it."""
    raw = request.query_params.get(name) or ""
    if not raw:
        return default
    if not raw.isdecimal() or not 1 <= int(raw) <= high:
        raise ValidationError({name: f"must be a whole number from 1 to {high}"})
    return int(raw)
