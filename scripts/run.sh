#!/usr/bin/env bash
# Sets up and runs FactCrowd on embedded defaults: SQLite, a filesystem Celery broker (no server),
# a real Celery worker and beat, the embedded parser, and a demo project. Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
PY=.venv/bin/python
$PY manage.py migrate --noinput
$PY manage.py load_demo
PORT=${PORT:-8000}

pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM
.venv/bin/celery -A backend worker --loglevel=INFO --concurrency=2 --pool=prefork &
pids+=($!)
.venv/bin/celery -A backend beat --loglevel=INFO --schedule var/celerybeat-schedule &
pids+=($!)
echo "FactCrowd: http://127.0.0.1:${PORT}/  (log in as demo / demo)"
$PY manage.py runserver "127.0.0.1:${PORT}" --noreload &
pids+=($!)
wait -n "${pids[@]}"
