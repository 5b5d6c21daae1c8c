"""gunicorn settings for the web process (docker/compose.yml: `gunicorn -c backend/gunicorn_conf.py backend.wsgi`).

Measured with bench/bench_load.py (100 concurrent annotators on a 2-core machine): a few processes with threads
(gthread) keep latency flat, and loading the app and the modules the first requests would import (the quality
module pulls in pandas, ~1 s) in the master before forking means no annotator waits for them.
Override with WEB_CONCURRENCY, GUNICORN_THREADS, GUNICORN_BIND, GUNICORN_TIMEOUT.
"""
import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
worker_class = "gthread"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "120"))
backlog = 2048
control_socket_disable = True
preload_app = True


def when_ready(server) -> None:
    """In the master, after the app is loaded and before workers fork: import what a first request would."""
    import annotation_tasks.protocols.payload  # noqa: F401
    import annotation_tasks.services.quality  # noqa: F401  (pandas)
    import annotation_tasks.services.queue  # noqa: F401
    import annotation_tasks.services.work  # noqa: F401
