"""A Redis cache that degrades instead of failing: with Redis down, the login page, the token endpoint and a crowd
worker's entry answered 500 (issue 23 item 8), because rate limits and cached platform answers live in the cache.

FallbackRedisCache is Django's RedisCache; when a call cannot reach Redis (refused, timed out, reset) it logs one
warning per outage and answers from a per-process local-memory cache instead, so throttling still counts (per
process, not shared, while the outage lasts) and nothing answers 500. Calls go back to Redis once it answers
again (retried at most every RETRY_SECONDS). settings.CACHES uses it for a redis:// CACHE_URL, with short socket
timeouts so a dead host costs about a second, not a hung request.
"""
from __future__ import annotations

import logging
import time
from typing import Any

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache

log = logging.getLogger(__name__)

RETRY_SECONDS = 5.0
_METHODS = ("add", "get", "set", "touch", "delete", "get_many", "has_key", "incr", "set_many", "delete_many",
            "clear", "get_or_set")


def _unreachable() -> tuple[type[BaseException], ...]:
    try:
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError
    except ImportError:  # pragma: no cover - redis is installed wherever this backend is configured
        return (OSError,)
    return (RedisConnectionError, RedisTimeoutError, OSError)


class FallbackRedisCache(RedisCache):
    """RedisCache, with a local-memory stand-in while Redis cannot be reached."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        options = dict(params.get("OPTIONS") or {})
        options.setdefault("socket_connect_timeout", 1)
        options.setdefault("socket_timeout", 1)
        super().__init__(server, {**params, "OPTIONS": options})
        self._local = LocMemCache(f"fallback-{id(self)}", {"TIMEOUT": params.get("TIMEOUT", 300)})
        self._down_since: float | None = None
        self._errors = _unreachable()

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if self._down_since is not None and time.monotonic() - self._down_since < RETRY_SECONDS:
            return getattr(self._local, name)(*args, **kwargs)
        try:
            value = getattr(super(), name)(*args, **kwargs)
        except self._errors as exc:
            if self._down_since is None:
                log.warning("cache unreachable (%s: %s): using a local in-process cache until it answers again",
                            type(exc).__name__, exc)
            self._down_since = time.monotonic()
            return getattr(self._local, name)(*args, **kwargs)
        if self._down_since is not None:
            log.warning("cache reachable again")
            self._down_since = None
        return value


def _delegate(name: str):
    def method(self: FallbackRedisCache, *args: Any, **kwargs: Any) -> Any:
        return self._call(name, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"RedisCache.{name}, or the local stand-in while Redis cannot be reached."
    return method


for _name in _METHODS:
    setattr(FallbackRedisCache, _name, _delegate(_name))
