"""The provider interface every crowd platform implements (one contract test suite checks them all)."""
from __future__ import annotations

import abc
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal


class ProviderError(Exception):
    """A platform refused or failed a call; the message says which call and why."""


@dataclass(frozen=True)
class EntryContext:
    """Who opened a unit page from a platform, parsed from the platform's query parameters.

    preview: the platform shows the unit before a worker accepts it (MTurk's ASSIGNMENT_ID_NOT_AVAILABLE);
    the unit is visible but cannot be worked or submitted.
    submit_to: where the browser must also post on submit (MTurk's turkSubmitTo + /mturk/externalSubmit),
    or "" when the platform needs nothing from the browser.
    completion_url: where to send the worker after submitting (Prolific's completion redirect), or "".
    """

    worker_external_id: str
    provider_assignment_id: str = ""
    preview: bool = False
    submit_to: str = ""
    completion_url: str = ""
    extra: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SubmissionRecord:
    """A submission as the platform reports it, for sync."""

    provider_assignment_id: str
    worker_external_id: str
    unit_ref: str
    status: str  # submitted / approved / rejected / returned
    submitted_at: str | None = None
    answer: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CostEstimate:
    units: int
    assignments_per_unit: int
    reward: Decimal
    fees: Decimal
    total: Decimal
    currency: str = "USD"


class CrowdProvider(abc.ABC):
    """One crowd platform. Providers never touch labels; labels never know the provider."""

    name: str = ""

    # -- entering a unit from the platform -------------------------------------------------
    @abc.abstractmethod
    def parse_entry(self, query: Mapping[str, str]) -> EntryContext | None:
        """Read the platform's query parameters of a unit page; None when they are not this platform's."""

    # -- publishing ------------------------------------------------------------------------
    @abc.abstractmethod
    def estimate_cost(self, units: int, assignments_per_unit: int, reward: Decimal) -> CostEstimate: ...

    @abc.abstractmethod
    def account_balance(self) -> Decimal | None: ...

    @abc.abstractmethod
    def publish(self, batch, units: Iterable, *, reward: Decimal, assignments_per_unit: int, **options) -> list[str]:
        """Publish units; returns the platform's reference per unit. Retrying never publishes twice."""

    @abc.abstractmethod
    def preview_url(self, unit) -> str: ...

    @abc.abstractmethod
    def list_submissions(self, batch) -> Iterable[SubmissionRecord]: ...

    @abc.abstractmethod
    def approve(self, assignment, feedback: str = "") -> None: ...

    @abc.abstractmethod
    def reject(self, assignment, feedback: str) -> None: ...

    @abc.abstractmethod
    def bonus(self, assignment, amount: Decimal, reason: str, request_token: str) -> None: ...

    @abc.abstractmethod
    def block(self, worker, reason: str) -> None: ...

    @abc.abstractmethod
    def unblock(self, worker, reason: str) -> None: ...

    @abc.abstractmethod
    def grant_qualification(self, worker, qualification: str, value: int = 1) -> None: ...

    @abc.abstractmethod
    def revoke_qualification(self, worker, qualification: str, reason: str = "") -> None: ...

    @abc.abstractmethod
    def close(self, batch) -> None:
        """Expire / close the batch's open work on the platform."""
