"""Other panels by URL parameters (CloudResearch Connect, SONA, university pools): one link per batch.

The panel opens the batch's entry page (crowd.entry.study_entry_url) with the participant's id in a query parameter
the researcher names (`panel_id_param`, e.g. "participant_id" or SONA's "id"), and takes back a completion code
(`completion_code`, the one the panel gave the researcher) or a redirect (`completion_redirect`, where "{code}" and
"{participant}" are filled in). The link carries `k`, a value signed with our SECRET_KEY naming the batch and the
id parameter: an entry is admitted when `k` verifies and names this batch, and the id is well formed. The panel
cannot be asked who its participants are, so nothing more can be checked; payments stay outside FactCrowd (the
statuses are set by hand or imported from the panel's CSV, services.sessions.set_place_status), and platform calls
(approve, reject, bonus, block) only leave the decision log as the record.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from urllib.parse import quote

from django.conf import settings
from django.core import signing

from annotation_tasks.crowd.base import (
    CostEstimate,
    CrowdProvider,
    EntryCheck,
    EntryContext,
    EntryVerdict,
    ProviderError,
    SubmissionRecord,
    SubmissionStatus,
    money,
)
from annotation_tasks.crowd.entry import study_entry_url

PANEL_SALT = "factcrowd.panel-link"
DEFAULT_ID_PARAM = "participant_id"
_PARTICIPANT = re.compile(r"[A-Za-z0-9_.@:-]{1,128}")
_PARAM = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def link_key(batch_pk: int, id_param: str) -> str:
    """The signed part of a batch's panel link: which batch, and which query parameter holds the participant id."""
    return signing.dumps({"b": batch_pk, "p": id_param}, salt=PANEL_SALT, compress=True)


def read_link_key(value: str) -> tuple[int, str] | None:
    try:
        data = signing.loads(value, salt=PANEL_SALT)
        return int(data["b"]), str(data["p"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None


def id_param_of(batch) -> str:
    value = str((batch.settings or {}).get("panel_id_param") or DEFAULT_ID_PARAM)
    return value if _PARAM.fullmatch(value) else DEFAULT_ID_PARAM


def panel_link(batch, participant_placeholder: str = "") -> str:
    """The link the researcher gives the panel: the id parameter is last, for the panel's own placeholder."""
    id_param = id_param_of(batch)
    return study_entry_url(batch, PanelProvider.name, k=link_key(batch.pk, id_param)) + \
        f"&{id_param}={participant_placeholder}"


class PanelProvider(CrowdProvider):
    name = "panel"
    batch_study = True

    def __init__(self, *, currency: str | None = None, fee_rate: Decimal | str | None = None, **_options) -> None:
        self.currency = str(currency or getattr(settings, "PANEL_CURRENCY", "USD"))
        self.fee_rate = Decimal(str(fee_rate or getattr(settings, "PANEL_FEE_RATE", "0")))

    # -- entry ---------------------------------------------------------------------------
    def parse_entry(self, query: Mapping[str, str]) -> EntryContext | None:
        """`k` must verify (our signature) and the parameter it names must hold a well-formed participant id."""
        key = read_link_key(str(query.get("k", "")))
        if key is None:
            return None
        batch_pk, id_param = key
        participant = str(query.get(id_param, ""))
        if not _PARTICIPANT.fullmatch(participant):
            return None
        return EntryContext(worker_external_id=participant, provider_assignment_id=participant,
                            extra={"batch_id": str(batch_pk)})

    def check_study_entry(self, batch, context: EntryContext) -> str | None:
        if context.extra.get("batch_id") != str(batch.pk):
            return "this link does not belong to this study"
        return None

    def verify_entry(self, unit, context: EntryContext) -> EntryCheck:
        """Our signed link vouches for the batch; the panel cannot be asked about the participant."""
        return EntryCheck(EntryVerdict.VERIFIED)

    def completion(self, context: EntryContext, batch=None) -> tuple[str, str]:
        opts = (batch.settings or {}) if batch is not None else {}
        code = str(opts.get("completion_code") or "")
        redirect = str(opts.get("completion_redirect") or "")
        url = redirect.replace("{code}", quote(code, safe="")).replace(
            "{participant}", quote(context.worker_external_id, safe="")) if redirect else ""
        return code, url

    # -- money ---------------------------------------------------------------------------
    def estimate_cost(self, units: int, assignments_per_unit: int, reward: Decimal) -> CostEstimate:
        reward = money(reward)
        n = units * assignments_per_unit
        fees = money(reward * n * self.fee_rate)
        return CostEstimate(units, assignments_per_unit, reward, fees, reward * n + fees, self.currency, self.fee_rate)

    def account_balance(self) -> Decimal | None:
        return None  # paid through the panel, outside FactCrowd

    # -- publishing ----------------------------------------------------------------------
    def publish(self, batch, units: Iterable, *, reward: Decimal, assignments_per_unit: int, **options) -> list[str]:
        """Nothing to create on the panel: the batch's reference names it; the link is panel_link(batch)."""
        return [f"panel-{batch.pk}"] * len(list(units))

    def set_places(self, batch, places: int) -> None:
        pass  # the panel's places are the researcher's to open there; the batch records the number

    def preview_url(self, unit) -> str:
        return panel_link(unit.batch, "PARTICIPANT_ID")

    def list_submissions(self, batch) -> Iterator[SubmissionRecord]:
        """Finished places, with the status our own decisions gave their units (the panel reports nothing)."""
        from annotation_tasks.models.crowd import PlaceSession
        from annotation_tasks.models.work import Assignment

        ended = [PlaceSession.Status.FINISHED, PlaceSession.Status.REJECTED]
        for place in PlaceSession.objects.filter(batch=batch, status__in=ended).select_related("worker"):
            statuses = set(Assignment.objects.filter(
                worker_id=place.worker_id, unit__batch_id=batch.pk,
                provider_assignment_id__startswith=place.assignment_prefix()).values_list("status", flat=True))
            if statuses and statuses <= {"approved"}:
                status = SubmissionStatus.APPROVED
            elif statuses and statuses <= {"rejected"}:
                status = SubmissionStatus.REJECTED
            else:
                status = SubmissionStatus.SUBMITTED
            yield SubmissionRecord(provider_assignment_id=place.session_id, worker_external_id=place.worker.external_id,
                                   unit_ref=batch.provider_ref, status=status,
                                   submitted_at=place.finished_at.isoformat() if place.finished_at else None)

    # -- review and workers: paid and managed on the panel ---------------------------------
    def approve(self, assignment, feedback: str = "") -> None:
        pass

    def reject(self, assignment, feedback: str) -> None:
        pass

    def bonus(self, assignment, amount: Decimal, reason: str, request_token: str) -> None:
        pass  # paid on the panel; the decision log is the record

    def block(self, worker, reason: str) -> None:
        pass  # our own block (per project) keeps them out of the batch's units

    def unblock(self, worker, reason: str) -> None:
        pass

    def send_message(self, worker, subject: str, body: str, *, study_id: str = "") -> bool:
        raise ProviderError("this panel takes no messages through FactCrowd: write to the participant on the panel")

    def grant_qualification(self, worker, qualification: str, value: int = 1) -> None:
        pass

    def revoke_qualification(self, worker, qualification: str, reason: str = "") -> None:
        pass

    def close(self, batch) -> None:
        pass  # close the study on the panel; our units close with the batch
