"""The label vocabularies the analysis counts with: per level, its labels in error-first order (the majority's tie
order). The analysis keeps none of its own: the protocols declare them (annotation_tasks.protocols), and the app
hands them over (apps.py: `provide_label_orders(protocols.registry.label_order)`, read on first use, so no
protocol loads at start-up; services.frames also sets them when it is imported). `orders=` on a call overrides.

Pure: no Django, no pandas (apps.ready imports it).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

LabelOrders = Mapping[str, Sequence[str]]
"""Label vocabularies per level; the position is the tie priority (first wins)."""

_ORDERS: dict[str, tuple[str, ...]] = {}
_PROVIDER: list[Callable[[], LabelOrders]] = []


def use_label_orders(orders: LabelOrders) -> None:
    """Make `orders` the vocabularies every call without `orders=` uses."""
    _ORDERS.clear()
    _ORDERS.update({level: tuple(labels) for level, labels in orders.items()})


def provide_label_orders(provider: Callable[[], LabelOrders]) -> None:
    """Read the vocabularies from `provider()` the first time they are needed (unless set before)."""
    _PROVIDER[:] = [provider]


def label_orders() -> dict[str, tuple[str, ...]]:
    """The vocabularies in use: those set, else the provider's (read once)."""
    if not _ORDERS and _PROVIDER:
        use_label_orders(_PROVIDER[0]())
    return dict(_ORDERS)
