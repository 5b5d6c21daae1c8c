"""Provider lookup by name. Providers register themselves here."""
from __future__ import annotations

from importlib import import_module

from annotation_tasks.crowd.base import CrowdProvider

_PROVIDERS = {
    "local": "annotation_tasks.crowd.local:LocalProvider",
    "mturk": "annotation_tasks.crowd.mturk:MTurkProvider",
    "prolific": "annotation_tasks.crowd.prolific:ProlificProvider",
}


def available_providers() -> list[str]:
    return list(_PROVIDERS)


def get_provider(name: str, **kwargs) -> CrowdProvider:
    """Instantiate the provider called `name`; kwargs override settings (endpoint, token...)."""
    try:
        module_name, class_name = _PROVIDERS[name].split(":")
    except KeyError as exc:
        raise ValueError(f"unknown crowd provider {name!r}; choose one of {', '.join(_PROVIDERS)}") from exc
    return getattr(import_module(module_name), class_name)(**kwargs)
