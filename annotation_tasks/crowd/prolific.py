"""Prolific through its REST API (api.prolific.com/api/v1), with requests.

One study per unit: places = assignments per unit, and the study's external URL is the unit page with
Prolific's {{%PROLIFIC_PID%}} / {{%STUDY_ID%}} / {{%SESSION_ID%}} placeholders. A worker who submits is sent
to Prolific's completion URL with the study's completion code, derived from our secret and the unit (so the
code is known before the study exists and is never shown in a URL the worker can read before working).
Blocks and qualifications are participant groups (a block list, and allow lists named after qualifications).
"""
from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from urllib.parse import urlencode

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from annotation_tasks.crowd.base import (
    CostEstimate,
    CrowdProvider,
    EntryContext,
    ProviderError,
    SubmissionRecord,
    SubmissionStatus,
    money,
)
from annotation_tasks.crowd.entry import unit_entry_url

APP_URL = "https://app.prolific.com"
PLACEHOLDERS = {"PROLIFIC_PID": "{{%PROLIFIC_PID%}}", "STUDY_ID": "{{%STUDY_ID%}}", "SESSION_ID": "{{%SESSION_ID%}}"}
_STATUS = {
    "AWAITING REVIEW": SubmissionStatus.SUBMITTED,
    "APPROVED": SubmissionStatus.APPROVED,
    "REJECTED": SubmissionStatus.REJECTED,
    "RETURNED": SubmissionStatus.RETURNED,
    "TIMED-OUT": SubmissionStatus.RETURNED,
}
BLOCK_GROUP = "factcrowd-blocked"
MIN_REJECT_MESSAGE = 100  # Prolific asks for at least 100 characters of feedback on a rejection


def completion_code(unit_pk: int) -> str:
    """The study's completion code: unguessable without our SECRET_KEY, recomputable from the unit."""
    digest = hmac.new(settings.SECRET_KEY.encode(), f"prolific-cc:{unit_pk}".encode(), hashlib.sha256)
    return digest.hexdigest()[:10].upper()


