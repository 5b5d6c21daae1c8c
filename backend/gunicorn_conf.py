"""gunicorn settings for the web process (docker/compose.yml: `gunicorn -c backend/gunicorn_conf.py backend.wsgi`).

Measured with bench/bench_load.py (100 concurrent annotators on a 2-core machine): one process per core, each
with threads (gthread: a thread waiting on PostgreSQL gives the core to another), and each thread keeps its
database connection (CONN_MAX_AGE in backend/settings.py). More processes than cores only add context switches
and PostgreSQL connections. Everything a first request would import or build (the URLconf with every view, DRF's
classes, the markdown renderer, the Moses detokenizer, pandas for quality control: ~3 s of CPU) is loaded in the master before it forks,
so no worker spends it on an annotator's request (it was most of the server CPU of a short bench run).
Override with WEB_CONCURRENCY, GUNICORN_THREADS, GUNICORN_BIND, GUNICORN_TIMEOUT.
"""
import os

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
