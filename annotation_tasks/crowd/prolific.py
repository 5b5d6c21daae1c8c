"""Prolific through its REST API (api.prolific.com/api/v1), with requests.

One study per batch (Prolific rate-limits "launching too many studies with low numbers of participants"): each
place is a session. The study's external URL is the batch's entry page (crowd.entry.study_entry_url) with
Prolific's {{%PROLIFIC_PID%}} / {{%STUDY_ID%}} / {{%SESSION_ID%}} placeholders (SESSION_ID is Prolific's
submission id); our queue hands the participant units up to the batch's units per place (services.sessions), and
places are raised (PATCH total_available_places) when more work is needed. Studies of older batches, one per
unit, keep working: their unit pages, sync and close still read them. A worker who submits is sent to Prolific's completion URL with a completion code of their own,
derived from our secret and their submission (study, submission, participant): a code passed on to someone
else is wrong for them, and sync checks each submission's code (Assignment.verification).
Blocks and qualifications are participant groups (a block list, and allow lists named after qualifications) in
the workspace PROLIFIC_WORKSPACE_ID (required: Prolific creates groups in a workspace).
Calls that move money or create a study are never retried blind: publishing reads the studies back first, and
a failed bonus is read back from the submission (bonus_payments) before it is tried again.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import re
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from urllib.parse import quote, urlencode

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

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

APP_URL = "https://app.prolific.com"
PLACEHOLDERS = {"PROLIFIC_PID": "{{%PROLIFIC_PID%}}", "STUDY_ID": "{{%STUDY_ID%}}", "SESSION_ID": "{{%SESSION_ID%}}"}
_STATUS = {
    "AWAITING REVIEW": SubmissionStatus.SUBMITTED,
    "APPROVED": SubmissionStatus.APPROVED,
    "PARTIALLY APPROVED": SubmissionStatus.APPROVED,  # paid part of the reward: approved work, it counts
    "REJECTED": SubmissionStatus.REJECTED,
    "RETURNED": SubmissionStatus.RETURNED,
    "TIMED-OUT": SubmissionStatus.RETURNED,
}
BLOCK_GROUP = "factcrowd-blocked"
MIN_REJECT_MESSAGE = 100  # Prolific asks for at least 100 characters of feedback on a rejection
RETRYABLE = (429, 500, 502, 503, 504)
SAFE_POST_ATTEMPTS = 6
ENTRY_CHECK_TIMEOUT = 5  # seconds a participant may wait for Prolific to confirm their session
# Sessions that may open the unit page: started (ACTIVE; RESERVED is a place held for the participant), or
# completed (the participant reopening the page). Returned, timed-out, rejected or screened-out ones may not.
_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what can be a submission id in an API path
ENTRY_STATUSES = {"ACTIVE", "RESERVED", "AWAITING REVIEW", "APPROVED", "PARTIALLY APPROVED"}
# Prolific's minimum pay per hour, judged on the median completion time (researcher help: "minimum pay").
MINIMUM_HOURLY = {"GBP": Decimal("6.00"), "USD": Decimal("8.00")}
# Events FactCrowd subscribes to (webhooks replace polling; sync stays as the reconciliation).
HOOK_EVENTS = ("study.status.change", "submission.status.change")
SIGNATURE_HEADER = "X-Prolific-Request-Signature"
SIGNATURE_TIMESTAMP_HEADER = "X-Prolific-Request-Timestamp"
EVENT_ID_HEADER = "X-Event-ID"
EVENT_TIMESTAMP_HEADER = "X-Timestamp"
# Prolific does not support concurrent bonus requests: one at a time per process, and per cache across processes.
_BONUS_LOCK = threading.Lock()
BONUS_LOCK_KEY = "factcrowd:prolific:bonus-lock"
BONUS_LOCK_WAIT_S = 120.0


def webhook_signature(secret: str, timestamp: str, body: bytes) -> str:
    """Prolific's signature of a delivery: base64(HMAC-SHA256(secret, timestamp + body)) ("Verifying")."""
    digest = hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def signature_valid(secret: str, timestamp: str, body: bytes, signature: str) -> bool:
    """Constant-time comparison of a delivery's X-Prolific-Request-Signature with the one our secret gives."""
    if not secret or not timestamp or not signature:
        return False
    return hmac.compare_digest(webhook_signature(secret, timestamp, body).encode(), signature.encode())