class ProlificProvider(CrowdProvider):
    name = "prolific"

    def __init__(
        self,
        *,
        api_url: str | None = None,
        token: str | None = None,
        workspace_id: str | None = None,
        app_url: str | None = None,
        fee_rate: Decimal | str | None = None,
        currency: str | None = None,
        session: requests.Session | None = None,
        sandbox: bool = False,
    ) -> None:
        if sandbox:
            raise ProviderError("Prolific has no sandbox; test with a small study, or against a fake API_URL")
        self.api_url = (api_url or settings.PROLIFIC_API_URL).rstrip("/")
        self.token = token or settings.PROLIFIC_API_TOKEN
        self.workspace_id = workspace_id or getattr(settings, "PROLIFIC_WORKSPACE_ID", "")
        self.app_url = (app_url or getattr(settings, "PROLIFIC_APP_URL", "") or APP_URL).rstrip("/")
        self.fee_rate = Decimal(str(fee_rate or getattr(settings, "PROLIFIC_FEE_RATE", "0.3333")))
        self.currency = str(currency or getattr(settings, "PROLIFIC_CURRENCY", "GBP"))
        self._session = session
        self._groups: dict[str, str] = {}
        self._studies: dict[str, dict] | None = None

    # -- HTTP ----------------------------------------------------------------------------
    @property
    def session(self) -> requests.Session:
        """Retries 429 and 5xx with backoff, honouring Retry-After (Prolific rate-limits per token)."""
        if self._session is None:
            s = requests.Session()
            retry = Retry(
                total=6,
                backoff_factor=0.5,
                status_forcelist=(429, 500, 502, 503, 504),
                allowed_methods=None,  # POSTs too: creating studies is guarded by our publish bookkeeping
                respect_retry_after_header=True,
                raise_on_status=False,
            )
            s.mount("http://", HTTPAdapter(max_retries=retry))
            s.mount("https://", HTTPAdapter(max_retries=retry))
            s.headers["Authorization"] = f"Token {self.token}"
            self._session = s
        return self._session

    def _request(self, method: str, path: str, **kwargs) -> dict:
        url = path if path.startswith("http") else f"{self.api_url}/{path.lstrip('/')}"
        try:
            resp = self.session.request(method, url, timeout=30, **kwargs)
        except requests.RequestException as exc:
            raise ProviderError(f"prolific {method} {path}: {exc}") from exc
        if resp.status_code >= 400:
            raise ProviderError(f"prolific {method} {path}: {resp.status_code} {resp.text[:500]}")
        return resp.json() if resp.content else {}

    def _pages(self, path: str) -> Iterator[dict]:
        """Follow `_links.next.href` through paginated list endpoints."""
        url: str | None = path
        while url:
            data = self._request("GET", url)
            yield from data.get("results", [])
            url = ((data.get("_links") or {}).get("next") or {}).get("href")

    # -- entry ---------------------------------------------------------------------------
    def parse_entry(self, query: Mapping[str, str]) -> EntryContext | None:
        pid, study, session = query.get("PROLIFIC_PID", ""), query.get("STUDY_ID", ""), query.get("SESSION_ID", "")
        if not pid or not study:
            return None
        return EntryContext(
            worker_external_id=pid,
            provider_assignment_id=session,
            preview=False,
            completion_url=self.completion_url(study),
            extra={"study_id": study},
        )

    def completion_url(self, study_id: str) -> str:
        from annotation_tasks.models.work import Unit

        unit_pk = Unit.objects.filter(provider_ref=study_id, batch__provider=self.name).values_list(
            "pk", flat=True
        ).first()
        if unit_pk is None:
            # A participant can arrive between the study's publication and our saving its id: ask Prolific
            # which of our units the study is (its internal name says so).
            try:
                internal = self._request("GET", f"studies/{study_id}/").get("internal_name", "")
            except ProviderError:
                return ""
            match = re.fullmatch(r"factcrowd:batch:\d+:unit:(\d+)", internal or "")
            if match is None:
                return ""
            unit_pk = int(match.group(1))
        return f"{self.app_url}/submissions/complete?{urlencode({'cc': completion_code(unit_pk)})}"

    # -- money ---------------------------------------------------------------------------
    def estimate_cost(self, units: int, assignments_per_unit: int, reward: Decimal) -> CostEstimate:
        reward = money(reward)
        n = units * assignments_per_unit
        fees = money(reward * n * self.fee_rate)
        return CostEstimate(units, assignments_per_unit, reward, fees, reward * n + fees, self.currency, self.fee_rate)

    def account_balance(self) -> Decimal | None:
        if not self.workspace_id:
            return None  # the balance is per workspace; without one we cannot check
        data = self._request("GET", f"workspaces/{self.workspace_id}/balance/")
        return Decimal(data.get("available_balance", 0)) / 100

    # -- groups (blocks and qualifications) ------------------------------------------------
    def group_id(self, name: str) -> str:
        if name in self._groups:
            return self._groups[name]
        query = f"?{urlencode({'workspace_id': self.workspace_id})}" if self.workspace_id else ""
        for group in self._pages(f"participant-groups/{query}"):
            if group.get("name") == name:
                self._groups[name] = group["id"]
                return group["id"]
        body = {"name": name, **({"workspace_id": self.workspace_id} if self.workspace_id else {})}
        self._groups[name] = self._request("POST", "participant-groups/", json=body)["id"]
        return self._groups[name]

    def _qual_group(self, qualification: str) -> str:
        return self.group_id(f"factcrowd-qual-{qualification}")

    # -- publishing ----------------------------------------------------------------------
    def external_url(self, unit) -> str:
        """Placeholders stay literal ({{%...%}}): Prolific fills them in per participant."""
        url = unit_entry_url(unit, self.name)
        return url + "&" + "&".join(f"{k}={v}" for k, v in PLACEHOLDERS.items())

    def study_body(self, batch, unit, *, reward: Decimal, places: int, options: Mapping) -> dict:
        filters = [{"filter_id": "participant_group_blocklist", "selected_values": [self.group_id(BLOCK_GROUP)]}]
        for qual in options.get("qualifications") or {}:
            filters.append({"filter_id": "participant_group_allowlist", "selected_values": [self._qual_group(qual)]})
        minutes = max(1, int(options.get("estimated_minutes", int(options.get("duration_s", 900)) // 60)))
        return {
            "name": options.get("title") or f"{batch.project.name}: judge a text",
            "internal_name": f"factcrowd:batch:{batch.pk}:unit:{unit.pk}",
            "description": options.get("description") or "Read a source and judge a generated text against it.",
            "external_study_url": self.external_url(unit),
            "prolific_id_option": "url_parameters",
            "completion_codes": [
                {"code": completion_code(unit.pk), "code_type": "COMPLETED", "actions": [{"action": "MANUALLY_REVIEW"}]}
            ],
            "total_available_places": int(places),
            "estimated_completion_time": minutes,
            "maximal_time": int(options.get("maximal_minutes", minutes * 4)),
            "reward": int(money(reward) * 100),  # in the workspace currency's minor unit
            "device_compatibility": options.get("devices", ["desktop"]),
            "filters": filters,
            **({"project": options["prolific_project"]} if options.get("prolific_project") else {}),
        }

    def _existing_study(self, internal_name: str) -> dict | None:
        """Our own earlier study for this unit (a retried publish must not create a second one).

        Prolific has no request tokens: the internal name is our key, listed once per provider instance.
        """
        if self._studies is None:
            self._studies = {s.get("internal_name", ""): s for s in self._pages("studies/")}
        return self._studies.get(internal_name)

    def publish(self, batch, units: Iterable, *, reward: Decimal, assignments_per_unit: int, **options) -> list[str]:
        opts = {**(batch.settings or {}), **options}
        refs = []
        for unit in units:
            body = self.study_body(batch, unit, reward=reward, places=assignments_per_unit, options=opts)
            study = self._existing_study(body["internal_name"])
            if study is None:
                study = self._request("POST", "studies/", json=body)
                if self._studies is not None:  # listed by _existing_study above: keep the list current
                    self._studies[body["internal_name"]] = study
            if study.get("status", "UNPUBLISHED") == "UNPUBLISHED":
                self._request("POST", f"studies/{study['id']}/transition/", json={"action": "PUBLISH"})
            refs.append(study["id"])
        return refs

    def preview_url(self, unit) -> str:
        return f"{self.app_url}/researcher/workspaces/studies/{unit.provider_ref}"

    # -- sync ----------------------------------------------------------------------------
    def list_submissions(self, batch) -> Iterator[SubmissionRecord]:
        for study_id in batch.units.exclude(provider_ref="").values_list("provider_ref", flat=True):
            for sub in self._pages(f"studies/{study_id}/submissions/"):
                status = _STATUS.get(sub.get("status", ""))
                if status is None:
                    continue  # still active (working) or screened out
                yield SubmissionRecord(
                    provider_assignment_id=sub["id"],
                    worker_external_id=sub["participant_id"],
                    unit_ref=study_id,
                    status=status,
                    submitted_at=sub.get("completed_at"),
                    answer={"study_code": sub.get("study_code") or ""},
                )

    # -- review --------------------------------------------------------------------------
    def _submission_status(self, submission_id: str) -> str:
        return self._request("GET", f"submissions/{submission_id}/").get("status", "")

    def _transition(self, assignment, body: dict, done_status: str) -> None:
        sid = assignment.provider_assignment_id
        try:
            self._request("POST", f"submissions/{sid}/transition/", json=body)
        except ProviderError:
            if self._submission_status(sid) == done_status:
                return  # a repeat of a transition that already happened
            raise

    def approve(self, assignment, feedback: str = "") -> None:
        self._transition(assignment, {"action": "APPROVE"}, "APPROVED")

    def reject(self, assignment, feedback: str) -> None:
        message = feedback or "The submission did not follow the instructions."
        if len(message) < MIN_REJECT_MESSAGE:
            message = message + " " + "Please read the instructions and the examples carefully before starting."
            message = message.ljust(MIN_REJECT_MESSAGE, ".")
        self._transition(
            assignment,
            {"action": "REJECT", "message": message, "rejection_category": "LOW_EFFORT"},
            "REJECTED",
        )

    def approve_many(self, study_id: str, participant_ids: list[str]) -> None:
        """Prolific's bulk approval (one call for a whole study)."""
        self._request("POST", "submissions/bulk-approve/", json={"study_id": study_id, "participant_ids": participant_ids})

    def bonus(self, assignment, amount: Decimal, reason: str, request_token: str) -> None:
        """Set up, then pay. Paying is not idempotent on Prolific; our decision log guards repeats."""
        study_id = assignment.unit.provider_ref
        csv = f"{assignment.worker.external_id},{money(amount)}\n"
        setup = self._request("POST", "submissions/bonus-payments/", json={"study_id": study_id, "csv_bonuses": csv})
        self._request("POST", f"bulk-bonus-payments/{setup['id']}/pay/")

    # -- workers -------------------------------------------------------------------------
    def _members(self, group: str, participant_id: str, add: bool) -> None:
        self._request(
            "POST" if add else "DELETE",
            f"participant-groups/{group}/participants/",
            json={"participant_ids": [participant_id]},
        )

    def block(self, worker, reason: str) -> None:
        self._members(self.group_id(BLOCK_GROUP), worker.external_id, True)

    def unblock(self, worker, reason: str) -> None:
        self._members(self.group_id(BLOCK_GROUP), worker.external_id, False)

    def grant_qualification(self, worker, qualification: str, value: int = 1) -> None:
        self._members(self._qual_group(qualification), worker.external_id, True)

    def revoke_qualification(self, worker, qualification: str, reason: str = "") -> None:
        self._members(self._qual_group(qualification), worker.external_id, False)

    def close(self, batch) -> None:
        for study_id in batch.units.exclude(provider_ref="").values_list("provider_ref", flat=True):
            try:
                self._request("POST", f"studies/{study_id}/transition/", json={"action": "STOP"})
            except ProviderError:
                study = self._request("GET", f"studies/{study_id}/")
                if study.get("status") not in ("COMPLETED", "AWAITING REVIEW"):
                    raise
