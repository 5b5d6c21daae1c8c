"""gunicorn settings for the web process (docker/compose.yml: `gunicorn -c backend/gunicorn_conf.py backend.wsgi`).

Measured with bench/bench_load.py (100 concurrent annotators on a 2-core machine): one process per core, each
with threads (gthread: a thread waiting on PostgreSQL gives the core to another), and each thread keeps its
database connection (CONN_MAX_AGE in backend/settings.py). More processes than cores only add context switches
and PostgreSQL connections. Everything a first request would import or build (the URLconf with every view, DRF's
classes, the markdown renderer, the Moses detokenizer, pandas for quality control: ~3 s of CPU) is loaded in the master before it forks,
so no worker spends it on an annotator's request (it was most of the server CPU of a short bench run).
Override with WEB_CONCURRENCY, GUNICORN_THREADS, GUNICORN_BIND, GUNICORN_TIMEOUT.

The garbage collector is kept off what lives as long as the process. CPython's full collection walks every tracked
object: ~150K after the master's imports, 85 ms of one core with the GIL held, so a worker's 8 threads stood still
for 100-180 ms twice in a 30 s bench run (bench/bench_load.py, gc.callbacks in the workers, 2026-12-03). The master
freezes what it loaded before forking (gc.freeze, as Python's gc documentation advises for pre-forking servers: the
pages stay shared too), and each worker freezes once more after FREEZE_AFTER_REQUESTS requests, when its lazily
imported modules, per-thread connections, prepared statements and caches exist: its full collections then took
0.4-7 ms (44-57 ms with the master's freeze alone). Frozen objects are still freed by reference counting; only a
reference cycle alive at that instant would never be collected, once.
"""
import gc
import os
import threading

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "8"))
worker_class = "gthread"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "120"))
keepalive = 30  # the annotator element (and the bench) keep their connection between steps
backlog = 2048
control_socket_disable = True
preload_app = True

_HOT_PATHS = ("/api/work/next", "/api/work/t/unit", "/api/work/t/draft", "/api/work/t/submit", "/api/", "/work/t/")


def when_ready(server) -> None:
    """In the master, after the app is loaded and before workers fork: import and build what a first request would."""
    from django.db import connections
    from django.urls import Resolver404, get_resolver
    from rest_framework.settings import api_settings

    import annotation_tasks.protocols.payload  # noqa: F401
    import annotation_tasks.services.quality  # noqa: F401  (pandas)
    import annotation_tasks.services.queue  # noqa: F401
    import annotation_tasks.services.work  # noqa: F401
    from annotation_tasks.markup import render_markdown
    from annotation_tasks.protocols.display import detokenize

    resolver = get_resolver()
    for path in _HOT_PATHS:  # imports every view module and compiles the patterns on the way
        try:
            resolver.resolve(path)
        except Resolver404:
            pass
    for name in ("DEFAULT_RENDERER_CLASSES", "DEFAULT_PARSER_CLASSES", "DEFAULT_AUTHENTICATION_CLASSES",
                 "DEFAULT_PERMISSION_CLASSES", "DEFAULT_CONTENT_NEGOTIATION_CLASS", "EXCEPTION_HANDLER"):
        getattr(api_settings, name)
    render_markdown("*warm* up")
    detokenize(["Riverton", "'s", "$", "4", "million", "."])  # sacremoses and its tables: ~0.3 s on a first unit
    connections.close_all()  # no database connection may be shared with the forked workers
    gc.collect()
    gc.freeze()  # the app as loaded: out of every later collection, and its pages shared with the workers


FREEZE_AFTER_REQUESTS = 300
_served = 0
_served_lock = threading.Lock()


def post_request(worker, req, environ, resp) -> None:
    """In a worker, once: freeze what its first requests built (the objects that live as long as the worker)."""
    global _served
    with _served_lock:
        _served += 1
        if _served != FREEZE_AFTER_REQUESTS:
            return
    gc.freeze()
