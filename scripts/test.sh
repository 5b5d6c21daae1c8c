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
  (cd frontend && npx vitest run)
fi

echo "== pytest on SQLite =="
env -u DATABASE_URL python -m pytest "$@"  # tests/topology skips itself here (PostgreSQL + Redis only)
if [ -n "${TEST_POSTGRES_URL:-}" ]; then
  echo "== pytest on PostgreSQL =="
  # with TEST_REDIS_URL set this pass also runs tests/topology: PostgreSQL + Redis + gunicorn + two Celery workers
  DATABASE_URL="$TEST_POSTGRES_URL" python -m pytest "$@"
fi
