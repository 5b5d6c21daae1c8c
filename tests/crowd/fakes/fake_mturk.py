"""A small fake of the MTurk requester API on loopback, for boto3 pointed at it with endpoint_url.

It speaks MTurk's JSON protocol (X-Amz-Target names the operation), keeps HITs, assignments, bonuses, blocks and
qualifications in memory, pages like MTurk (NextToken), answers a UniqueRequestToken seen within 24 hours with
MTurk's own error ('The idempotency token "..." has already been processed', which names no object) and forgets
it after that (`advance` moves the fake's clock), refuses HTMLQuestion and http ExternalURLs outside loopback,
lists bonus payments, reads an assignment (GetAssignment) only once it is submitted, gives a HIT's live
NumberOfAssignmentsPending / Available / Completed, holds ids to MTurk's shapes, can inject ThrottlingException, and also serves the worker side's /mturk/externalSubmit so
a browser (or requests) can submit an assignment as a worker would.
"""
from __future__ import annotations

import html
import json
import random
import re
import string
import threading
import time
from decimal import Decimal
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlencode, urlparse
from xml.etree import ElementTree

from annotation_tasks.crowd.mturk_xml import answer_xml
from tests.crowd.fakes.loopback import LoopbackFake

TARGET_PREFIX = "MTurkRequesterServiceV20170117."
PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"
READABLE = ("Submitted", "Approved", "Rejected")  # the AssignmentStatus values GetAssignment can read
ENTITY_ID = re.compile(r"[A-Z0-9]{1,64}")  # EntityId in MTurk's API model (assignment and HIT ids)


class FakeError(Exception):
    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


def _entity_id(body: dict, field: str) -> str:
    """A required id parameter, held to MTurk's EntityId shape."""
    value = body.get(field)
    if not isinstance(value, str) or not ENTITY_ID.fullmatch(value):
        raise FakeError("ValidationException", f"1 validation error detected: Value at '{field}' failed to satisfy "
                                               "constraint: Member must satisfy regular expression pattern: ^[A-Z0-9]+$")
    return value


def _id(n: int = 30) -> str:
    return "".join(random.choices(string.ascii_uppercase + string.digits, k=n))


