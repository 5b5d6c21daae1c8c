"""Provider lookup by name. Providers register themselves here."""
from __future__ import annotations

from importlib import import_module

from annotation_tasks.crowd.base import CrowdProvider

_PROVIDERS = {
    "local": "annotation_tasks.crowd.local:LocalProvider",
    "mturk": "annotation_tasks.crowd.mturk:MTurkProvider",
    "prolific": "annotation_tasks.crowd.prolific:ProlificProvider",
    "panel": "annotation_tasks.crowd.panel:PanelProvider",
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


def parse_entry_any(query, names: list[str] | None = None):
    """(provider name, EntryContext) for the first provider that recognises the unit page's query, else None.

    The unit page calls this so that it never needs to know which platform opened it. A `provider` query
    parameter (put there by unit_entry_url) is tried first.
    """
    order = list(names or _PROVIDERS)
    hinted = query.get("provider", "")
    if hinted in order:
        order.remove(hinted)
        order.insert(0, hinted)
    for name in order:
        context = get_provider(name).parse_entry(query)
        if context is not None:
            return name, context
    return None
