"""The web server keeps the garbage collector off what lives as long as the process (backend/gunicorn_conf.py).

Run in a fresh interpreter: gc.freeze is process-wide, and the hooks must be called as gunicorn calls them
(when_ready once in the master after the app is loaded, post_request after each request in a worker).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCRIPT = """
import gc, importlib.util, json, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")
from backend.wsgi import application  # what preload_app loads in the master
spec = importlib.util.spec_from_file_location("conf", "backend/gunicorn_conf.py")
conf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(conf)
out = {"settings": {k: getattr(conf, k) for k in ("preload_app", "worker_class")}}
conf.when_ready(None)
out["master"] = gc.get_freeze_count()
gc.unfreeze()  # a worker, fresh: count its requests
for _ in range(conf.FREEZE_AFTER_REQUESTS - 1):
    conf.post_request(None, None, {}, None)
out["before"] = gc.get_freeze_count()
conf.post_request(None, None, {}, None)
out["at"] = gc.get_freeze_count()
later = [[i] for i in range(5000)]  # objects a later request makes stay collectable: no second freeze
for _ in range(3):
    conf.post_request(None, None, {}, None)
out["after"] = gc.get_freeze_count()
print(json.dumps(out))
"""


def test_the_master_freezes_the_loaded_app_and_each_worker_freezes_once_after_its_first_requests(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "FACTCROWD_VAR_DIR": str(tmp_path), "DEBUG": "true", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["settings"] == {"preload_app": True, "worker_class": "gthread"}  # the app is loaded before the fork
    assert out["master"] > 50_000  # Django, DRF, pandas ... as imported by when_ready
    assert out["before"] == 0
    assert out["at"] > 0
    assert out["after"] == out["at"]
