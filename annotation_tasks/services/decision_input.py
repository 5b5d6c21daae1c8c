"""What an expert's decisions and filters from the dashboard must be: one error class that names the request field
("filter.kind", "texts[1]") and the checks QA validation and fact validation share. Its own module so that both
import it and neither imports the other for it (services.validation imports services.fact_validation)."""
from __future__ import annotations

import math
from typing import Any


class ValidationInputError(ValueError):
    """A bad decision, correction or filter; `field` names the offending request field."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


def as_int(value: Any, path: str) -> int:
    """An integer (not a boolean, which int() would take), else a ValidationInputError at `path`."""
    if isinstance(value, bool):
        raise ValidationInputError(path, "must be an integer")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValidationInputError(path, "must be an integer") from None


def as_fraction(value: Any, path: str) -> float:
    """A finite number from 0 to 1 (a confidence), else a ValidationInputError at `path`."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number) or not 0 <= number <= 1:
        raise ValidationInputError(path, "must be a number from 0 to 1")
    return number
