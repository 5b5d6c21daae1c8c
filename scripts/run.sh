#!/usr/bin/env bash
# Sets up and runs FactCrowd on embedded defaults: SQLite, a filesystem Celery broker (no server),
# a real Celery worker and beat, the embedded parser, and a demo project. Ctrl-C stops everything
# (the worker finishes its current task first; a second Ctrl-C stops at once).
# FACTCROWD_SKIP_SETUP=1 skips scripts/setup.sh (already installed); PORT (8000) and FACTCROWD_VAR_DIR apply.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${FACTCROWD_SKIP_SETUP:-}" = 1 ] || bash scripts/setup.sh
PY=.venv/bin/python
VAR_DIR=${FACTCROWD_VAR_DIR:-var}
mkdir -p "$VAR_DIR"
$PY manage.py migrate --noinput
$PY manage.py load_demo
PORT=${PORT:-8000}
# Links printed by the commands and sent to platforms (publish's previews, invite links) name this origin.
export PUBLIC_BASE_URL=${PUBLIC_BASE_URL:-http://127.0.0.1:${PORT}}

pids=()
stop_now() {
  echo "run.sh: stopping at once" >&2
  kill -KILL "${pids[@]}" 2>/dev/null || true
}
cleanup() {
  trap stop_now INT TERM
  if [ ${#pids[@]} -gt 0 ]; then
    echo "run.sh: stopping worker, beat and web server" >&2
    kill -TERM "${pids[@]}" 2>/dev/null || true
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
.venv/bin/celery -A backend worker --loglevel=INFO --concurrency=2 --pool=prefork &
pids+=($!)
.venv/bin/celery -A backend beat --loglevel=INFO --schedule "$VAR_DIR/celerybeat-schedule" &
pids+=($!)
echo "FactCrowd: http://127.0.0.1:${PORT}/  (log in as demo / demo)"
$PY manage.py runserver "127.0.0.1:${PORT}" --noreload &
pids+=($!)
# Whichever process ends first (a crash, a port in use) ends the others: no half-running app.
status=0
wait -n "${pids[@]}" || status=$?
echo "run.sh: a process exited with status $status; stopping the rest" >&2
exit "$status"
