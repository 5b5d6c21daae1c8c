"""Amazon Mechanical Turk through boto3.

MTurk took no new requesters from 2026-07-30 and its API pages say it closes permanently on 2026-09-30: new HITs
are published only where MTURK_ENDPOINT_URL names an MTurk-compatible endpoint (not Amazon's own); syncing,
reviewing and paying HITs published before, and importing MTurk results CSVs, stay.
The sandbox is used unless MTURK_PRODUCTION is set explicitly; MTURK_ENDPOINT_URL overrides both (tests point
it at a fake on loopback). Every write that MTurk can deduplicate carries a UniqueRequestToken; writes it
cannot (approve, reject) are made idempotent by checking the assignment's state when MTurk refuses a repeat.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from decimal import Decimal
from urllib.parse import urlparse

from django.conf import settings

from annotation_tasks.crowd import mturk_xml
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
    request_token,
)
from annotation_tasks.crowd.entry import unit_entry_url

PRODUCTION_ENDPOINT = "https://mturk-requester.us-east-1.amazonaws.com"
SANDBOX_ENDPOINT = "https://mturk-requester-sandbox.us-east-1.amazonaws.com"
PRODUCTION_WORKER_SITE = "https://worker.mturk.com"
SANDBOX_WORKER_SITE = "https://workersandbox.mturk.com"
CLOSED = (
    "Amazon Mechanical Turk stopped taking new requesters on 2026-07-30 and closes permanently on 2026-09-30, so "
    "FactCrowd publishes no new HITs there. Use --provider prolific (or a URL-parameter panel, --provider panel), "
    "or set MTURK_ENDPOINT_URL to an MTurk-compatible endpoint. Syncing and reviewing HITs published before, and "
    "importing MTurk results CSVs (services.imports.import_results_csv), still work."
)
PREVIEW_ASSIGNMENT_ID = "ASSIGNMENT_ID_NOT_AVAILABLE"
# Where MTurk's worker site receives a HIT's answers (the documented turkSubmitTo values). A page posts the
# worker's answers there, so any other origin in a link is a forgery; MTURK_SUBMIT_TEST_ORIGIN adds one
# (the loopback fake in tests).
SUBMIT_ORIGINS = ("https://www.mturk.com", "https://workersandbox.mturk.com")
# MTurk's answer to a UniqueRequestToken it has seen within the last 24 hours (after that it forgets tokens).
_REPEATED_TOKEN = re.compile(r"idempotency token .* has already been processed", re.I | re.S)
TOKEN_LIFETIME_S = 24 * 3600
_HIT_ID = re.compile(r"\b([A-Z0-9]{30})\b")
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
# MTurk's id shapes (EntityId for assignments and HITs, CustomerId for workers, in its API model): anything else
# cannot be MTurk's, and is refused without a call.
_ENTITY_ID = re.compile(r"[A-Z0-9]{1,64}")
_WORKER_ID = re.compile(r"A[A-Z0-9]{1,63}")
ENTRY_TIMEOUT_S = 5  # seconds a worker at the door may wait for MTurk
_STATUS = {"Submitted": SubmissionStatus.SUBMITTED, "Approved": SubmissionStatus.APPROVED,
           "Rejected": SubmissionStatus.REJECTED}

DEFAULTS = {
    "title": "Judge whether generated text is supported by a source",
    "description": "Read a short source and mark which parts of a generated text it supports.",
    "keywords": "text, fact checking, annotation, consistency",
    "duration_s": 60 * 60,
    "lifetime_s": 7 * 24 * 3600,
    "auto_approval_delay_s": 3 * 24 * 3600,
    "question": "external",
    "frame_height": 0,
}


def fee_rate(assignments_per_unit: int) -> Decimal:
    """MTurk's commission: 20%, or 40% for HITs with 10 or more assignments."""
    return Decimal("0.40") if assignments_per_unit >= 10 else Decimal("0.20")


