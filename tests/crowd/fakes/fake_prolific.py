"""A small fake of Prolific's REST API (api/v1) on loopback, for the real `requests` code to talk to.

Studies (create, publish/stop transitions), submissions (list with `_links.next` paging, approve/reject
transitions, bulk approve), bonus set-up + pay, participant groups and a workspace balance. It also serves the
participant side: starting a submission (what Prolific does when a participant opens the study) and the
completion redirect /submissions/complete?cc=CODE (for the participant whose browser it is: the one who started
last, like Prolific's logged-in session). It can answer 429 a few times to exercise retries, or fail the next
call to one path with a 5xx after (or before) carrying it out.

Retrieving a submission (GET /submissions/{id}/, the SESSION_ID) answers only for submissions it made (404
otherwise), with `participant` and `study_id`; listing /submissions/ needs a study; `down` makes every API call
answer 503. What it enforces, as Prolific documents it: only the study fields of CreateStudy (an unknown one such as
`maximal_time` is a 400 naming it); participant groups are created in a workspace (or organisation) and listed
with a workspace filter; paying a bulk bonus twice pays twice; submission transitions are idempotent; a study
STOPs to COMPLETED; a submission may be PARTIALLY APPROVED; a code the study does not register still completes
the submission for manual review, with the code entered kept as study_code.

Also as documented: the Studies API "has rate limits in place to prevent researchers from launching too many studies
with low numbers of participants" (here: more than FEW_STUDIES studies of at most FEW_PLACES places created within
STUDY_WINDOW_S seconds answer 429); an active study's places can be raised (PATCH total_available_places), never
lowered. Webhooks: one secret per workspace (POST /hooks/secrets/ replaces it), subscriptions to known event types
with a public https target_url, answered with an X-Hook-Secret header and enabled only once confirmed with it; each
submission status change is delivered to enabled subscriptions, signed with the workspace's secret
(X-Prolific-Request-Signature = base64 HMAC-SHA256 of timestamp + body, X-Prolific-Request-Timestamp), with an
X-Event-ID kept across retries and an X-Timestamp. `deliver_to` maps a registered https origin to the loopback
server that stands for it. Bonus set-ups and payments may not overlap (concurrent bonus requests answer 429).
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
import threading
import time
from decimal import Decimal
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlencode, urlparse

import requests

from tests.crowd.fakes.loopback import LoopbackFake

FEW_STUDIES = 5  # studies with few places a workspace may create within STUDY_WINDOW_S
FEW_PLACES = 20
STUDY_WINDOW_S = 60.0
EVENT_TYPES = ("study.status.change", "study.progress.change", "submission.status.change",
               "study.has_high_return_rate")

PAGE = 2  # small pages so that paging is exercised
STUDY_FIELDS = {
    "name", "internal_name", "description", "external_study_url", "prolific_id_option", "completion_codes",
    "total_available_places", "estimated_completion_time", "maximum_allowed_time", "reward", "device_compatibility",
    "peripheral_requirements", "filters", "filter_set_id", "filter_set_version", "project", "study_labels",
    "content_warnings", "content_warning_details", "naivety_distribution_rate", "submissions_config",
    "publish_at", "access_details", "is_custom_screening", "completion_code", "completion_option",
}


def _id() -> str:
    return secrets.token_hex(12)


class FakeProlific(LoopbackFake):
    def __init__(self, token: str = "fake-token", balance_cents: int = 1_000_000) -> None:
        self.token = token
        self.balance_cents = balance_cents
        self.lock = threading.RLock()
        self.studies: dict[str, dict] = {}
        self.submissions: dict[str, dict] = {}
        self.bonus_setups: dict[str, dict] = {}
        self.paid: list[dict] = []
        self.groups: dict[str, dict] = {}
        self.messages: list[dict] = []  # POST /messages/ (Prolific's Messages API)
        self.requests: list[tuple[str, str]] = []
        self.blocked_at_publish: dict[str, set[str]] = {}
        self.too_many_next = 0
        # "METHOD path" pattern -> "after" (carry the call out, then answer 502) or "before" (502, do nothing)
        self.fail_next: dict[str, str] = {}
        self.browser_participant: str | None = None
        self.down = False  # every API call answers 503 (an outage), the participant side still works
        self.created_at: list[tuple[float, int]] = []  # (time, places) of each study created
        self.secrets: dict[str, dict] = {}  # workspace -> its one active secret
        self.subscriptions: dict[str, dict] = {}
        self.deliveries: list[dict] = []  # what was sent: event, headers, answer status
        self.deliver_to: dict[str, str] = {}  # registered https origin -> loopback origin that stands for it
        self.bonus_calls_in_flight = 0
        self.bonus_overlaps = 0
        self.bonus_delay_s = 0.0  # how long a bonus call takes (to make overlaps visible)
        self.bonus_lock = threading.Lock()
        self.outbox: list[dict] = []  # events waiting to be delivered

    # -- server ---------------------------------------------------------------------------
    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _reply(self, status: int, data=None, ctype: str = "application/json", headers=None) -> None:
                body = b"" if data is None else (data if isinstance(data, bytes) else json.dumps(data).encode())
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def _handle(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                url = urlparse(self.path)
                if url.path == "/submissions/complete":
                    code = parse_qs(url.query).get("cc", [""])[0]
                    ok = fake.complete_by_code(code)
                    self._reply(200 if ok else 400, f"<html><body>{'Completed' if ok else 'Unknown code'}</body></html>".encode(),
                                "text/html")
                    return
                with fake.lock:
                    fake.requests.append((method, url.path))
                    if fake.down:
                        self._reply(503, {"error": {"detail": "service unavailable"}})
                        return
                    key = next((k for k in fake.fail_next if re.fullmatch(k, f"{method} {url.path}")), None)
                    failure = fake.fail_next.pop(key) if key is not None else None
                    if failure == "before":
                        self._reply(502, {"error": {"detail": "bad gateway"}})
                        return
                    if fake.too_many_next > 0:
                        fake.too_many_next -= 1
                        self._reply(429, {"error": "throttled"}, headers={"Retry-After": "0"})
                        return
                if "bonus-payments" in url.path:  # "concurrent requests are not supported"
                    with fake.bonus_lock:
                        fake.bonus_calls_in_flight += 1
                        overlapping = fake.bonus_calls_in_flight > 1
                    if overlapping:  # the call before may have answered and not yet left its finally: that is no
                        time.sleep(0.01)  # overlap (a real one lasts bonus_delay_s), so look again once
                        with fake.bonus_lock:
                            overlapping = fake.bonus_calls_in_flight > 1
                    try:
                        if overlapping:
                            fake.bonus_overlaps += 1
                            self._reply(429, {"error": {"detail": "concurrent bonus requests are not supported"}},
                                        headers={"Retry-After": "1"})
                            return
                        time.sleep(fake.bonus_delay_s)
                        self._answer(method, url, raw, failure)
                    finally:
                        with fake.bonus_lock:
                            fake.bonus_calls_in_flight -= 1
                    return
                self._answer(method, url, raw, failure)

            def _answer(self, method, url, raw, failure=None) -> None:
                if self.headers.get("Authorization") != f"Token {fake.token}":
                    self._reply(401, {"error": {"detail": "Invalid token"}})
                    return
                headers: dict = {}
                try:
                    body = json.loads(raw) if raw else {}
                    answer = fake.route(method, url.path, parse_qs(url.query), body, self.headers.get("Host"))
                    status, data = answer[0], answer[1]
                    headers = answer[2] if len(answer) > 2 else {}
                except KeyError as exc:
                    status, data = 404, {"error": {"detail": f"not found: {exc}"}}
                except Exception as exc:  # a bug in the fake must show up as an answer, not a dropped connection
                    status, data = 500, {"error": {"detail": repr(exc)}}
                if failure == "after":
                    status, data = 502, {"error": {"detail": "bad gateway (the call was carried out)"}}
                if status == 429:
                    headers = {"Retry-After": "0", **headers}
                self._reply(status, data, headers=headers)
                fake.flush_deliveries()

            def do_GET(self) -> None:  # noqa: N802
                self._handle("GET")

            def do_POST(self) -> None:  # noqa: N802
                self._handle("POST")

            def do_DELETE(self) -> None:  # noqa: N802
                self._handle("DELETE")

            def do_PATCH(self) -> None:  # noqa: N802
                self._handle("PATCH")

        return Handler

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/v1"

    # -- participant side -------------------------------------------------------------------
    def start_submission(self, study_id: str, participant_id: str) -> dict:
        """A participant opens the study: Prolific makes an ACTIVE submission (SESSION_ID) and fills the URL."""
        with self.lock:
            study = self.studies[study_id]
            if study["status"] != "ACTIVE":
                raise ValueError(f"study {study_id} is {study['status']}")
            if participant_id in self.blocked_at_publish.get(study_id, set()):
                raise ValueError("participant is blocked")
            taken = [s for s in self.submissions.values() if s["study_id"] == study_id
                     and s["status"] not in ("RETURNED", "TIMED-OUT", "REJECTED")]  # these places open again
            if len(taken) >= study["total_available_places"]:
                raise ValueError("study full")
            sub = {
                "id": _id(),
                "study_id": study_id,
                "participant_id": participant_id,
                "status": "ACTIVE",
                "started_at": time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime()),
                "completed_at": None,
                "study_code": None,
                "bonus_payments": [],
            }
            self.submissions[sub["id"]] = sub
            self._submission_event(sub)
            self.browser_participant = participant_id
            url = study["external_study_url"]
            for key, value in (("PROLIFIC_PID", participant_id), ("STUDY_ID", study_id), ("SESSION_ID", sub["id"])):
                url = url.replace("{{%" + key + "%}}", value)
            return {**sub, "url": url}

    def complete_by_code(self, code: str, participant_id: str | None = None) -> bool:
        """The participant (default: the browser's, who started last) completes their active submission with a
        code. A code the study does not register completes it too, for manual review (study_code shows it)."""
        participant_id = participant_id or self.browser_participant
        with self.lock:
            for sub in self.submissions.values():
                if sub["status"] == "ACTIVE" and sub["participant_id"] == participant_id and code:
                    sub.update(status="AWAITING REVIEW", study_code=code,
                               completed_at=time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime()))
                    self._submission_event(sub)
                    ok = True
                    break
            else:
                ok = False
        self.flush_deliveries()
        return ok

    def leave(self, submission_id: str, status: str = "RETURNED") -> None:
        """The participant returns the study (RETURNED) or runs out of time (TIMED-OUT): the place opens again."""
        assert status in ("RETURNED", "TIMED-OUT")
        with self.lock:
            sub = self.submissions[submission_id]
            sub["status"] = status
            self._submission_event(sub)
        self.flush_deliveries()

    # -- webhooks ---------------------------------------------------------------------------
    def _submission_event(self, sub: dict) -> None:
        self._event("submission.status.change", {"resource_id": sub["id"], "event_type": "submission.status.change",
                                                 "participant_id": sub["participant_id"], "status": sub["status"]})

    def _event(self, event_type: str, payload: dict) -> None:
        with self.lock:
            for hook in self.subscriptions.values():
                if hook["is_enabled"] and hook["event_type"] == event_type:
                    self.outbox.append({"target": hook["target_url"], "workspace": hook["workspace_id"],
                                        "payload": payload, "event_id": _id(), "timestamp": int(time.time())})

    def flush_deliveries(self) -> None:
        """Send what waits (after each API answer and participant action, like Prolific's prompt delivery)."""
        with self.lock:
            pending, self.outbox = self.outbox, []
        for event in pending:
            self.send(event)

    def send(self, event: dict, *, secret: str | None = None, sign: bool = True, sent_at: int | None = None) -> int:
        """Deliver one event as Prolific does: the body signed with the workspace's secret (or `secret`), the same
        X-Event-ID on every try of one event. Answers the target's status (kept in `deliveries`)."""
        body = json.dumps(event["payload"]).encode()
        stamp = str(sent_at if sent_at is not None else int(time.time()))
        headers = {"Content-Type": "application/json", "X-Event-ID": event["event_id"],
                   "X-Timestamp": str(event["timestamp"]), "X-Prolific-Request-Timestamp": stamp}
        if sign:
            key = secret if secret is not None else self.secrets[event["workspace"]]["value"]
            digest = hmac.new(key.encode(), stamp.encode() + body, hashlib.sha256).digest()
            headers["X-Prolific-Request-Signature"] = base64.b64encode(digest).decode()
        target = urlparse(event["target"])
        origin = self.deliver_to.get(f"{target.scheme}://{target.netloc}", f"{target.scheme}://{target.netloc}")
        url = origin + target.path + (f"?{target.query}" if target.query else "")
        try:
            status = requests.post(url, data=body, headers=headers, timeout=10).status_code
        except requests.RequestException:
            status = 0
        self.deliveries.append({**event, "status": status, "signed": sign})
        return status

    def partially_approve(self, submission_id: str) -> None:
        with self.lock:
            self.submissions[submission_id]["status"] = "PARTIALLY APPROVED"

    # -- API --------------------------------------------------------------------------------
    def _page(self, items: list, path: str, query: dict, host: str) -> dict:
        offset = int(query.get("offset", ["0"])[0])
        chunk = items[offset : offset + PAGE]
        keep = {k: v[0] for k, v in query.items() if k != "offset"}
        nxt = f"http://{host}{path}?{urlencode({**keep, 'offset': offset + PAGE})}" if offset + PAGE < len(items) else None
        return {"results": chunk, "_links": {"next": {"href": nxt}}, "meta": {"count": len(items)}}

    def route(self, method: str, path: str, query: dict, body: dict, host: str) -> tuple[int, object]:
        with self.lock:
            p = path[len("/api/v1"):] if path.startswith("/api/v1") else path
            if m := re.fullmatch(r"/workspaces/([^/]+)/balance/", p):
                return 200, {"currency_code": "GBP", "total_balance": self.balance_cents,
                             "available_balance": self.balance_cents}
            if p == "/studies/" and method == "POST":
                required = ["name", "description", "external_study_url", "completion_codes", "total_available_places",
                            "estimated_completion_time", "reward", "prolific_id_option"]
                missing = [k for k in required if k not in body]
                if missing:
                    return 400, {"error": {"detail": f"missing {missing}"}}
                unknown = sorted(set(body) - STUDY_FIELDS)
                if unknown:
                    return 400, {"error": {"detail": {k: ["not a field of a study"] for k in unknown}}}
                for i, cc in enumerate(body["completion_codes"]):
                    if not cc.get("code") or not cc.get("code_type") or not isinstance(cc.get("actions"), list):
                        return 400, {"error": {"detail": f"completion_codes[{i}] needs code, code_type and actions"}}
                for key in ("{{%PROLIFIC_PID%}}", "{{%STUDY_ID%}}", "{{%SESSION_ID%}}"):
                    if key not in body["external_study_url"]:
                        return 400, {"error": {"detail": f"external_study_url lacks {key}"}}
                if not isinstance(body["reward"], int):
                    return 400, {"error": {"detail": "reward must be an integer in minor units"}}
                now = time.monotonic()
                recent = [t for t, places in self.created_at
                          if now - t < STUDY_WINDOW_S and places <= FEW_PLACES]
                if body["total_available_places"] <= FEW_PLACES and len(recent) >= FEW_STUDIES:
                    return 429, {"error": {"detail": "too many studies with low numbers of participants; "
                                                     "consider Taskflow"}}
                self.created_at.append((now, int(body["total_available_places"])))
                study = {**body, "id": _id(), "status": "UNPUBLISHED"}
                self.studies[study["id"]] = study
                return 201, study
            if p == "/studies/" and method == "GET":
                return 200, self._page(list(self.studies.values()), path, query, host)
            if (m := re.fullmatch(r"/studies/([^/]+)/", p)) and method == "PATCH":
                study = self.studies[m.group(1)]
                if study["status"] == "UNPUBLISHED":
                    study.update(body)
                    return 200, study
                if set(body) != {"total_available_places"}:
                    return 400, {"error": {"detail": "only total_available_places can change on a published study"}}
                places = int(body["total_available_places"])
                if places < study["total_available_places"]:
                    return 400, {"error": {"detail": "places can only be increased"}}
                cost = study["reward"] * (places - study["total_available_places"]) * Decimal("1.3333")
                if cost > self.balance_cents:
                    return 400, {"error": {"detail": "insufficient balance"}}
                self.balance_cents -= int(cost)
                study["total_available_places"] = places
                if study["status"] in ("AWAITING REVIEW", "COMPLETED"):
                    study["status"] = "ACTIVE"
                return 200, study
            if m := re.fullmatch(r"/studies/([^/]+)/", p):
                return 200, self.studies[m.group(1)]
            if m := re.fullmatch(r"/studies/([^/]+)/transition/", p):
                study = self.studies[m.group(1)]
                action = body.get("action")
                if action == "PUBLISH" and study["status"] == "UNPUBLISHED":
                    cost = study["reward"] * study["total_available_places"] * Decimal("1.3333")
                    if cost > self.balance_cents:
                        return 400, {"error": {"detail": "insufficient balance"}}
                    self.balance_cents -= int(cost)
                    study["status"] = "ACTIVE"
                    blocked = set()
                    for f in study.get("filters", []):
                        if f["filter_id"] == "participant_group_blocklist":
                            for gid in f["selected_values"]:
                                blocked |= set(self.groups[gid]["participants"])
                    self.blocked_at_publish[study["id"]] = blocked
                    return 200, study
                if action == "STOP" and study["status"] in ("ACTIVE", "PAUSED"):
                    study["status"] = "COMPLETED"
                    return 200, study
                return 400, {"error": {"detail": f"cannot {action} a {study['status']} study"}}
            if m := re.fullmatch(r"/studies/([^/]+)/submissions/", p):
                subs = [s for s in self.submissions.values() if s["study_id"] == m.group(1)]
                return 200, self._page(subs, path, query, host)
            if p == "/submissions/" and method == "GET":  # List submissions: "A study id is required"
                study = query.get("study", [""])[0]
                if not study:
                    return 400, {"error": {"detail": {"study": ["This field is required."]}}}
                subs = [{**{k: v for k, v in s.items() if k != "participant_id"}, "participant_id": s["participant_id"]}
                        for s in self.submissions.values() if s["study_id"] == study
                        and (not query.get("status") or s["status"] == query["status"][0].upper().replace("_", " "))]
                return 200, self._page(subs, path, query, host)
            if (m := re.fullmatch(r"/submissions/([^/]+)/", p)) and method == "GET":
                sub = self.submissions[m.group(1)]
                return 200, {**{k: v for k, v in sub.items() if k != "participant_id"}, "participant": sub["participant_id"]}
            if m := re.fullmatch(r"/submissions/([^/]+)/transition/", p):
                sub = self.submissions[m.group(1)]
                action = body.get("action")
                if (action, sub["status"]) in (("APPROVE", "APPROVED"), ("REJECT", "REJECTED")):
                    return 200, sub  # "this endpoint is idempotent": a repeat is ignored
                if sub["status"] != "AWAITING REVIEW":
                    return 400, {"error": {"detail": f"submission is {sub['status']}"}}
                if action == "APPROVE":
                    sub["status"] = "APPROVED"
                elif action == "REJECT":
                    if len(body.get("message", "")) < 100 or not body.get("rejection_category"):
                        return 400, {"error": {"detail": "message of 100+ characters and rejection_category needed"}}
                    sub["status"] = "REJECTED"
                else:
                    return 400, {"error": {"detail": f"unknown action {action}"}}
                self._submission_event(sub)
                return 200, sub
            if p == "/submissions/bulk-approve/":
                for sub in self.submissions.values():
                    if sub["study_id"] == body["study_id"] and sub["participant_id"] in body["participant_ids"] \
                            and sub["status"] == "AWAITING REVIEW":
                        sub["status"] = "APPROVED"
                return 200, {}
            if p == "/submissions/bonus-payments/":
                rows = [line.split(",") for line in body["csv_bonuses"].strip().splitlines()]
                amount = sum(int(Decimal(a) * 100) for _pid, a in rows)
                setup = {"id": _id(), "study": body["study_id"], "rows": rows, "amount": amount,
                         "fees": int(amount * Decimal("0.3333")), "paid": False}
                setup["total_amount"] = setup["amount"] + setup["fees"]
                self.bonus_setups[setup["id"]] = setup
                return 201, {k: v for k, v in setup.items() if k != "rows"}
            if m := re.fullmatch(r"/bulk-bonus-payments/([^/]+)/pay/", p):
                setup = self.bonus_setups[m.group(1)]
                # Like Prolific: paying twice pays twice; the client must guard against repeats.
                for pid, amount in setup["rows"]:
                    self.paid.append({"study_id": setup["study"], "participant_id": pid, "amount": Decimal(amount)})
                    for sub in self.submissions.values():
                        if sub["study_id"] == setup["study"] and sub["participant_id"] == pid:
                            sub["bonus_payments"].append(int(Decimal(amount) * 100))
                self.balance_cents -= setup["total_amount"]
                setup["paid"] = True
                return 202, {}
            if p == "/messages/" and method == "POST":
                # Prolific's "Send a message": recipient_id, body and study_id are all required
                missing = [k for k in ("recipient_id", "body", "study_id") if not body.get(k)]
                if missing:
                    return 400, {"error": {"detail": {k: ["This field is required."] for k in missing}}}
                self.messages.append({k: body[k] for k in ("recipient_id", "body", "study_id")})
                return 204, {}
            if p == "/participant-groups/" and method == "POST":
                if not body.get("workspace_id") and not body.get("organisation_id"):
                    return 400, {"error": {"detail": "Either a workspace or organisation ID must be specified."}}
                group = {"id": _id(), "name": body["name"], "participants": [], "workspace_id": body.get("workspace_id")}
                self.groups[group["id"]] = group
                return 201, {"id": group["id"], "name": group["name"], "workspace_id": group["workspace_id"]}
            if p == "/participant-groups/" and method == "GET":
                workspace = query.get("workspace_id", [""])[0]
                if not workspace and not query.get("project_id"):
                    return 400, {"error": {"detail": "filter by workspace_id or project_id"}}
                items = [{"id": g["id"], "name": g["name"]} for g in self.groups.values()
                         if g["workspace_id"] == workspace]
                return 200, self._page(items, path, query, host)
            if m := re.fullmatch(r"/participant-groups/([^/]+)/participants/", p):
                group = self.groups[m.group(1)]
                ids = body.get("participant_ids", [])
                if method == "POST":
                    group["participants"] = sorted(set(group["participants"]) | set(ids))
                elif method == "DELETE":
                    group["participants"] = [x for x in group["participants"] if x not in ids]
                else:
                    return 200, {"results": [{"participant_id": x} for x in group["participants"]]}
                return 200, {"results": [{"participant_id": x} for x in group["participants"]]}
            if p == "/hooks/event-types/":
                return 200, {"results": [{"event_type": e, "description": e} for e in EVENT_TYPES]}
            if p == "/hooks/secrets/" and method == "POST":
                if not body.get("workspace_id"):
                    return 400, {"error": {"detail": {"workspace_id": ["This field is required."]}}}
                secret = {"id": _id(), "value": secrets.token_urlsafe(32), "workspace_id": body["workspace_id"]}
                self.secrets[body["workspace_id"]] = secret  # one active secret per workspace: replaces the old
                return 201, secret
            if p == "/hooks/subscriptions/" and method == "GET":
                workspace = query.get("workspace_id", [""])[0]
                items = [{k: v for k, v in sub.items() if k != "hook_secret"} for sub in self.subscriptions.values()
                         if sub["workspace_id"] == workspace]
                return 200, self._page(items, path, query, host)
            if p == "/hooks/subscriptions/" and method == "POST":
                missing = [k for k in ("workspace_id", "event_type", "target_url") if not body.get(k)]
                if missing:
                    return 400, {"error": {"detail": f"missing {missing}"}}
                if body["workspace_id"] not in self.secrets:
                    return 400, {"error": {"detail": "create a secret for the workspace first"}}
                if body["event_type"] not in EVENT_TYPES:
                    return 400, {"error": {"detail": f"unknown event type {body['event_type']}"}}
                target = urlparse(body["target_url"])
                if target.scheme != "https" or target.hostname in ("localhost", "127.0.0.1", None):
                    return 400, {"error": {"detail": "target_url must use https:// and be publicly accessible"}}
                sub = {"id": _id(), "event_type": body["event_type"], "target_url": body["target_url"],
                       "workspace_id": body["workspace_id"], "is_enabled": False,
                       "hook_secret": secrets.token_hex(16)}
                self.subscriptions[sub["id"]] = sub
                public = {k: v for k, v in sub.items() if k != "hook_secret"}
                return 201, {"results": [public]}, {"X-Hook-Secret": sub["hook_secret"]}
            if (m := re.fullmatch(r"/hooks/subscriptions/([^/]+)/", p)) and method == "POST":
                sub = self.subscriptions[m.group(1)]
                if body.get("secret") != sub["hook_secret"]:
                    return 400, {"error": {"detail": "the secret is not this subscription's X-Hook-Secret"}}
                sub["is_enabled"] = True
                return 200, {k: v for k, v in sub.items() if k != "hook_secret"}
            return 404, {"error": {"detail": f"no route {method} {p}"}}

    def group_members(self, name: str) -> list[str]:
        for g in self.groups.values():
            if g["name"] == name:
                return list(g["participants"])
        return []
