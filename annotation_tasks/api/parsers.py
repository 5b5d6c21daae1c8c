"""Request parsers (DEFAULT_PARSER_CLASSES). No DRF views imported: DRF loads this while defining APIView."""
from __future__ import annotations

from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser; JSON nested deeper than Python's recursion allows is a ParseError (400)."""

    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError("JSON parse error - nested too deeply") from exc