class MTurkError(ProviderError):
    """MTurk answered with an error (RequestError / ServiceFault) after botocore's retries."""

    def __init__(self, operation: str, code: str, message: str) -> None:
        super().__init__(f"mturk {operation}: {code}: {message}")
        self.operation, self.code, self.message = operation, code, message

    @property
    def repeat_token(self) -> bool:
        """MTurk's answer to a reused UniqueRequestToken ('The idempotency token "..." has already been
        processed'): the first call went through, so this one is a retry, not a failure."""
        return bool(_REPEATED_TOKEN.search(self.message))


def submit_origin_allowed(turk_submit_to: str) -> bool:
    """Whether turkSubmitTo is MTurk's own worker site (production or sandbox) or the configured test origin."""
    allowed = {*SUBMIT_ORIGINS, *(o for o in [getattr(settings, "MTURK_SUBMIT_TEST_ORIGIN", "")] if o)}
    parsed = urlparse(turk_submit_to)
    if parsed.path.strip("/") or parsed.query or parsed.params or parsed.fragment or parsed.username:
        return False
    return f"{parsed.scheme}://{parsed.netloc}".lower() in {o.rstrip("/").lower() for o in allowed}


class MTurkProvider(CrowdProvider):
    name = "mturk"

    def __init__(
        self,
        *,
        endpoint_url: str | None = None,
        production: bool | None = None,
        sandbox: bool = False,
        client=None,
        max_attempts: int = 10,
        aws_access_key_id: str | None = None,
        aws_secret_access_key: str | None = None,
    ) -> None:
        # --sandbox wins over everything: a dry run must never reach production by accident.
        self.production = False if sandbox else (settings.MTURK_PRODUCTION if production is None else production)
        self.endpoint_url = (
            endpoint_url
            or settings.MTURK_ENDPOINT_URL
            or (PRODUCTION_ENDPOINT if self.production else SANDBOX_ENDPOINT)
        )
        self._explicit_endpoint = endpoint_url or settings.MTURK_ENDPOINT_URL or ""
        self.max_attempts = max_attempts
        self._keys = (
            aws_access_key_id or settings.AWS_ACCESS_KEY_ID or None,
            aws_secret_access_key or settings.AWS_SECRET_ACCESS_KEY or None,
        )
        self._client = client
        self._entry_client = client  # one try, short timeouts: asked while a worker waits for the page
        self._hit_types: dict[str, str] = {}  # repr of the sorted attributes -> HITTypeId
        self._hits_by_annotation: dict[str, str] | None = None  # RequesterAnnotation -> HITId, once listed
        self._qual_types: dict[str, str] = {}

    # -- the boto3 client ----------------------------------------------------------------
    @property
    def client(self):
        """Built lazily so that parse_entry (run on every unit page) never needs credentials."""
        if self._client is None:
            import boto3
            from botocore.config import Config

            self._client = boto3.client(
                "mturk",
                region_name="us-east-1",
                endpoint_url=self.endpoint_url,
                aws_access_key_id=self._keys[0],
                aws_secret_access_key=self._keys[1],
                config=Config(
                    retries={"mode": "adaptive", "max_attempts": self.max_attempts},
                    connect_timeout=10,
                    read_timeout=60,
                ),
            )
        return self._client

    @property
    def entry_client(self):
        """The client for entry checks: no retries and short timeouts, so a slow MTurk never holds a worker up."""
        if self._entry_client is None:
            import boto3
            from botocore.config import Config

            self._entry_client = boto3.client(
                "mturk",
                region_name="us-east-1",
                endpoint_url=self.endpoint_url,
                aws_access_key_id=self._keys[0],
                aws_secret_access_key=self._keys[1],
                config=Config(retries={"mode": "standard", "total_max_attempts": 1},
                              connect_timeout=ENTRY_TIMEOUT_S, read_timeout=ENTRY_TIMEOUT_S),
            )
        return self._entry_client

    def _call(self, operation: str, *, client=None, **params):
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            return getattr(client or self.client, operation)(**params)
        except ClientError as exc:
            err = exc.response.get("Error", {})
            raise MTurkError(operation, err.get("Code", ""), err.get("Message", "") or str(exc)) from exc
        except BotoCoreError as exc:
            raise ProviderError(f"mturk {operation}: {exc}") from exc

    @property
    def worker_site(self) -> str:
        return PRODUCTION_WORKER_SITE if self.production and not settings.MTURK_ENDPOINT_URL else SANDBOX_WORKER_SITE

    def bonus_fee_rate(self) -> Decimal:
        return Decimal("0.20")

    # -- entry ---------------------------------------------------------------------------
    def parse_entry(self, query: Mapping[str, str]) -> EntryContext | None:
        assignment_id = query.get("assignmentId", "")
        hit_id = query.get("hitId", "")
        if not assignment_id or not hit_id:
            return None
        preview = assignment_id == PREVIEW_ASSIGNMENT_ID
        if not preview and not query.get("workerId"):
            return None  # an accepted assignment always names its worker; anything else is not MTurk's
        submit_to = query.get("turkSubmitTo", "")
        if submit_to and not submit_origin_allowed(submit_to):
            return None  # a forged link: the page would post the worker's answers to a stranger
        return EntryContext(
            worker_external_id="" if preview else query.get("workerId", ""),
            provider_assignment_id="" if preview else assignment_id,
            preview=preview,
            submit_to=f"{submit_to.rstrip('/')}/mturk/externalSubmit" if submit_to and not preview else "",
            extra={"hit_id": hit_id},
        )

    def check_entry(self, unit, context: EntryContext) -> str | None:
        """The hitId must be the unit's own HIT (stored at publish); the worker and assignment ids are checked at
        sync, where MTurk lists the HIT's assignments."""
        hit_id = context.extra.get("hit_id", "")
        if not unit.provider_ref or hit_id != unit.provider_ref:
            return "this link does not belong to this unit's HIT"
        return None

    def verify_entry(self, unit, context: EntryContext) -> EntryCheck:
        """GetAssignment reads an assignment only once it is Submitted, Approved or Rejected (MTurk's API reference):
        then its HITId and WorkerId must be this unit's HIT and this worker. An accepted assignment in progress
        cannot be read, nor told from a made-up one, so it is let in holding no slot (AFTER_SUBMIT: MTurk never lets
        more real workers accept than MaxAssignments, and sync verifies the work) -- unless GetHIT says nobody
        holds the HIT (NumberOfAssignmentsPending 0): then no real worker can be at the door."""
        aid, worker, hit_id = context.provider_assignment_id, context.worker_external_id, unit.provider_ref
        if not (_ENTITY_ID.fullmatch(aid) and _WORKER_ID.fullmatch(worker) and _ENTITY_ID.fullmatch(hit_id)):
            return EntryCheck(EntryVerdict.UNKNOWN, "these are not MTurk's ids; open the HIT from MTurk")
        try:
            found = self._call("get_assignment", client=self.entry_client, AssignmentId=aid)["Assignment"]
        except MTurkError as exc:
            if exc.code != "RequestError":
                return EntryCheck(EntryVerdict.AFTER_SUBMIT)  # MTurk cannot be asked now; sync has the last word
        except ProviderError:
            return EntryCheck(EntryVerdict.AFTER_SUBMIT)
        else:
            if found.get("HITId") != hit_id or found.get("WorkerId") != worker:
                return EntryCheck(EntryVerdict.UNKNOWN, "this assignment is not this worker's in this unit's HIT")
            return EntryCheck(EntryVerdict.VERIFIED)
        try:
            hit = self._call("get_hit", client=self.entry_client, HITId=hit_id)["HIT"]
        except MTurkError as exc:
            if exc.code == "RequestError":
                return EntryCheck(EntryVerdict.UNKNOWN, "MTurk does not know this unit's HIT")
            return EntryCheck(EntryVerdict.AFTER_SUBMIT)
        except ProviderError:
            return EntryCheck(EntryVerdict.AFTER_SUBMIT)
        if int(hit.get("NumberOfAssignmentsPending") or 0) < 1:
            return EntryCheck(EntryVerdict.UNKNOWN, "MTurk lists no worker holding this HIT; accept it on MTurk first")
        return EntryCheck(EntryVerdict.AFTER_SUBMIT)

    # -- money ---------------------------------------------------------------------------
    def estimate_cost(self, units: int, assignments_per_unit: int, reward: Decimal) -> CostEstimate:
        reward = money(reward)
        rate = fee_rate(assignments_per_unit)
        per_assignment_fee = max(money(reward * rate), Decimal("0.01"))  # MTurk's minimum fee is one cent
        n = units * assignments_per_unit
        fees = per_assignment_fee * n
        return CostEstimate(units, assignments_per_unit, reward, fees, reward * n + fees, "USD", rate)

    def account_balance(self) -> Decimal | None:
        return Decimal(self._call("get_account_balance")["AvailableBalance"])

    # -- publishing ----------------------------------------------------------------------
    def question_xml(self, unit, options: Mapping) -> str:
        url = unit_entry_url(unit, self.name)
        parsed = urlparse(url)
        if parsed.scheme != "https" and parsed.hostname not in _LOOPBACK:
            raise ProviderError(f"MTurk needs an HTTPS unit page; PUBLIC_BASE_URL gives {url!r}")
        if options.get("question", "external") != "external":
            # HTMLQuestion pages are served from *.mturkcontent.com, a domain every requester's HTML shares: framing
            # our unit page from there would mean letting any requester's page frame it. ExternalQuestion does
            # the same job with MTurk's own origins only.
            raise ProviderError(f"MTurk question mode {options.get('question')!r} is not supported; use 'external'"
                                " (an ExternalQuestion framing the unit page)")
        if parsed.scheme != "https":
            url_for_xml = url  # loopback dev/test only: real MTurk refuses it anyway
            return (
                f'<ExternalQuestion xmlns="{mturk_xml.EXTERNAL_QUESTION_NS}">'
                f"<ExternalURL>{url_for_xml.replace('&', '&amp;')}</ExternalURL>"
                f"<FrameHeight>{int(options.get('frame_height', 0))}</FrameHeight></ExternalQuestion>"
            )
        return mturk_xml.external_question(url, options.get("frame_height", 0))

    def qualification_requirements(self, options: Mapping) -> list[dict]:
        custom = {self.qualification_type_id(name): int(v) for name, v in (options.get("qualifications") or {}).items()}
        return mturk_xml.qualification_requirements(
            min_approval_rate=options.get("min_approval_rate"),
            min_approved_hits=options.get("min_approved_hits"),
            locales=options.get("locales"),
            custom=custom,
        )

    def hit_type_id(self, reward: Decimal, options: Mapping) -> str:
        """CreateHITType returns the same id for the same attributes, so calling it again is harmless."""
        reqs = self.qualification_requirements(options)
        params = {
            "AutoApprovalDelayInSeconds": int(options["auto_approval_delay_s"]),
            "AssignmentDurationInSeconds": int(options["duration_s"]),
            "Reward": str(money(reward)),
            "Title": options["title"],
            "Keywords": options["keywords"],
            "Description": options["description"],
        }
        if reqs:
            params["QualificationRequirements"] = reqs
        key = repr(sorted(params.items(), key=lambda kv: kv[0]))
        if key not in self._hit_types:
            self._hit_types[key] = self._call("create_hit_type", **params)["HITTypeId"]
        return self._hit_types[key]

    def publish_refusal(self) -> str | None:
        """New HITs only on an MTurk-compatible endpoint named by MTURK_ENDPOINT_URL (or endpoint_url): Amazon's
        own endpoints are closing (see the module's docstring)."""
        endpoint = self._explicit_endpoint
        host = urlparse(endpoint).hostname or ""
        if not endpoint or host.endswith(".amazonaws.com"):
            return CLOSED
        return None

    def publish(self, batch, units: Iterable, *, reward: Decimal, assignments_per_unit: int, **options) -> list[str]:
        refusal = self.publish_refusal()
        if refusal is not None:
            raise ProviderError(refusal)
        opts = {**DEFAULTS, **(batch.settings or {}), **options}
        hit_type = self.hit_type_id(reward, opts)
        refs = []
        for unit in units:
            annotation = f"factcrowd:unit:{unit.pk}"
            if opts.get("resume"):
                # An earlier attempt may have created the HIT and lost the answer, and MTurk forgets request tokens
                # after 24 hours: read the account's HITs back before creating one.
                found = self._hit_by_annotation(annotation)
                if found is not None:
                    refs.append(found)
                    continue
            token = request_token("mturk-hit", batch.pk, unit.pk, assignments_per_unit)
            try:
                hit = self._call(
                    "create_hit_with_hit_type",
                    HITTypeId=hit_type,
                    MaxAssignments=int(assignments_per_unit),
                    LifetimeInSeconds=int(opts["lifetime_s"]),
                    Question=self.question_xml(unit, opts),
                    RequesterAnnotation=annotation,
                    UniqueRequestToken=token,
                )["HIT"]
                refs.append(hit["HITId"])
            except MTurkError as exc:
                if not exc.repeat_token:
                    raise
                refs.append(self._existing_hit(exc, annotation))
        return refs

    def _hit_by_annotation(self, annotation: str, *, fresh: bool = False) -> str | None:
        """Our HIT with this RequesterAnnotation, from one listing of the account's HITs per provider instance."""
        if self._hits_by_annotation is None or fresh:
            found: dict[str, str] = {}
            for page in self.client.get_paginator("list_hits").paginate(PaginationConfig={"PageSize": 100}):
                for hit in page.get("HITs", []):
                    if hit.get("RequesterAnnotation"):
                        found.setdefault(hit["RequesterAnnotation"], hit["HITId"])
            self._hits_by_annotation = found
        return self._hits_by_annotation.get(annotation)

    def _existing_hit(self, exc: MTurkError, annotation: str) -> str:
        """A repeated UniqueRequestToken means the HIT exists; MTurk's answer does not name it: find it by its
        RequesterAnnotation."""
        match = _HIT_ID.search(exc.message)
        if match:
            return match.group(1)
        found = self._hit_by_annotation(annotation, fresh=True)
        if found is None:
            raise ProviderError(f"mturk says the HIT for {annotation} exists but it cannot be found: {exc.message}")
        return found

    def preview_url(self, unit) -> str:
        group = self._call("get_hit", HITId=unit.provider_ref)["HIT"]["HITGroupId"]
        return f"{self.worker_site}/mturk/preview?groupId={group}"

    # -- sync ----------------------------------------------------------------------------
    def list_submissions(self, batch) -> Iterator[SubmissionRecord]:
        refs = batch.units.exclude(provider_ref="").values_list("provider_ref", flat=True)
        paginator = self.client.get_paginator("list_assignments_for_hit")
        for hit_id in refs:
            pages = paginator.paginate(
                HITId=hit_id,
                AssignmentStatuses=list(_STATUS),
                PaginationConfig={"PageSize": 100},
            )
            for page in pages:
                for a in page.get("Assignments", []):
                    submit = a.get("SubmitTime")
                    yield SubmissionRecord(
                        provider_assignment_id=a["AssignmentId"],
                        worker_external_id=a["WorkerId"],
                        unit_ref=a.get("HITId", hit_id),
                        status=_STATUS.get(a["AssignmentStatus"], a["AssignmentStatus"].lower()),
                        submitted_at=submit.isoformat() if isinstance(submit, datetime) else submit,
                        answer=mturk_xml.parse_answer(a.get("Answer")),
                    )

    # -- review --------------------------------------------------------------------------
    def _status(self, assignment_id: str) -> str:
        return self._call("get_assignment", AssignmentId=assignment_id)["Assignment"]["AssignmentStatus"]

    def approve(self, assignment, feedback: str = "") -> None:
        aid = assignment.provider_assignment_id
        params = {"AssignmentId": aid, **({"RequesterFeedback": feedback[:1024]} if feedback else {})}
        try:
            self._call("approve_assignment", **params)
        except MTurkError:
            status = self._status(aid)
            if status == "Approved":
                return  # a repeat: already done
            if status == "Rejected":  # reversing a rejection
                self._call("approve_assignment", OverrideRejection=True, **params)
                return
            raise

    def reject(self, assignment, feedback: str) -> None:
        aid = assignment.provider_assignment_id
        try:
            self._call("reject_assignment", AssignmentId=aid, RequesterFeedback=(feedback or "Rejected")[:1024])
        except MTurkError:
            if self._status(aid) == "Rejected":
                return
            raise

    def bonus(self, assignment, amount: Decimal, reason: str, request_token: str) -> None:
        try:
            self._call(
                "send_bonus",
                WorkerId=assignment.worker.external_id,
                AssignmentId=assignment.provider_assignment_id,
                BonusAmount=str(money(amount)),
                Reason=reason or "Bonus",
                UniqueRequestToken=request_token[:64],
            )
        except MTurkError as exc:
            if not exc.repeat_token:
                raise
            # paid before with this token: a retry, nothing more to pay

    def bonus_payments(self, assignment) -> list[Decimal]:
        """The bonuses MTurk has paid on this assignment (ListBonusPayments): read back before retrying a bonus
        whose request token may have expired."""
        paid: list[Decimal] = []
        pages = self.client.get_paginator("list_bonus_payments").paginate(
            AssignmentId=assignment.provider_assignment_id, PaginationConfig={"PageSize": 100}
        )
        try:
            for page in pages:
                paid += [Decimal(str(b["BonusAmount"])) for b in page.get("BonusPayments", [])
                         if b.get("WorkerId") == assignment.worker.external_id]
        except Exception as exc:
            raise ProviderError(f"mturk list_bonus_payments: {exc}") from exc
        return paid

    # -- workers -------------------------------------------------------------------------
    def block(self, worker, reason: str) -> None:
        self._call("create_worker_block", WorkerId=worker.external_id, Reason=reason or "Blocked")

    def unblock(self, worker, reason: str) -> None:
        self._call("delete_worker_block", WorkerId=worker.external_id, Reason=reason or "Unblocked")

    def qualification_type_id(self, name: str) -> str:
        """Our own qualification type (train -> qualify -> work), created on first use and found again by name."""
        if re.fullmatch(r"[A-Z0-9]{20,40}", name):
            return name  # already an id
        if name in self._qual_types:
            return self._qual_types[name]
        paginator = self.client.get_paginator("list_qualification_types")
        pages = paginator.paginate(
            Query=name, MustBeRequestable=False, MustBeOwnedByCaller=True, PaginationConfig={"PageSize": 100}
        )
        for page in pages:
            for qt in page.get("QualificationTypes", []):
                if qt["Name"] == name:
                    self._qual_types[name] = qt["QualificationTypeId"]
                    return qt["QualificationTypeId"]
        created = self._call(
            "create_qualification_type",
            Name=name,
            Description=f"FactCrowd qualification {name}",
            QualificationTypeStatus="Active",
        )["QualificationType"]
        self._qual_types[name] = created["QualificationTypeId"]
        return self._qual_types[name]

    def send_message(self, worker, subject: str, body: str, *, study_id: str = "") -> bool:
        """NotifyWorkers (subject at most 200 characters, text at most 4096)."""
        self._call("notify_workers", Subject=subject[:200], MessageText=body[:4096], WorkerIds=[worker.external_id])
        return True

    def grant_qualification(self, worker, qualification: str, value: int = 1) -> None:
        self._call(
            "associate_qualification_with_worker",
            QualificationTypeId=self.qualification_type_id(qualification),
            WorkerId=worker.external_id,
            IntegerValue=int(value),
            SendNotification=False,
        )

    def revoke_qualification(self, worker, qualification: str, reason: str = "") -> None:
        self._call(
            "disassociate_qualification_from_worker",
            QualificationTypeId=self.qualification_type_id(qualification),
            WorkerId=worker.external_id,
            Reason=reason or "Revoked",
        )

    def close(self, batch) -> None:
        past = datetime(2015, 1, 1, tzinfo=UTC)  # an expiry in the past expires the HIT now
        for hit_id in batch.units.exclude(provider_ref="").values_list("provider_ref", flat=True):
            self._call("update_expiration_for_hit", HITId=hit_id, ExpireAt=past)
