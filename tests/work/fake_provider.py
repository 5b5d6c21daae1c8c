"""A made-up platform for entry-page tests: proves the page uses only EntryContext fields, never names."""
from __future__ import annotations

from collections.abc import Mapping

from annotation_tasks.crowd.base import CrowdProvider, EntryCheck, EntryContext, EntryVerdict


class FakeProvider(CrowdProvider):
    name = "fakeplat"

    def __init__(self, **_kw) -> None:
        pass

    def parse_entry(self, query: Mapping[str, str]) -> EntryContext | None:
        if "fp_worker" not in query and "fp_preview" not in query:
            return None
        if query.get("fp_preview"):
            return EntryContext(worker_external_id="", preview=True)
        return EntryContext(
            worker_external_id=query["fp_worker"],
            provider_assignment_id=query.get("fp_assignment", ""),
            submit_to=query.get("fp_submit", ""),
            completion_url=query.get("fp_done", ""),
        )

    def verify_entry(self, unit, context: EntryContext) -> EntryCheck:
        return EntryCheck(EntryVerdict.VERIFIED)  # this platform vouches for every entry it makes

    def _no(self, *a, **k):
        raise NotImplementedError

    estimate_cost = account_balance = publish = preview_url = list_submissions = _no
    approve = reject = bonus = block = unblock = grant_qualification = revoke_qualification = close = _no


FakeProvider.__abstractmethods__ = frozenset()
