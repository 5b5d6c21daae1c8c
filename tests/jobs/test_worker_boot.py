"""A Celery worker's boot path (django.setup, the app, task autodiscovery as the worker runs it) registers every
task without importing the heavy libraries: they load with the first job that needs them (issue 25 item 3: a worker
stays under 300 MB during an export, so it may not spend ~170 MB on them before it runs one)."""
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HEAVY = ["pandas", "numpy", "pyarrow", "scipy", "krippendorff", "sklearn", "crowdkit", "torch", "transformers",
         "datasets", "annotation_tasks.services.quality", "annotation_tasks.services.scoring",
         "annotation_tasks.services.adjudication", "annotation_tasks.services.reports",
         "annotation_tasks.services.exports", "annotation_tasks.analysis.agreement"]

BOOT = """
import json, sys
import django
django.setup()
from backend.celery_app import app
app.loader.import_default_modules()  # what `celery worker` does at boot: Django's fixup, then autodiscovery
from annotation_tasks.services import jobs
print(json.dumps({"loaded": [m for m in %r if m in sys.modules],
                  "tasks": sorted(n for n in app.tasks if n.startswith("annotation_tasks.")),
                  "kinds": sorted(kind.task for kind in jobs.KINDS.values())}))
"""


def boot(**env: str) -> dict:
    environ = {k: v for k, v in os.environ.items() if k != "CELERY_SKIP_CHECKS"}
    environ.update({"DJANGO_SETTINGS_MODULE": "backend.settings", **env})
    done = subprocess.run([sys.executable, "-c", BOOT % (HEAVY,)], cwd=REPO, env=environ, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_worker_boot_registers_every_task_without_the_heavy_modules():
    seen = boot()
    assert seen["loaded"] == []
    assert set(seen["kinds"]) <= set(seen["tasks"])
    assert {"annotation_tasks.approve_batch", "annotation_tasks.pay_bonus", "annotation_tasks.score_items",
            "annotation_tasks.run_export_job", "annotation_tasks.build_queue_table",
            "annotation_tasks.build_report"} <= set(seen["tasks"])


def test_the_check_the_boot_skips_is_what_imported_them():
    """The guard can fail: with Django's system checks (the URLconf, every view) the same boot loads pandas."""
    seen = boot(CELERY_SKIP_CHECKS="")
    assert "pandas" in seen["loaded"]


TUNED = """
import json, os
import django
django.setup()
from celery import signals
from backend.celery_app import app
before = os.environ.get("ARROW_DEFAULT_MEMORY_POOL")
signals.worker_init.send(sender=None)  # what `celery worker` sends once, before its pool starts
import pyarrow
from backend import allocator
print(json.dumps({"before": before, "pool": pyarrow.default_memory_pool().backend_name,
                  "threshold_taken": allocator.tune()}))
"""


def test_a_worker_gives_arrow_memory_to_malloc_and_a_web_process_does_not():
    """backend/allocator.py: the worker's frames live in malloc's pool (whose large blocks go back to the system
    when freed), set at worker_init, before pyarrow loads; importing the app alone (web, tests) changes nothing."""
    environ = {k: v for k, v in os.environ.items() if k not in ("ARROW_DEFAULT_MEMORY_POOL", "MALLOC_MMAP_THRESHOLD")}
    environ["DJANGO_SETTINGS_MODULE"] = "backend.settings"
    done = subprocess.run([sys.executable, "-c", TUNED], cwd=REPO, env=environ, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    # glibc (the Debian image and CI): mallopt accepted the fixed threshold
    assert seen == {"before": None, "pool": "system", "threshold_taken": True}


FROZEN = """
import gc, json
import django
django.setup()
from backend.celery_app import app

@app.task
def probe():
    return gc.get_freeze_count()

during = probe.apply().get()  # the task as a worker runs it: prerun, the body, postrun
print(json.dumps({"during": during, "after": gc.get_freeze_count()}))
"""


def test_a_task_runs_with_the_heap_it_found_frozen_and_hands_it_back():
    """backend/collector.py: the objects alive when a task starts (Django, the imported libraries) are out of the
    task's collections (an HF dataset export at 10^6 labels: 31 -> 23 s), and collectable again after it."""
    done = subprocess.run([sys.executable, "-c", FROZEN], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "DJANGO_SETTINGS_MODULE": "backend.settings"})
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["during"] > 10_000 and seen["after"] == 0
