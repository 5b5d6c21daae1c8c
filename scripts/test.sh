#!/usr/bin/env bash
# Runs every test: ruff, import-linter and mypy, the frontend's Vitest suite, and pytest (unit, integration, e2e in headless
# Chromium) on SQLite; then the pytest suite again on PostgreSQL when TEST_POSTGRES_URL is set (and the production
# topology suite, tests/topology, when TEST_REDIS_URL is set too).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"

ruff check .          # style, and cyclomatic complexity <= 15 (exceptions listed in pyproject.toml)
lint-imports          # the boundaries of docs/architecture.md (contracts in pyproject.toml)
mypy                  # the pure packages and the plug-in interfaces (files in pyproject.toml)
if [ -f frontend/package.json ]; then
  # the server's protocol manifest, read by the element's contract suite (frontend/tests/contract)
  mkdir -p frontend/tests/contract/generated
  python manage.py protocols --json -o frontend/tests/contract/generated/manifest.json
  (cd frontend && npx vitest run)
fi

# FACTCROWD_TEST_WORKERS=N (or auto / logical): run each pass on N pytest-xdist workers (each its own test database,
# temp dirs, browser and free ports). tests/api + crowd + review (333 tests, SQLite, shared 2-core box at load ~3):
# 139.6 / 127.6 s serial, 101.9 / 102.9 s with -n 2. Off by default until a whole run is green twice with it: its one
# whole trial so far (-n 2, SQLite, load 15-20) timed out in run.sh's Ctrl-C test and the dashboard flow.
xdist=()
if [ -n "${FACTCROWD_TEST_WORKERS:-}" ] && [ "${FACTCROWD_TEST_WORKERS}" != "0" ]; then
  xdist=(-n "$FACTCROWD_TEST_WORKERS")
fi

echo "== pytest on SQLite =="
env -u DATABASE_URL python -m pytest ${xdist[@]+"${xdist[@]}"} "$@"  # tests/topology skips itself here (PostgreSQL + Redis only)
if [ -n "${TEST_POSTGRES_URL:-}" ]; then
  echo "== pytest on PostgreSQL =="
  # with TEST_REDIS_URL set this pass also runs tests/topology: PostgreSQL + Redis + gunicorn + two Celery workers
  # tests that touch no database (parser, scoring, analysis: marked db_free by tests/conftest.py) and the model-training
  # and native-build tests (marked once) ran in the SQLite pass: the database cannot change their outcome. So did the
  # browser flows (e2e): what they drive on the server runs here through the API and service suites, and
  # tests/topology runs the whole stack (gunicorn, PostgreSQL, Redis, two workers). This keeps CI under 25 minutes.
  DATABASE_URL="$TEST_POSTGRES_URL" python -m pytest -m "not db_free and not once and not e2e" ${xdist[@]+"${xdist[@]}"} "$@"
fi