def batch_internal_name(batch_pk: int) -> str:
    """Our key of a batch's study (Prolific has no request tokens), also what tells the study's batch."""
    return f"factcrowd:batch:{batch_pk}:study"


def submission_id(assignment) -> str:
    """The Prolific submission (SESSION_ID) behind an assignment: a batch study's assignments carry
    "<session id>/<unit id>" (one place, several units), a per-unit study's the session id itself."""
    return str(assignment.provider_assignment_id).split("/", 1)[0]


def study_completion_code(unit_pk: int) -> str:
    """The code the study registers (Prolific asks for one): never shown to a participant, who gets their own."""
    digest = hmac.new(settings.SECRET_KEY.encode(), f"prolific-cc:{unit_pk}".encode(), hashlib.sha256)
    return digest.hexdigest()[:10].upper()


def completion_code(study_id: str, session_id: str, participant_id: str) -> str:
    """One participant's completion code: unguessable without our SECRET_KEY, recomputable at sync from the
    submission Prolific lists (study, submission id = SESSION_ID, participant), so it proves that this very
    submission went through our page."""
    message = f"prolific-cc:{study_id}:{session_id}:{participant_id}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()[:12].upper()


class ProlificError(ProviderError):
    """Prolific answered an error (status set) or could not be reached (status None)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status

    @property
    def retryable(self) -> bool:
        """The call may not have been carried out (throttled, a server fault, no answer)."""
        return self.status is None or self.status in RETRYABLE


def internal_name(batch_pk: int | None, unit_pk: int) -> str:
    """Our key of a unit's study (Prolific has no request tokens), also what tells a study's unit."""
    return f"factcrowd:batch:{batch_pk}:unit:{unit_pk}"


def _retry_after(resp: requests.Response | None, attempt: int) -> float:
    """Seconds to wait before another try: the answer's Retry-After, else a short exponential backoff."""
    value = resp.headers.get("Retry-After", "") if resp is not None else ""
    try:
        return max(0.0, min(float(value), 60.0))
    except ValueError:
        return min(0.5 * 2**attempt, 8.0)


