"""The provider interface every crowd platform implements (one contract test suite checks them all)."""
from __future__ import annotations

import abc
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum

CENT = Decimal("0.01")


def money(value: Decimal | str | float | int) -> Decimal:
    """Round to cents the way platforms bill (half up); str() first so floats do not leak binary noise."""
    return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)


def request_token(*parts: object) -> str:
    """A deterministic idempotency token (<= 64 chars, MTurk's limit) for one intended platform action.

    The same intent (e.g. "bonus", assignment 12, "0.50") always gives the same token, so a retried call is
    recognised by the platform (UniqueRequestToken) or by our QualityDecision log as a repeat.
    """
    return hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()[:64]


class ProviderError(Exception):
    """A platform refused or failed a call; the message says which call and why."""


class InsufficientFunds(ProviderError):
    """The account balance does not cover a publish's cost estimate; nothing was published."""


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


class EntryVerdict(StrEnum):
    """What the platform says, at the door, of a worker entering a unit from it (CrowdProvider.verify_entry).

    VERIFIED: the platform knows this worker's assignment / session of this unit: let in, holds a slot (its work
    still counts only once sync finds it submitted, with its proof where the platform has one).
    UNKNOWN: the platform does not know it (made-up ids, another worker's or unit's, a returned session): refused.
    UNAVAILABLE: the platform could tell but cannot be asked now: let in unverified (a real worker is never lost),
    but only into a free slot, and verified work always wins a slot.
    AFTER_SUBMIT: the platform vouches for work only once it is submitted (MTurk: GetAssignment reads Submitted,
    Approved and Rejected assignments only) and itself never lets more workers in than the unit's places: let in
    unverified, holds no slot, so made-up entries lock nobody out; sync verifies it.
    """

    VERIFIED = "verified"
    UNKNOWN = "unknown"
    UNAVAILABLE = "unavailable"
    AFTER_SUBMIT = "after_submit"


@dataclass(frozen=True)
class EntryCheck:
    """A verdict and, for a refusal, the reason shown to the person at the door."""

    verdict: EntryVerdict
    reason: str = ""


ENTRY_CACHE_SECONDS = 60  # a positive answer is reused this long (page reloads ask the platform once)


class SubmissionStatus(StrEnum):
    """A platform's verdict on a submission, in the one vocabulary every provider translates to for sync
    (the values are the matching Assignment statuses)."""

    SUBMITTED = "submitted"
    APPROVED = "approved"
    REJECTED = "rejected"
    RETURNED = "returned"


@dataclass(frozen=True)
class SubmissionRecord:
    """A submission as the platform reports it, for sync."""

    provider_assignment_id: str
    worker_external_id: str
    unit_ref: str
    status: str  # a SubmissionStatus; other values (a platform's new status) are skipped by sync
    submitted_at: str | None = None
    answer: Mapping[str, str] = field(default_factory=dict)
    doubt: str = ""  # why the platform's record does not vouch for our assignment (e.g. a wrong completion code)


@dataclass(frozen=True)
class CostEstimate:
    units: int
    assignments_per_unit: int
    reward: Decimal
    fees: Decimal
    total: Decimal
    currency: str = "USD"
    fee_rate: Decimal = Decimal("0")
    places: int | None = None  # a one-study batch pays whole places of units_per_place units each
    units_per_place: int | None = None

    def describe(self) -> str:
        """One line for a human about to confirm the spend."""
        if self.places is not None:
            return (
                f"{self.units} units x {self.assignments_per_unit} assignments in {self.places} places of "
                f"{self.units_per_place} units x {self.reward} {self.currency} = {self.total - self.fees} + fees "
                f"{self.fees} ({self.fee_rate * 100:.0f}%) = {self.total} {self.currency}"
            )
        return (
            f"{self.units} units x {self.assignments_per_unit} assignments x {self.reward} {self.currency}"
            f" = {self.total - self.fees} + fees {self.fees} ({self.fee_rate * 100:.0f}%) = {self.total} {self.currency}"
        )


class FairPayError(ProviderError):
    """The expected hourly rate is below the platform's minimum; nothing was published."""


@dataclass(frozen=True)
class HourlyRate:
    """What a worker is expected to earn per hour: the reward per unit over the time one unit takes."""

    reward_per_unit: Decimal
    seconds_per_unit: float
    source: str  # "pilot median" or "researcher estimate"
    currency: str
    minimum: Decimal | None  # the platform's minimum per hour in this currency, None where it sets none

    @property
    def per_hour(self) -> Decimal:
        return money(self.reward_per_unit * Decimal(3600) / Decimal(str(max(self.seconds_per_unit, 1.0))))

    @property
    def below_minimum(self) -> bool:
        return self.minimum is not None and self.per_hour < self.minimum

    def describe(self) -> str:
        floor = f"; the platform's minimum is {self.minimum} {self.currency}/h" if self.minimum is not None else ""
        return (f"{self.reward_per_unit} {self.currency} per unit at {self.seconds_per_unit:.0f} s per unit "
                f"({self.source}) = {self.per_hour} {self.currency}/h{floor}")


