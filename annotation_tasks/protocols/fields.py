"""Checks shared by protocols' validators; every problem is added with the JSON path of the value."""
from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from annotation_tasks.protocols.base import Errors, Key, Vocabulary
from annotation_tasks.textcheck import text_problem


def is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def is_score(value: Any, low: int = 1, high: int = 5) -> bool:
    """An integer (not a boolean) from low to high."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def text_error(value: Any) -> str | None:
    """Why a worker's free text (a note, a fact) is refused: not a string, or not storable (NUL, lone surrogate)."""
    if not isinstance(value, str):
        return "must be text"
    return text_problem(value)


def check_fields(labels: Mapping, fields: Mapping[str, Collection[str]], errors: Errors) -> None:
    """No label is stored that nobody reads: each object in one of this protocol's lists (`fields`: list name ->
    the keys its items may have) has only those keys, and any other top-level key is an empty list or null (the
    element sends every list it knows, empty where the unit has no such section). Errors name the JSON path."""
    for key, value in labels.items():
        if key not in fields:
            if value not in (None, []):
                errors.add(f"labels.{key}", f"unknown field (this unit takes {', '.join(sorted(fields))})")
            continue
        if not isinstance(value, list):
            continue  # as_list reports it
        allowed = fields[key]
        for i, item in enumerate(value):
            if isinstance(item, Mapping):
                for name in sorted(set(item) - set(allowed), key=str):
                    errors.add(f"labels.{key}[{i}].{name}", f"unknown field (expected some of {', '.join(sorted(allowed))})")


def as_list(labels: Mapping, key: str, errors: Errors) -> list:
    """labels[key] as a list: absent or null is empty; anything else is an error at labels.<key>."""
    value = labels.get(key, [])
    if value is None:
        return []
    if not isinstance(value, list):
        errors.add(f"labels.{key}", "must be a list")
        return []
    return value


def item_id(item: Any, key: str) -> Any:
    """item[key] when item is an object; None for a missing key or an unhashable value (a JSON list or object
    is never an id, and looking it up in a set of ids must not fail), and for true/false and numbers with a
    fraction part (1.0 and true equal the id 1 in Python, but they are not ids)."""
    value = item.get(key) if isinstance(item, dict) else None
    return None if isinstance(value, list | dict | bool | float) else value


def flags(labels: Mapping, key: str, id_key: str, flag: str, shown: Collection, errors: Errors, *,
          unknown: str, twice: str) -> dict[int, bool]:
    """labels[key] as {item[id_key]: item[flag]}: each id one of `shown`, at most once, each flag a boolean."""
    out: dict[int, bool] = {}
    for i, item in enumerate(as_list(labels, key, errors)):
        path = f"labels.{key}[{i}]"
        ident = item_id(item, id_key)
        if ident not in shown:
            errors.add(f"{path}.{id_key}", unknown)
        elif ident in out:
            errors.add(f"{path}.{id_key}", twice)
        elif not is_bool(item.get(flag)):
            errors.add(f"{path}.{flag}", "must be true or false")
        else:
            out[ident] = item[flag]
    return out


def require_all(shown: Collection, given: Collection, path: str, message: str, errors: Errors) -> None:
    """One error at `path` for each shown id without a label, in id order (message formatted with the id)."""
    for ident in sorted(set(shown) - set(given)):
        errors.add(path, message.format(ident))


def pairwise_scores(labels: Mapping, wanted: Sequence[str], errors: Errors) -> dict[str, int]:
    """labels["pairwise"] as {aspect: score 1-5}: each aspect one of `wanted` (listed in that order in the error),
    at most once, and every wanted aspect scored. Shared by the protocols that compare two things."""
    scores: dict[str, int] = {}
    for i, item in enumerate(as_list(labels, "pairwise", errors)):
        path = f"labels.pairwise[{i}]"
        aspect, score = item_id(item, "aspect"), item_id(item, "score")
        if aspect not in wanted:
            errors.add(f"{path}.aspect", f"must be one of {', '.join(wanted)}")
        elif aspect in scores:
            errors.add(f"{path}.aspect", "given twice")
        elif not is_score(score):
            errors.add(f"{path}.score", "must be an integer from 1 to 5")
        else:
            scores[aspect] = score
    require_all(wanted, scores, "labels.pairwise", "aspect {} has no score", errors)
    return scores


PAIRWISE_LEVEL = Vocabulary(
    name="pairwise", item_type="unit", labels=("1", "2", "3", "4", "5"),
    display={"1": "A much better", "2": "A better", "3": "About equal", "4": "B better", "5": "B much better"},
)
"""Pairwise scores as labels (1 = A much better ... 5 = B much better), per unit and aspect: the
level of every protocol that compares two things (qasem's pairwise step, ragas)."""
PAIRWISE_KEYS = tuple(Key(str(n), str(n), PAIRWISE_LEVEL.display[str(n)]) for n in range(1, 6))
