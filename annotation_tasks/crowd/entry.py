"""The URL of the unit page a platform opens, and signed local-worker links.

The path and its signed unit reference come from annotation_tasks.signing (the work pages read it back from
there too, so crowd never imports the services); providers only put our public origin in front, so that
every platform opens the same page.
"""
from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.core import signing

from annotation_tasks.signing import unit_entry_path

LOCAL_WORKER_SALT = "factcrowd.local-worker"
STUDY_SALT = "factcrowd.study"


def unit_entry_url(unit, provider_name: str, **params: str) -> str:
    """Absolute URL of the unit page for `provider_name`; the platform appends its own parameters."""
    base = settings.PUBLIC_BASE_URL.rstrip("/")
    query = urlencode({"provider": provider_name, **params})
    return f"{base}{unit_entry_path(unit)}?{query}"


def local_worker_param(external_id: str) -> str:
    """A signed worker id for links we hand to our own annotators (no platform vouches for them)."""
    return signing.dumps({"w": external_id}, salt=LOCAL_WORKER_SALT, compress=True)


def read_local_worker_param(value: str) -> str | None:
    try:
        return str(signing.loads(value, salt=LOCAL_WORKER_SALT)["w"])
    except (signing.BadSignature, KeyError, TypeError):
        return None


def study_ref(batch) -> str:
    """The opaque batch reference in a batch study's entry URL (/work/study/<ref>/): one link for every place."""
    return signing.dumps({"b": batch.pk}, salt=STUDY_SALT, compress=True)


def read_study_ref(ref: str) -> int | None:
    try:
        return int(signing.loads(ref, salt=STUDY_SALT)["b"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None


def study_entry_url(batch, provider_name: str, **params: str) -> str:
    """Absolute URL of a batch study's entry page: the participant enters the batch, our queue hands the units."""
    base = settings.PUBLIC_BASE_URL.rstrip("/")
    query = urlencode({"provider": provider_name, **params})
    return f"{base}/work/study/{study_ref(batch)}/?{query}"
