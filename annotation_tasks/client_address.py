"""The address a request came from, for rate limits: X-Forwarded-For is believed only from configured proxies.

Anyone can send an X-Forwarded-For header. DRF's default `get_ident` takes it as the client's address when no
NUM_PROXIES is set, so 30 wrong passwords with 30 made-up headers were 30 different "clients" and never met the
login limit (issue 23). Here the header is read only when the connection itself comes from a proxy we were told
about:

- TRUSTED_PROXIES (addresses or networks, e.g. "127.0.0.1,10.0.0.0/8"): when REMOTE_ADDR is one of them, the
  header is walked from the right (each proxy appends the address it saw) past every trusted proxy; the first
  address that is not one is the client.
- NUM_PROXIES (a count): exactly that many proxies stand in front of the app; the client is the address the
  outermost one appended (DRF's rule). Used only when TRUSTED_PROXIES is empty.
- Neither (the default, and docker/compose.yml, which exposes gunicorn directly): REMOTE_ADDR, header ignored.
"""
from __future__ import annotations

import ipaddress
from functools import lru_cache

from django.conf import settings
from django.http import HttpRequest

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def _networks(entries: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(e.strip(), strict=False) for e in entries if e.strip())


def _valid(address: str) -> bool:
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return False
    return True


def _trusted(address: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip.version == net.version and ip in net for net in networks)


def client_address(request: HttpRequest) -> str:
    """The client's address as far as the configured proxies vouch for it (REMOTE_ADDR when none are)."""
    remote = (request.META.get("REMOTE_ADDR") or "").strip()
    header = request.META.get("HTTP_X_FORWARDED_FOR") or ""
    hops = [h.strip() for h in header.split(",") if h.strip()]
    trusted = _networks(tuple(getattr(settings, "TRUSTED_PROXIES", ()) or ()))
    if trusted:
        if not _trusted(remote, trusted):
            return remote
        for hop in reversed(hops):
            if not _trusted(hop, trusted):
                return hop if _valid(hop) else remote
        return hops[0] if hops else remote
    num = int(getattr(settings, "NUM_PROXIES", 0) or 0)
    if num > 0 and hops:
        hop = hops[-min(num, len(hops))]
        return hop if _valid(hop) else remote
    return remote