class FakeMTurk(LoopbackFake):
    """The fake's state and operations; `url` is the endpoint_url (and the turkSubmitTo) to use."""

    def __init__(self, balance: str = "10000.00") -> None:
        self.balance = Decimal(balance)
        self.lock = threading.RLock()
        self.hit_types: dict[str, dict] = {}
        self.hits: dict[str, dict] = {}
        self.assignments: dict[str, dict] = {}
        self.tokens: dict[str, tuple[str, float]] = {}  # token -> (object id, when first seen)
        self.offset = 0.0  # seconds added to the clock (advance)
        self.bonuses: list[dict] = []
        self.blocks: dict[str, str] = {}
        self.qual_types: dict[str, dict] = {}
        self.notified: list[dict] = []  # NotifyWorkers calls
        self.scores: dict[tuple[str, str], int] = {}
        self.calls: list[str] = []
        self.throttle_next = 0
        self.page_size_seen: list[int] = []

    # -- server ---------------------------------------------------------------------------
    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def _send(self, status: int, body: bytes, ctype: str = "application/x-amz-json-1.1") -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("x-amzn-RequestId", _id(12))
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802
                """The worker site: /hit/<assignment id> frames the HIT's ExternalURL as MTurk does."""
                match = re.fullmatch(r"/hit/([A-Za-z0-9_-]+)", urlparse(self.path).path)
                try:
                    url = fake.worker_url(match.group(1)) if match else None
                except KeyError:
                    url = None
                if url is None:
                    self._send(404, b"not found", "text/plain")
                    return
                page = (
                    "<!doctype html><title>HIT</title>"
                    f'<iframe id="hit" src="{html.escape(url)}" width="1200" height="860"></iframe>'
                )
                self._send(200, page.encode(), "text/html; charset=utf-8")

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if urlparse(self.path).path.rstrip("/").endswith("/mturk/externalSubmit"):
                    form = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
                    try:
                        fake.external_submit(form)
                        self._send(200, b"<html><body>Your HIT has been submitted.</body></html>", "text/html")
                    except FakeError as exc:
                        self._send(400, exc.message.encode(), "text/plain")
                    return
                target = self.headers.get("X-Amz-Target", "")
                if not target.startswith(TARGET_PREFIX) or "Authorization" not in self.headers:
                    self._send(400, json.dumps({"__type": "RequestError", "Message": "bad request"}).encode())
                    return
                try:
                    out = fake.dispatch(target[len(TARGET_PREFIX):], json.loads(raw or b"{}"))
                    self._send(200, json.dumps(out).encode())
                except FakeError as exc:
                    self._send(exc.status, json.dumps({"__type": exc.code, "Message": exc.message}).encode())

        return Handler

    # -- worker side (what a worker's browser does on MTurk) ---------------------------------
    def accept(self, hit_id: str, worker_id: str, assignment_id: str | None = None) -> str:
        """A worker accepts the HIT: an assignment exists but is not listed (nor readable) until submitted."""
        if not re.fullmatch(r"A[A-Z0-9]{1,63}", worker_id):
            raise ValueError(f"{worker_id!r} is not an MTurk worker id (CustomerId: ^A[A-Z0-9]+$)")
        with self.lock:
            hit = self.hits[hit_id]
            taken = [a for a in self.assignments.values() if a["HITId"] == hit_id]
            if len(taken) >= hit["MaxAssignments"]:
                raise FakeError("RequestError", "no assignments available")
            aid = assignment_id or _id()
            self.assignments[aid] = {
                "AssignmentId": aid,
                "WorkerId": worker_id,
                "HITId": hit_id,
                "AssignmentStatus": "Accepted",
                "AcceptTime": time.time(),
            }
            return aid

    def external_submit(self, form: dict[str, str]) -> None:
        with self.lock:
            aid = form.get("assignmentId", "")
            fields = {k: v for k, v in form.items() if k != "assignmentId"}
            if aid not in self.assignments or not fields:
                raise FakeError("RequestError", "externalSubmit needs a known assignmentId and one more field")
            a = self.assignments[aid]
            a.update(AssignmentStatus="Submitted", SubmitTime=time.time(), Answer=answer_xml(fields))

    def worker_url(self, assignment_id: str) -> str:
        """The URL MTurk opens in its iframe: the ExternalURL plus assignmentId, hitId, workerId, turkSubmitTo."""
        with self.lock:
            if assignment_id == PREVIEW:
                raise KeyError(assignment_id)
            a = self.assignments[assignment_id]
            return self.external_url(a["HITId"], assignmentId=assignment_id, hitId=a["HITId"],
                                     workerId=a["WorkerId"], turkSubmitTo=self.url)

    def external_url(self, hit_id: str, **params: str) -> str:
        root = ElementTree.fromstring(self.hits[hit_id]["Question"])
        url = next(el.text for el in root.iter() if el.tag.endswith("ExternalURL"))
        return url + ("&" if "?" in url else "?") + urlencode(params)

    def submit(self, hit_id: str, worker_id: str, answers: dict[str, str] | None = None) -> str:
        aid = self.accept(hit_id, worker_id)
        self.external_submit({"assignmentId": aid, **(answers or {"done": "1"})})
        return aid

    # -- requester API ---------------------------------------------------------------------
    def dispatch(self, op: str, body: dict) -> dict:
        with self.lock:
            self.calls.append(op)
            if self.throttle_next > 0:
                self.throttle_next -= 1
                raise FakeError("ThrottlingException", "Rate exceeded")
            handler = getattr(self, f"op_{op}", None)
            if handler is None:
                raise FakeError("RequestError", f"operation {op} not implemented by the fake")
            return handler(body)

    def now(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        """Move the clock on (request tokens expire 24 hours after their first use)."""
        with self.lock:
            self.offset += seconds

    def _token(self, body: dict, kind: str) -> str | None:
        token = body.get("UniqueRequestToken")
        if token is not None and not 1 <= len(token) <= 64:
            raise FakeError("ValidationException", "UniqueRequestToken must be 1 to 64 characters")
        seen = self.tokens.get(token) if token else None
        if seen is not None and self.now() - seen[1] < 24 * 3600:
            raise FakeError("RequestError", f'The idempotency token "{token}" has already been processed.')
        return token

    def _remember(self, token: str | None, object_id: str) -> None:
        if token:
            self.tokens[token] = (object_id, self.now())

    def _page(self, items: list, body: dict) -> tuple[list, str | None]:
        size = int(body.get("MaxResults") or 10)
        if size > 100:
            raise FakeError("ValidationException", "MaxResults must be at most 100")
        self.page_size_seen.append(size)
        start = int(body.get("NextToken") or 0)
        chunk = items[start : start + size]
        nxt = str(start + size) if start + size < len(items) else None
        return chunk, nxt

    def op_GetAccountBalance(self, body: dict) -> dict:  # noqa: N802
        return {"AvailableBalance": str(self.balance.quantize(Decimal("0.01")))}

    def op_CreateHITType(self, body: dict) -> dict:  # noqa: N802
        for key in ("AssignmentDurationInSeconds", "Reward", "Title", "Description"):
            if key not in body:
                raise FakeError("ValidationException", f"{key} is required")
        for req in body.get("QualificationRequirements", []):
            if req.get("QualificationTypeId") not in self.qual_types and not req["QualificationTypeId"].startswith("0000"):
                raise FakeError("RequestError", f"unknown qualification type {req['QualificationTypeId']}")
        key = json.dumps(body, sort_keys=True)
        for tid, ht in self.hit_types.items():
            if ht["_key"] == key:
                return {"HITTypeId": tid}
        tid = _id()
        self.hit_types[tid] = {**body, "_key": key}
        return {"HITTypeId": tid}

    def op_CreateHITWithHITType(self, body: dict) -> dict:  # noqa: N802
        token = self._token(body, "HIT")
        ht = self.hit_types.get(body["HITTypeId"])
        if ht is None:
            raise FakeError("RequestError", "unknown HITTypeId")
        question = body["Question"]
        if len(question.encode()) > 65535 or "<ExternalURL>" not in question:
            raise FakeError("ParameterValidationError", "Question is not valid XML of a known schema")
        url = re.search(r"<ExternalURL>(.*?)</ExternalURL>", question, re.S).group(1)
        if not url.startswith("https://") and urlparse(html.unescape(url)).hostname not in ("127.0.0.1", "localhost"):
            raise FakeError("ParameterValidationError", "ExternalURL must be an HTTPS URL")
        for key in ("MaxAssignments", "LifetimeInSeconds"):
            if not isinstance(body.get(key), int):
                raise FakeError("ValidationException", f"{key} is required and must be an integer")
        hit_id = _id()
        hit = {
            "HITId": hit_id,
            "HITTypeId": body["HITTypeId"],
            "HITGroupId": "G" + body["HITTypeId"][1:],
            "CreationTime": time.time(),
            "Title": ht["Title"],
            "Description": ht["Description"],
            "Question": question,
            "Keywords": ht.get("Keywords", ""),
            "HITStatus": "Assignable",
            "MaxAssignments": body["MaxAssignments"],
            "Reward": ht["Reward"],
            "AutoApprovalDelayInSeconds": ht.get("AutoApprovalDelayInSeconds", 2592000),
            "Expiration": time.time() + body["LifetimeInSeconds"],
            "AssignmentDurationInSeconds": ht["AssignmentDurationInSeconds"],
            "RequesterAnnotation": body.get("RequesterAnnotation", ""),
            "QualificationRequirements": ht.get("QualificationRequirements", []),
        }
        self.hits[hit_id] = hit
        self._remember(token, hit_id)
        fee = Decimal("0.4") if body["MaxAssignments"] >= 10 else Decimal("0.2")
        self.balance -= Decimal(ht["Reward"]) * body["MaxAssignments"] * (1 + fee)
        return {"HIT": hit}

    def _hit_view(self, hit: dict) -> dict:
        """A HIT with MTurk's live counts: pending = accepted and not yet submitted, returned or abandoned."""
        mine = [a["AssignmentStatus"] for a in self.assignments.values() if a["HITId"] == hit["HITId"]]
        pending = sum(1 for st in mine if st == "Accepted")
        completed = sum(1 for st in mine if st in READABLE)
        return {**hit, "NumberOfAssignmentsPending": pending, "NumberOfAssignmentsCompleted": completed,
                "NumberOfAssignmentsAvailable": max(0, hit["MaxAssignments"] - pending - completed)}

    def op_GetHIT(self, body: dict) -> dict:  # noqa: N802
        hit_id = _entity_id(body, "HITId")
        if hit_id not in self.hits:
            raise FakeError("RequestError", f"Hit {hit_id} does not exist. ({int(time.time() * 1000)})")
        return {"HIT": self._hit_view(self.hits[hit_id])}

    def op_ListHITs(self, body: dict) -> dict:  # noqa: N802
        chunk, nxt = self._page([self._hit_view(h) for h in self.hits.values()], body)
        return {"HITs": chunk, "NumResults": len(chunk), **({"NextToken": nxt} if nxt else {})}

    def op_UpdateExpirationForHIT(self, body: dict) -> dict:  # noqa: N802
        hit = self.hits[body["HITId"]]
        hit["Expiration"] = body["ExpireAt"]
        if float(body["ExpireAt"]) <= time.time():
            hit["HITStatus"] = "Reviewable"
        return {}

    def op_ListAssignmentsForHIT(self, body: dict) -> dict:  # noqa: N802
        statuses = body.get("AssignmentStatuses") or ["Submitted", "Approved", "Rejected"]
        items = [
            {k: v for k, v in a.items()}
            for a in self.assignments.values()
            if a["HITId"] == body["HITId"] and a["AssignmentStatus"] in statuses
        ]
        chunk, nxt = self._page(items, body)
        return {"Assignments": chunk, "NumResults": len(chunk), **({"NextToken": nxt} if nxt else {})}

    def op_GetAssignment(self, body: dict) -> dict:  # noqa: N802
        """Like MTurk: only the requester's own assignments with a status of Submitted, Approved or Rejected; one
        accepted and in progress cannot be read (the same error as an assignment that does not exist)."""
        aid = _entity_id(body, "AssignmentId")
        a = self.assignments.get(aid)
        if a is None or a["AssignmentStatus"] not in READABLE:
            raise FakeError("RequestError", f"Assignment {aid} does not exist. ({int(time.time() * 1000)})")
        return {"Assignment": a, "HIT": self._hit_view(self.hits[a["HITId"]])}

    def op_ApproveAssignment(self, body: dict) -> dict:  # noqa: N802
        a = self.assignments.get(body["AssignmentId"])
        if a is None:
            raise FakeError("RequestError", "assignment does not exist")
        ok = a["AssignmentStatus"] == "Submitted" or (
            a["AssignmentStatus"] == "Rejected" and body.get("OverrideRejection")
        )
        if not ok:
            raise FakeError(
                "RequestError", f"This operation can be called with a status of: Submitted ({a['AssignmentStatus']})"
            )
        a.update(AssignmentStatus="Approved", ApprovalTime=time.time(), RequesterFeedback=body.get("RequesterFeedback", ""))
        return {}

    def op_RejectAssignment(self, body: dict) -> dict:  # noqa: N802
        a = self.assignments.get(body["AssignmentId"])
        if a is None or a["AssignmentStatus"] != "Submitted":
            raise FakeError("RequestError", "This operation can be called with a status of: Submitted")
        if not body.get("RequesterFeedback"):
            raise FakeError("ValidationException", "RequesterFeedback is required")
        a.update(AssignmentStatus="Rejected", RejectionTime=time.time(), RequesterFeedback=body["RequesterFeedback"])
        return {}

    def op_NotifyWorkers(self, body: dict) -> dict:  # noqa: N802
        if not body.get("Subject") or not body.get("MessageText") or not body.get("WorkerIds"):
            raise FakeError("ValidationException", "Subject, MessageText and WorkerIds are required")
        if len(body["Subject"]) > 200 or len(body["MessageText"]) > 4096 or len(body["WorkerIds"]) > 100:
            raise FakeError("ValidationException", "Subject <= 200, MessageText <= 4096, at most 100 WorkerIds")
        self.notified.append(body)
        return {"NotifyWorkersFailureStatuses": []}

    def op_SendBonus(self, body: dict) -> dict:  # noqa: N802
        self._token(body, "bonus")
        a = self.assignments.get(body["AssignmentId"])
        if a is None or a["WorkerId"] != body["WorkerId"]:
            raise FakeError("RequestError", "assignment does not belong to that worker")
        if not body.get("Reason"):
            raise FakeError("ValidationException", "Reason is required")
        bonus_id = _id(12)
        self.bonuses.append({**body, "BonusId": bonus_id, "GrantTime": self.now()})
        self._remember(body.get("UniqueRequestToken"), bonus_id)
        self.balance -= Decimal(body["BonusAmount"]) * Decimal("1.2")
        return {}

    def op_ListBonusPayments(self, body: dict) -> dict:  # noqa: N802
        if bool(body.get("HITId")) == bool(body.get("AssignmentId")):
            raise FakeError("ValidationException", "give exactly one of HITId and AssignmentId")
        items = [
            {k: b[k] for k in ("WorkerId", "BonusAmount", "AssignmentId", "Reason", "GrantTime")}
            for b in self.bonuses
            if b["AssignmentId"] == body.get("AssignmentId")
            or self.assignments.get(b["AssignmentId"], {}).get("HITId") == body.get("HITId")
        ]
        chunk, nxt = self._page(items, body)
        return {"BonusPayments": chunk, "NumResults": len(chunk), **({"NextToken": nxt} if nxt else {})}

    def op_CreateWorkerBlock(self, body: dict) -> dict:  # noqa: N802
        self.blocks[body["WorkerId"]] = body["Reason"]
        return {}

    def op_DeleteWorkerBlock(self, body: dict) -> dict:  # noqa: N802
        self.blocks.pop(body["WorkerId"], None)
        return {}

    def op_CreateQualificationType(self, body: dict) -> dict:  # noqa: N802
        if any(q["Name"] == body["Name"] for q in self.qual_types.values()):
            raise FakeError("RequestError", f"You have already created a QualificationType with this name: {body['Name']}")
        qid = _id()
        qt = {
            "QualificationTypeId": qid,
            "Name": body["Name"],
            "Description": body["Description"],
            "QualificationTypeStatus": body["QualificationTypeStatus"],
            "CreationTime": time.time(),
            "IsRequestable": False,
        }
        self.qual_types[qid] = qt
        return {"QualificationType": qt}

    def op_ListQualificationTypes(self, body: dict) -> dict:  # noqa: N802
        query = (body.get("Query") or "").lower()
        items = [q for q in self.qual_types.values() if query in q["Name"].lower()]
        chunk, nxt = self._page(items, body)
        return {"QualificationTypes": chunk, "NumResults": len(chunk), **({"NextToken": nxt} if nxt else {})}

    def op_AssociateQualificationWithWorker(self, body: dict) -> dict:  # noqa: N802
        if body["QualificationTypeId"] not in self.qual_types:
            raise FakeError("RequestError", "unknown qualification type")
        self.scores[(body["QualificationTypeId"], body["WorkerId"])] = body.get("IntegerValue", 1)
        return {}

    def op_DisassociateQualificationFromWorker(self, body: dict) -> dict:  # noqa: N802
        self.scores.pop((body["QualificationTypeId"], body["WorkerId"]), None)
        return {}

    # -- helpers for assertions ------------------------------------------------------------
    def score(self, name: str, worker_id: str) -> int | None:
        for qid, qt in self.qual_types.items():
            if qt["Name"] == name:
                return self.scores.get((qid, worker_id))
        return None


