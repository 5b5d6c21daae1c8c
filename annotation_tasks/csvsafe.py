"""CSV cells a spreadsheet reads as text, never as a formula (pure; no Django).

A worker types the answers, ids and feedback that our CSV exports carry. A cell that begins with `=`, `+`, `-`,
`@`, a tab or a carriage return is run as a formula by Excel, LibreOffice and Google Sheets (`=cmd|' /C calc'!A0`,
`@SUM(1)`): OWASP's "CSV injection". Every CSV writer passes its cells through `neutralise`, which prefixes such a
cell with a single quote, as OWASP advises; spreadsheets show the text without the quote.

Decisions:
- A cell that is wholly a plain number (`-1.5`, `+3`, `-2e-3`) is left as it is: a spreadsheet reads it as a
  number, not a formula, and a numeric column stays numeric. `-1+1`, `-inf` or `- 2` are not plain numbers and
  are quoted.
- Rows end in CRLF (RFC 4180, what the csv module and Excel write): with a bare LF terminator the csv module
  leaves a cell holding a lone CR unquoted, and a worker's CR then splits the row in every reader.
- Quoting is reversible: a cell that already begins with quotes before a formula character (`'=x`) gets one
  more, so `restore` (our importers reading our own files back) removes exactly one and every string survives
  export then import unchanged.
"""
from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from typing import Any, TextIO

FORMULA_START = frozenset("=+-@\t\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def _needs_quote(text: str) -> bool:
    stripped = text.lstrip("'")
    if not stripped or stripped[0] not in FORMULA_START:
        return False
    # only a bare number is exempt; "'-1" (already quoted) still gets its quote so restore() stays exact
    return len(stripped) != len(text) or _PLAIN_NUMBER.fullmatch(text) is None


def neutralise(text: str) -> str:
    """`text` as a CSV cell no spreadsheet runs: a single quote before a formula-leading cell."""
    if not text or (text[0] not in _SUSPECT):  # most cells: decided by their first character
        return text
    return "'" + text if _needs_quote(text) else text


_SUSPECT = FORMULA_START | {"'"}


def neutralise_row(cells: list[str]) -> list[str]:
    """Every cell of a row through `neutralise`."""
    return [neutralise(c) for c in cells]


def writer(out: TextIO) -> Any:
    """A csv.writer over `out` (opened with newline="") that ends rows in CRLF, so any CR or LF is quoted."""
    return csv.writer(out, lineterminator="\r\n")


def dict_writer(out: TextIO, fieldnames: Sequence[str]) -> csv.DictWriter:
    """A csv.DictWriter like `writer`; cells still go through `neutralise` (or `neutralise_row`)."""
    return csv.DictWriter(out, fieldnames=fieldnames, lineterminator="\r\n")


def restore(text: str) -> str:
    """The text `neutralise` was given: one leading quote dropped where `neutralise` added it."""
    if text.startswith("'") and _needs_quote(text[1:]):
        return text[1:]
    return text