class CrowdProvider(abc.ABC):
    """One crowd platform. Providers never touch labels; labels never know the provider."""

    name: str = ""
    currency: str = "USD"
    # One platform object (a study) for the whole batch: each participant takes a place, enters the batch's own
    # entry URL (crowd.entry.study_entry_url) and our queue hands them units (services.sessions).
    batch_study: bool = False
    # The platform's minimum pay per hour by currency (Prolific: judged on the median time); {} where none.
    minimum_hourly: Mapping[str, Decimal] = {}

    def hourly_rate(self, reward_per_unit: Decimal, seconds_per_unit: float, source: str) -> HourlyRate:
        return HourlyRate(money(reward_per_unit), float(seconds_per_unit), source, self.currency,
                          self.minimum_hourly.get(self.currency))

    def publish_refusal(self) -> str | None:
        """Why this platform takes no new work now (MTurk after its closure), or None. Reading back and syncing
        work published earlier is never refused."""
        return None

    # -- batch studies (batch_study providers) ---------------------------------------------
    def check_study_entry(self, batch, context: EntryContext) -> str | None:
        """Why these ids cannot be this batch study's, or None (the batch's counterpart of check_entry)."""
        return None

    def set_places(self, batch, places: int) -> None:
        """Raise the study's places to `places` (never lowered: places already taken are paid for)."""
        raise ProviderError(f"{self.name} has no places to raise")

    def completion(self, context: EntryContext, batch=None) -> tuple[str, str]:
        """(the completion code shown to the participant, the URL that hands it to the platform, or "")."""
        return "", context.completion_url

    def bonus_fee_rate(self) -> Decimal:
        """Fee the platform charges on bonuses (MTurk 20%); used for budget reports only."""
        return Decimal("0")

    # -- entering a unit from the platform -------------------------------------------------
    @abc.abstractmethod
    def parse_entry(self, query: Mapping[str, str]) -> EntryContext | None:
        """Read the platform's query parameters of a unit page; None when they are not this platform's."""

    def check_entry(self, unit, context: EntryContext) -> str | None:
        """Why these platform ids cannot be this unit's (a study or HIT of another unit), or None when they can.

        Cheap and offline where possible: the ids are checked against what publishing stored (unit.provider_ref);
        whether the platform knows the worker and assignment is sync's business (Assignment.verification).
        """
        return None

    @abc.abstractmethod
    def verify_entry(self, unit, context: EntryContext) -> EntryCheck:
        """Ask the platform, before any slot is counted, whether it knows this worker's assignment of this unit.

        Called once check_entry has accepted the ids; one quick try (the worker is waiting), never a backoff.
        Abstract, so that no platform provider lets strangers in by default."""

    def checked_entry(self, unit, context: EntryContext) -> EntryCheck:
        """verify_entry, with a positive answer reused for ENTRY_CACHE_SECONDS (negative ones are never cached:
        a worker who just accepted on the platform must get in at once)."""
        from django.core.cache import cache

        key = "factcrowd:entry:" + request_token(self.name, unit.pk, context.provider_assignment_id,
                                                 context.worker_external_id)
        if cache.get(key):
            return EntryCheck(EntryVerdict.VERIFIED)
        check = self.verify_entry(unit, context)
        if check.verdict == EntryVerdict.VERIFIED:
            cache.set(key, True, ENTRY_CACHE_SECONDS)
        return check

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

    def bonus_payments(self, assignment) -> list[Decimal] | None:
        """The bonus amounts the platform has paid on this assignment, or None when it cannot tell. Read back
        before a failed bonus is tried again: a call that moves money is never repeated blind."""
        return None

    @abc.abstractmethod
    def block(self, worker, reason: str) -> None: ...

    @abc.abstractmethod
    def unblock(self, worker, reason: str) -> None: ...

    @abc.abstractmethod
    def grant_qualification(self, worker, qualification: str, value: int = 1) -> None: ...

    @abc.abstractmethod
    def revoke_qualification(self, worker, qualification: str, reason: str = "") -> None: ...

    def send_message(self, worker, subject: str, body: str, *, study_id: str = "") -> bool:
        """Deliver a personal message to the worker (services.feedback): True when the platform took it, False when
        FactCrowd shows it itself (the local annotator's queue page). A platform that cannot message raises."""
        return False

    @abc.abstractmethod
    def close(self, batch) -> None:
        """Expire / close the batch's open work on the platform."""
