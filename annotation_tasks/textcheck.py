"""Text that every database can store: no NUL character, no lone surrogate (pure; no Django).

PostgreSQL refuses NUL (\\u0000) in text and JSON columns, and no UTF-8 encoder takes a lone surrogate
(\\ud800, which JSON's \\u escapes can carry); SQLite stores both, so without a check the same input is a 500 on
one database and silently kept on the other. Importers, protocol validators and the work API refuse both with
the place named.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def text_problem(text: str) -> str | None:
    """Why `text` cannot be stored, or None."""
    if "\x00" in text:
        return f"contains a NUL character (\\u0000) at position {text.index(chr(0))}"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"contains a lone surrogate (\\u{ord(text[exc.start]):04x}) at position {exc.start}, not valid Unicode"
    return None


def printable(text: str) -> str:
    """`text` safe to put in an error message: lone surrogates and NULs written as escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\u0000")


def walk_json(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, value) of each leaf (string, number, boolean, null) and each string key of a parsed JSON value,
    depth-first in document order."""
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                name = printable(str(key))
                child_path = f"{where}.{name}" if where else name
                if isinstance(key, str):
                    yield child_path, key
                stack.append((child, child_path))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{i}]") for i, child in reversed(list(enumerate(item))))
        else:
            yield where, item


def walk_strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(path, text) for each string and key of a parsed JSON value, depth-first in document order."""
    return ((where, item) for where, item in walk_json(value, path) if isinstance(item, str))


def json_text_problem(value: Any, path: str = "") -> tuple[str, str] | None:
    """(field path, problem) of the first string (value or key) in a JSON value that cannot be stored."""
    for where, text in walk_strings(value, path):
        problem = text_problem(text)
        if problem:
            return where, problem
    return None
