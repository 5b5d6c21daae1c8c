"""Issue 23 item 13: importing 10^6 label rows took 1.6 GB (every row held as a record, twice). The campaign reader
now streams: a validating pass keeps the counts, the grouping columns and an 8-byte hash per row, and the writer
reads the file again a chunk at a time. Measured on 10^6 rows (docs/import-export.md); here on 50,000 rows,
the reader's peak allocation stays a small fraction of what holding the rows took."""
from __future__ import annotations

import csv
import tracemalloc
from pathlib import Path

import pytest

from annotation_tasks.importers import labels_long
from annotation_tasks.importers.base import ImportFormatError

ROWS = 50_000


def _file(path: Path, rows: int, repeat_at: int | None = None) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item_id", "worker_id", "label", "dataset", "system"])
        for n in range(rows):
            k = n if repeat_at is None or n != repeat_at else 7  # row 7's (item, worker) again
            writer.writerow([f"item{k // 5}", f"w{k % 5}", ("yes", "no")[n % 2], f"ds{n % 3}", f"sys{n % 7}"])
    return path


def test_the_reader_does_not_hold_the_rows(tmp_path: Path) -> None:
    path = _file(tmp_path / "big.csv", ROWS)
    tracemalloc.start()
    try:
        parsed = labels_long.read(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert parsed.count == ROWS and parsed.group_columns == ["dataset", "system"]
    held = sum(1 for _ in parsed.records())  # read again from the file
    assert held == ROWS
    assert peak < 40 * ROWS, f"peak {peak} bytes for {ROWS} rows"  # rows held as records took ~1,500 bytes each


def test_a_repeated_worker_is_still_found_with_both_lines(tmp_path: Path) -> None:
    path = _file(tmp_path / "repeat.csv", 200, repeat_at=150)
    with pytest.raises(ImportFormatError) as caught:
        labels_long.read(path)
    assert (caught.value.line, caught.value.field) == (152, "worker_id") and "on line 9" in caught.value.message
