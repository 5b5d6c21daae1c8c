"""Memory allocator settings for Celery workers, whose builds hold frames of 10^6 labels (issue 25: under 300 MB).

Two things kept a build's freed memory in the process, so that each step's peak stacked on the last one's
garbage (bench/bench_build_memory.py):
- glibc's malloc raises its mmap threshold after a large block is freed (up to 32 MB), after which arrays of a few
  MB come from the heap and stay there when freed: a fixed threshold (mallopt M_MMAP_THRESHOLD) sends every block
  of MALLOC_MMAP_THRESHOLD bytes or more (default 1 MiB) to its own mapping, returned when freed, while smaller
  ones (a bootstrap resample, a page of rows) are reused from the heap;
- Arrow's default pool (mimalloc or jemalloc: pandas 3 keeps string columns there) keeps its pages; the system
  pool (ARROW_DEFAULT_MEMORY_POOL=system, read when pyarrow first allocates) hands them to malloc.
Together: a full report build at 10^6 labels peaked 346 -> 290 MB in bench_build_memory, for ~1 s more.
MALLOC_MMAP_THRESHOLD=0 leaves glibc's own behaviour; an ARROW_DEFAULT_MEMORY_POOL already set is kept.
"""
from __future__ import annotations

import ctypes
import os

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter number
DEFAULT_MMAP_THRESHOLD = 1 << 20


def tune() -> bool:
    """Apply both settings to this process (and the children it forks); True when glibc took the threshold."""
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    try:
        threshold = int(os.environ.get("MALLOC_MMAP_THRESHOLD", DEFAULT_MMAP_THRESHOLD))
    except ValueError:
        threshold = DEFAULT_MMAP_THRESHOLD
    if threshold <= 0:
        return False
    try:
        return bool(ctypes.CDLL(None).mallopt(M_MMAP_THRESHOLD, threshold))
    except (AttributeError, OSError):  # not glibc (musl, macOS): nothing to set
        return False