class ProlificProvider(CrowdProvider):
    name = "prolific"
    batch_study = True
    minimum_hourly = MINIMUM_HOURLY

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
        """Retries 429 and 5xx of reads (GET, DELETE...) with backoff, honouring Retry-After (Prolific rate-limits
        per token). POSTs are not retried here: see _request's `safe`."""
        if self._session is None:
            s = requests.Session()
            retry = Retry(
                total=6,
                backoff_factor=0.5,
                status_forcelist=RETRYABLE,
                allowed_methods=Retry.DEFAULT_ALLOWED_METHODS,  # never POST: a POST may create or pay
                respect_retry_after_header=True,
                raise_on_status=False,
            )
            s.mount("http://", HTTPAdapter(max_retries=retry))
            s.mount("https://", HTTPAdapter(max_retries=retry))
            s.headers["Authorization"] = f"Token {self.token}"
            self._session = s
        return self._session

    def _request(self, method: str, path: str, *, safe: bool = False, **kwargs) -> dict:
        """One call. `safe` marks a POST that Prolific documents as idempotent (submission transitions, group
        membership): it is retried on 429 / 5xx like a read. Other POSTs (creating a study, setting up or paying
        a bonus) are tried once; their callers read the state back before any second try."""
        url = path if path.startswith("http") else f"{self.api_url}/{path.lstrip('/')}"
        attempts = SAFE_POST_ATTEMPTS if method in ("POST", "PATCH") and safe else 1
        for attempt in range(attempts):
            try:
                resp = self.session.request(method, url, timeout=30, **kwargs)
            except requests.RequestException as exc:
                raise ProlificError(f"prolific {method} {path}: {exc}") from exc
            if resp.status_code in RETRYABLE and attempt < attempts - 1:
                time.sleep(_retry_after(resp, attempt))
                continue
            if resp.status_code >= 400:
                raise ProlificError(f"prolific {method} {path}: {resp.status_code} {resp.text[:500]}", resp.status_code)
            return resp.json() if resp.content else {}
        raise AssertionError("unreachable")

    @property
    def workspace(self) -> str:
        """The workspace studies and participant groups live in; a clear error without one."""
        if not self.workspace_id:
            raise ProviderError(
                "PROLIFIC_WORKSPACE_ID is not set: Prolific creates the participant groups FactCrowd blocks and "
                "qualifies workers with in a workspace (the id is in the workspace's URL on app.prolific.com)"
            )
        return self.workspace_id

    def _pages(self, path: str) -> Iterator[dict]:
        """Follow `_links.next.href` through paginated list endpoints."""
        url: str | None = path
        while url:
            data = self._request("GET", url)
            yield from data.get("results", [])
            url = ((data.get("_links") or {}).get("next") or {}).get("href")

    # -- entry ---------------------------------------------------------------------------
    def parse_entry(self, query: Mapping[str, str]) -> EntryContext | None:
        """PROLIFIC_PID, STUDY_ID and SESSION_ID (the submission id, which sync matches) must all be there."""
        pid, study, session = query.get("PROLIFIC_PID", ""), query.get("STUDY_ID", ""), query.get("SESSION_ID", "")
        if not pid or not study or not session:
            return None
        if not _SESSION_ID.fullmatch(pid):  # Prolific ids are short hex; nothing else reaches a Worker row
            return None
        return EntryContext(
            worker_external_id=pid,
            provider_assignment_id=session,
            preview=False,
            completion_url=self.completion_url(study, session, pid),
            extra={"study_id": study},
        )

    def completion_url(self, study_id: str, session_id: str, participant_id: str) -> str:
        code = completion_code(study_id, session_id, participant_id)
        return f"{self.app_url}/submissions/complete?{urlencode({'cc': code})}"

    def check_entry(self, unit, context: EntryContext) -> str | None:
        """STUDY_ID must be the unit's own study (its session is verify_entry's business).

        A participant can arrive between the study's publication and our saving its id: then Prolific is asked
        whether the study is this unit's (its internal name says)."""
        study_id = context.extra.get("study_id", "")
        if unit.batch_id and unit.batch.provider_ref:
            return "this study's participants enter through the study's own link, which hands out the units"
        if unit.provider_ref and study_id != unit.provider_ref:
            return "this link does not belong to this unit's study"
        if not unit.provider_ref:
            try:
                internal = self._request("GET", f"studies/{study_id}/").get("internal_name", "")
            except ProviderError:
                return "this study cannot be checked with Prolific right now; please try again in a minute"
            if internal != internal_name(unit.batch_id, unit.pk):
                return "this link does not belong to this unit's study"
        return None

    def check_study_entry(self, batch, context: EntryContext) -> str | None:
        """STUDY_ID must be the batch's study; before its id is saved, Prolific says whose study it is."""
        study_id = context.extra.get("study_id", "")
        if batch.provider_ref:
            return None if study_id == batch.provider_ref else "this link does not belong to this batch's study"
        try:
            internal = self._request("GET", f"studies/{quote(study_id, safe='')}/").get("internal_name", "")
        except ProviderError:
            return "this study cannot be checked with Prolific right now; please try again in a minute"
        return None if internal == batch_internal_name(batch.pk) else "this link does not belong to this batch's study"

    def completion(self, context: EntryContext, batch=None) -> tuple[str, str]:
        code = completion_code(context.extra.get("study_id", ""), context.provider_assignment_id,
                               context.worker_external_id)
        return code, context.completion_url

    def verify_entry(self, unit, context: EntryContext) -> EntryCheck:
        """SESSION_ID must be a submission Prolific lists for this participant in this study, started or completed
        (GET /api/v1/submissions/{id}/: Prolific makes the submission, ACTIVE, the moment a participant starts).
        A made-up participant or session is refused before any slot is counted; when Prolific cannot be asked,
        the participant is let in unverified (UNAVAILABLE: a free slot only, verified work wins)."""
        if not _SESSION_ID.fullmatch(context.provider_assignment_id):
            return EntryCheck(EntryVerdict.UNKNOWN, "Prolific does not know this session; open the study from Prolific")
        try:
            session = self.session_of(context.provider_assignment_id)
        except ProlificError as exc:
            if exc.status in (400, 404):  # 401/403 are our token's trouble, not the participant's
                return EntryCheck(EntryVerdict.UNKNOWN, "Prolific does not know this session; open the study from Prolific")
            return EntryCheck(EntryVerdict.UNAVAILABLE)
        if session.get("participant") != context.worker_external_id or \
                session.get("study_id") != context.extra.get("study_id"):
            return EntryCheck(EntryVerdict.UNKNOWN,
                              "this session is not this participant's in this study; open the study from Prolific")
        if session.get("status") not in ENTRY_STATUSES:
            return EntryCheck(EntryVerdict.UNKNOWN, "this Prolific session is no longer active")
        return EntryCheck(EntryVerdict.VERIFIED)

    def session_of(self, session_id: str) -> dict:
        """Prolific's submission behind a SESSION_ID (id, participant, study_id, status). Asked while a participant
        waits for the page: one try with a short timeout, never the backoff of other reads."""
        url = f"{self.api_url}/submissions/{quote(session_id, safe='')}/"
        try:
            resp = requests.get(url, headers={"Authorization": f"Token {self.token}"}, timeout=ENTRY_CHECK_TIMEOUT)
        except requests.RequestException as exc:
            raise ProlificError(f"prolific GET submissions/{session_id}/: {exc}") from exc
        if resp.status_code >= 400:
            raise ProlificError(f"prolific GET submissions/{session_id}/: {resp.status_code}", resp.status_code)
        try:
            data = resp.json() if resp.content else {}
        except ValueError as exc:
            raise ProlificError(f"prolific GET submissions/{session_id}/: not JSON", resp.status_code) from exc
        return data if isinstance(data, dict) else {}

    # -- money ---------------------------------------------------------------------------
    def estimate_cost(self, units: int, assignments_per_unit: int, reward: Decimal) -> CostEstimate:
        reward = money(reward)
        n = units * assignments_per_unit
        fees = money(reward * n * self.fee_rate)
        return CostEstimate(units, assignments_per_unit, reward, fees, reward * n + fees, self.currency, self.fee_rate)

    def account_balance(self) -> Decimal | None:
        data = self._request("GET", f"workspaces/{self.workspace}/balance/")
        return Decimal(data.get("available_balance", 0)) / 100

    # -- groups (blocks and qualifications) ------------------------------------------------
    def group_id(self, name: str) -> str:
        if name in self._groups:
            return self._groups[name]
        found = self._find_group(name)
        if found is None:
            try:
                found = self._request("POST", "participant-groups/", json={"name": name, "workspace_id": self.workspace})["id"]
            except ProlificError as exc:
                # creating is not idempotent: read the groups back before anything else
                found = self._find_group(name) if exc.retryable else None
                if found is None:
                    raise
        self._groups[name] = found
        return found

    def _find_group(self, name: str) -> str | None:
        for group in self._pages(f"participant-groups/?{urlencode({'workspace_id': self.workspace})}"):
            if group.get("name") == name:
                return group["id"]
        return None

    def _qual_group(self, qualification: str) -> str:
        return self.group_id(f"factcrowd-qual-{qualification}")

    # -- publishing ----------------------------------------------------------------------
    def external_url(self, batch) -> str:
        """The batch's entry page; placeholders stay literal ({{%...%}}): Prolific fills them in per participant."""
        url = study_entry_url(batch, self.name)
        return url + "&" + "&".join(f"{k}={v}" for k, v in PLACEHOLDERS.items())

    def _filters(self, options: Mapping) -> list[dict]:
        filters = [{"filter_id": "participant_group_blocklist", "selected_values": [self.group_id(BLOCK_GROUP)]}]
        for qual in options.get("qualifications") or {}:
            filters.append({"filter_id": "participant_group_allowlist", "selected_values": [self._qual_group(qual)]})
        return filters

    def study_body(self, batch, *, reward: Decimal, places: int, options: Mapping) -> dict:
        """The batch's one study: `reward` is per unit, a place pays units_per_place of them; its time is the
        place's minutes (minutes_per_place), and Prolific's maximum is four times that."""
        per_place = max(1, int(options.get("units_per_place") or 1))
        minutes = max(1, int(options.get("minutes_per_place")
                             or per_place * int(options.get("estimated_minutes_per_unit") or 3)))
        return {
            "name": options.get("title") or f"{batch.project.name}: judge texts",
            "internal_name": batch_internal_name(batch.pk),
            "description": options.get("description") or "Read sources and judge generated texts against them.",
            "external_study_url": self.external_url(batch),
            "prolific_id_option": "url_parameters",
            "completion_codes": [
                {"code": study_completion_code(batch.pk), "code_type": "COMPLETED",
                 "actions": [{"action": "MANUALLY_REVIEW"}]}
            ],
            "total_available_places": int(places),
            "estimated_completion_time": minutes,
            "maximum_allowed_time": int(options.get("maximum_minutes") or minutes * 4),
            "reward": int(money(money(reward) * per_place) * 100),  # in the workspace currency's minor unit
            "device_compatibility": options.get("devices", ["desktop"]),
            "filters": self._filters(options),
            **({"project": options["prolific_project"]} if options.get("prolific_project") else {}),
        }

    def _existing_study(self, internal_name: str, *, fresh: bool = False) -> dict | None:
        """Our own earlier study for this batch (a retried publish must not create a second one).

        Prolific has no request tokens: the internal name is our key, listed once per provider instance (again
        when `fresh`: after a create whose answer was lost).
        """
        if self._studies is None or fresh:
            self._studies = {s.get("internal_name", ""): s for s in self._pages("studies/")}
        return self._studies.get(internal_name)

    def _create_study(self, body: dict) -> dict:
        """Create once; when the answer is lost or refused for load, read the studies back before a second try."""
        try:
            return self._request("POST", "studies/", json=body)
        except ProlificError as exc:
            if not exc.retryable:
                raise
            time.sleep(_retry_after(None, 0))
            found = self._existing_study(body["internal_name"], fresh=True)
            return found if found is not None else self._request("POST", "studies/", json=body)

    def publish(self, batch, units: Iterable, *, reward: Decimal, assignments_per_unit: int, **options) -> list[str]:
        """One study for the whole batch (found again by its internal name on a retry); every unit's reference
        is the study. `places` (options) is how many places to open: services.sessions.places_needed."""
        units = list(units)
        opts = {**(batch.settings or {}), **options}
        self.workspace  # noqa: B018 - a clear error before anything is created
        per_place = max(1, int(opts.get("units_per_place") or 1))
        places = int(opts.get("places") or -(-len(units) * assignments_per_unit // per_place))
        body = self.study_body(batch, reward=reward, places=places, options=opts)
        study = self._existing_study(body["internal_name"])
        if study is None:
            study = self._create_study(body)
        if study.get("status", "UNPUBLISHED") == "UNPUBLISHED":
            self._request("POST", f"studies/{study['id']}/transition/", json={"action": "PUBLISH"}, safe=True)
        return [study["id"]] * len(units)

    def set_places(self, batch, places: int) -> None:
        """Raise the study's places (Prolific: an active study's places can be increased, never decreased)."""
        study = self._request("GET", f"studies/{batch.provider_ref}/")
        if int(study.get("total_available_places") or 0) >= places:
            return
        self._request("PATCH", f"studies/{batch.provider_ref}/", json={"total_available_places": int(places)},
                      safe=True)  # an absolute number: repeating it is harmless

    def preview_url(self, unit) -> str:
        return f"{self.app_url}/researcher/workspaces/studies/{unit.provider_ref}"

    def _study_ids(self, batch) -> list[str]:
        """The batch's studies: its one study, or (older batches) one per unit."""
        if batch.provider_ref:
            return [batch.provider_ref]
        refs = batch.units.exclude(provider_ref="").values_list("provider_ref", flat=True).order_by("id")
        return list(dict.fromkeys(refs))

    # -- sync ----------------------------------------------------------------------------
    def list_submissions(self, batch) -> Iterator[SubmissionRecord]:
        for study_id in self._study_ids(batch):
            for sub in self._pages(f"studies/{study_id}/submissions/"):
                status = _STATUS.get(sub.get("status", ""))
                if status is None:
                    continue  # still active (working) or screened out
                code = sub.get("study_code") or ""
                doubt = ""
                if status in (SubmissionStatus.SUBMITTED, SubmissionStatus.APPROVED):
                    if code != completion_code(study_id, sub["id"], sub["participant_id"]):
                        doubt = "wrong completion code" if code else "no completion code"
                yield SubmissionRecord(
                    provider_assignment_id=sub["id"],
                    worker_external_id=sub["participant_id"],
                    unit_ref=study_id,
                    status=status,
                    submitted_at=sub.get("completed_at"),
                    answer={"study_code": code},
                    doubt=doubt,
                )

    # -- review --------------------------------------------------------------------------
    def _submission_status(self, submission_id: str) -> str:
        return self._request("GET", f"submissions/{submission_id}/").get("status", "")

    def _transition(self, assignment, body: dict, done_status: str) -> None:
        sid = submission_id(assignment)
        try:
            self._request("POST", f"submissions/{sid}/transition/", json=body, safe=True)
        except ProviderError:
            if self._submission_status(sid) == done_status:
                return  # a repeat of a transition that already happened
            raise

    def approve(self, assignment, feedback: str = "") -> None:
        """Approves the place (the submission): on a batch study that pays for all its units."""
        self._transition(assignment, {"action": "APPROVE"}, "APPROVED")

    def reject(self, assignment, feedback: str) -> None:
        """Rejects the place: on a batch study the services reject it only once all its units are rejected."""
        if "/" in str(assignment.provider_assignment_id):  # a unit of a place: the place may hold accepted work
            from annotation_tasks.models.work import Assignment

            kept = (Assignment.objects.filter(worker_id=assignment.worker_id, status__in=("submitted", "approved"),
                                              provider_assignment_id__startswith=submission_id(assignment) + "/")
                    .exclude(pk=assignment.pk))
            if kept.exists():
                return  # the place's reward pays for its other, accepted units: it is not rejected on Prolific
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
        self._request("POST", "submissions/bulk-approve/", json={"study_id": study_id, "participant_ids": participant_ids},
                      safe=True)

    def bonus(self, assignment, amount: Decimal, reason: str, request_token: str) -> None:
        """Set up, then pay, each once: paying is not idempotent on Prolific ("sending multiple requests ... will
        result in participants being paid multiple times"), and Prolific does not support concurrent bonus
        requests: one bonus at a time (a lock in this process and one in the shared cache across processes).
        A failure is left to the decision log, which reads bonus_payments back before any second try."""
        study_id = assignment.unit.provider_ref
        csv = f"{assignment.worker.external_id},{money(amount)}\n"
        with _one_bonus_at_a_time():
            setup = self._request("POST", "submissions/bonus-payments/", json={"study_id": study_id, "csv_bonuses": csv})
            self._request("POST", f"bulk-bonus-payments/{setup['id']}/pay/")

    def bonus_payments(self, assignment) -> list[Decimal]:
        """The bonuses paid on the submission (its bonus_payments, in minor units). Payments are asynchronous:
        one made a few minutes ago may not be listed yet."""
        data = self._request("GET", f"submissions/{submission_id(assignment)}/")
        return [money(Decimal(str(c)) / 100) for c in data.get("bonus_payments") or []]

    # -- workers -------------------------------------------------------------------------
    def _members(self, group: str, participant_id: str, add: bool) -> None:
        self._request(
            "POST" if add else "DELETE",
            f"participant-groups/{group}/participants/",
            json={"participant_ids": [participant_id]},
            safe=True,  # adding a member twice is ignored, removing a non-member too
        )

    def block(self, worker, reason: str) -> None:
        self._members(self.group_id(BLOCK_GROUP), worker.external_id, True)

    def unblock(self, worker, reason: str) -> None:
        self._members(self.group_id(BLOCK_GROUP), worker.external_id, False)

    def grant_qualification(self, worker, qualification: str, value: int = 1) -> None:
        self._members(self._qual_group(qualification), worker.external_id, True)

    def revoke_qualification(self, worker, qualification: str, reason: str = "") -> None:
        self._members(self._qual_group(qualification), worker.external_id, False)

    def send_message(self, worker, subject: str, body: str, *, study_id: str = "") -> bool:
        """Prolific's Messages API (POST /messages/: recipient_id, body and study_id are all required)."""
        if not study_id:
            raise ProviderError("Prolific messages name the study they are about: the worker has no study here")
        self._request("POST", "messages/", json={"recipient_id": worker.external_id, "body": f"{subject}\n\n{body}",
                                                 "study_id": study_id})
        return True

    def close(self, batch) -> None:
        for study_id in self._study_ids(batch):
            try:
                self._request("POST", f"studies/{study_id}/transition/", json={"action": "STOP"})
            except ProviderError:
                study = self._request("GET", f"studies/{study_id}/")
                if study.get("status") not in ("COMPLETED", "AWAITING REVIEW"):
                    raise

    # -- webhooks ------------------------------------------------------------------------
    def create_hook_secret(self) -> str:
        """A new signing secret for the workspace (Prolific keeps one active secret per workspace: this replaces
        the old one, so store it before anything else)."""
        data = self._request("POST", "hooks/secrets/", json={"workspace_id": self.workspace})
        return str(data["value"])

    def subscribe(self, target_url: str, event_types: Iterable[str] = HOOK_EVENTS) -> list[str]:
        """Subscribe `target_url` (public https) to each event type and confirm each subscription with the
        X-Hook-Secret header its creation answered; returns the subscription ids. Existing confirmed
        subscriptions of the same event and target are kept, not duplicated."""
        existing = {(s.get("event_type"), s.get("target_url")): s for s in self._pages(
            f"hooks/subscriptions/?{urlencode({'workspace_id': self.workspace})}")}
        ids = []
        for event_type in event_types:
            found = existing.get((event_type, target_url))
            if found is not None and found.get("is_enabled"):
                ids.append(str(found["id"]))
                continue
            url = f"{self.api_url}/hooks/subscriptions/"
            body = {"workspace_id": self.workspace, "event_type": event_type, "target_url": target_url}
            try:
                resp = self.session.post(url, json=body, timeout=30)
            except requests.RequestException as exc:
                raise ProlificError(f"prolific POST hooks/subscriptions/: {exc}") from exc
            if resp.status_code >= 400:
                raise ProlificError(f"prolific POST hooks/subscriptions/: {resp.status_code} {resp.text[:500]}",
                                    resp.status_code)
            data = resp.json()
            created = (data.get("results") or [data])[0] if isinstance(data, dict) else {}
            hook_secret = resp.headers.get("X-Hook-Secret", "")
            if not hook_secret:
                raise ProlificError("prolific POST hooks/subscriptions/: no X-Hook-Secret header to confirm with")
            self._request("POST", f"hooks/subscriptions/{created['id']}/", json={"secret": hook_secret}, safe=True)
            ids.append(str(created["id"]))
        return ids


class _one_bonus_at_a_time:  # noqa: N801 - used as a context manager
    """Holds the process lock and, where the cache is shared (Redis), a cache lock, for one bonus call."""

    def __enter__(self) -> None:
        from django.core.cache import cache

        _BONUS_LOCK.acquire()
        deadline = time.monotonic() + BONUS_LOCK_WAIT_S
        while not cache.add(BONUS_LOCK_KEY, 1, timeout=int(BONUS_LOCK_WAIT_S)):
            if time.monotonic() > deadline:
                _BONUS_LOCK.release()
                raise ProlificError("another bonus payment is still in progress; try again in a minute", 429)
            time.sleep(0.05)

    def __exit__(self, *exc) -> None:
        from django.core.cache import cache

        cache.delete(BONUS_LOCK_KEY)
        _BONUS_LOCK.release()
