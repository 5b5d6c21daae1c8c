"""A batch's settings: what the API accepts (settings_problems: every known key, each bad one named) and how the
readers read values stored before it checked them (setting_number: the default, never a crash). One bad value stored
(`"abc"` minutes) used to stop every annotator's queue with a 500, so the queue, the study sessions and the cost
estimate all read through this table.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar


@dataclass(frozen=True)
class Bound:
    """The numbers a batch setting may hold: from `low` to `high`, both included; whole ones only where `whole`."""

    low: int | float
    high: int | float
    whole: bool = True

    def holds(self, value: object) -> bool:
        """`value` as JSON gives it: a number, not a boolean or text; NaN and infinities are out of any range."""
        return (not isinstance(value, bool) and isinstance(value, int | float) and self.low <= value <= self.high
                and (not self.whole or float(value).is_integer()))

    def describe(self) -> str:
        return f"must be {'a whole number' if self.whole else 'a number'} from {self.low} to {self.high}"


_DAY_MINUTES = 24 * 60
_YEAR_S = 365 * 24 * 3600
# Every Batch.settings key the code reads as a number (int() / float() of it), the reader, and its range.
NUMBER_SETTINGS: dict[str, Bound] = {
    "assignment_duration_minutes": Bound(1, 7 * _DAY_MINUTES),  # timeout_of: a local assignment's hold
    "estimated_minutes_per_unit": Bound(0.01, _DAY_MINUTES, whole=False),  # sessions.seconds_per_unit (fair pay)
    "units_per_place": Bound(1, 1000),  # sessions, publishing, Prolific: a study place's units
    "minutes_per_place": Bound(1, _DAY_MINUTES),  # sessions: a place ends after this
    "places": Bound(0, 10**7),  # written by publishing and sessions.ensure_places
    "maximum_minutes": Bound(1, 7 * _DAY_MINUTES),  # Prolific's maximum_allowed_time
    "duration_s": Bound(30, _YEAR_S),  # MTurk's AssignmentDurationInSeconds
    "lifetime_s": Bound(30, _YEAR_S),  # MTurk's LifetimeInSeconds
    "auto_approval_delay_s": Bound(0, 30 * 24 * 3600),  # MTurk's AutoApprovalDelayInSeconds
    "frame_height": Bound(0, 10_000),  # MTurk's ExternalQuestion FrameHeight (0: automatic)
    "min_approval_rate": Bound(0, 100),  # MTurk qualification requirements: a percentage
    "min_approved_hits": Bound(0, 10**9),
}
TEXT_SETTINGS = ("title", "description", "keywords", "question", "hit_type_id", "prolific_project", "panel_id_param",
                 "completion_code", "completion_redirect")  # the platforms' texts (crowd providers)
FLAG_SETTINGS = ("retest", "evaluate_workers", "approval_policy")  # RETEST is matched as JSON true
LIST_SETTINGS = ("locales", "devices")  # lists of text (MTurk locales, Prolific devices)
_QUALIFICATION_VALUE = Bound(-(2**31), 2**31 - 1)  # MTurk's IntegerValues
_Default = TypeVar("_Default", int, float, None)


def setting_number(batch_settings: object, key: str, default: _Default) -> int | float | _Default:
    """The number `key` (NUMBER_SETTINGS) of a batch's settings as its readers use it, else `default`: settings
    stored before the API checked them may hold text, a list or a huge number, and int() of those raised in the
    queue and the estimate. What int() read then is read the same: a number as text ("30"), a fraction cut down."""
    value = batch_settings.get(key) if isinstance(batch_settings, Mapping) else None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return default
    bound = NUMBER_SETTINGS[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not bound.low <= value <= bound.high:
        return default  # NaN compares false: it is out of range too
    if bound.whole:
        return int(value) if int(value) >= bound.low else default
    return value


def settings_problems(batch_settings: Mapping[str, Any]) -> dict[str, str]:
    """What is wrong with the known keys of settings given to a batch, as {key: why} (empty when nothing): the
    API refuses them (a 400 naming the key). A null number means its default (its readers: setting_number); unknown
    keys are the researcher's, kept as they are; "routing" is services.routing's to check."""
    problems: dict[str, str] = {}
    for key, value in batch_settings.items():
        problems.update(_setting_problems(str(key), value))
    return problems


def _setting_problems(key: str, value: object) -> dict[str, str]:
    if key in NUMBER_SETTINGS:
        bound = NUMBER_SETTINGS[key]
        return {} if value is None or bound.holds(value) else {key: bound.describe()}
    if key in TEXT_SETTINGS:
        return {} if isinstance(value, str) else {key: "must be text"}
    if key in FLAG_SETTINGS:
        return {} if isinstance(value, bool) else {key: "must be true or false"}
    if key in LIST_SETTINGS:
        texts = isinstance(value, list) and all(isinstance(v, str) for v in value)
        return {} if texts else {key: "must be a list of texts"}
    if key == "qualifications":  # our qualification names and the value a worker must hold (MTurk)
        ok = isinstance(value, Mapping) and all(_QUALIFICATION_VALUE.holds(v) for v in value.values())
        return {} if ok else {key: "must be an object of qualification names and whole numbers"}
    if key == "quality":
        return _quality_problems(value)
    return {}


def _quality_problems(value: object) -> dict[str, str]:
    """settings["quality"] overrides the quality policy (services.quality.policy): each key it knows must have
    its default's type; rates and accuracies are shares, counts and days whole numbers."""
    from annotation_tasks.services.quality.policy import DEFAULT_POLICY

    if not isinstance(value, Mapping):
        return {"quality": "must be an object"}
    problems: dict[str, str] = {}
    for key, default in DEFAULT_POLICY.items():
        if key not in value:
            continue
        given, field = value[key], f"quality.{key}"
        if isinstance(default, bool):
            if not isinstance(given, bool):
                problems[field] = "must be true or false"
        elif isinstance(default, int | float):
            bound = Bound(0, 10_000) if isinstance(default, int) else Bound(0, 1, whole=False)
            if not bound.holds(given):
                problems[field] = bound.describe()
        elif not isinstance(given, str):
            problems[field] = "must be text"
    return problems
