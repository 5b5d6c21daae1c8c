#!/usr/bin/env bash
# Installs everything FactCrowd needs into .venv and builds the frontend. Idempotent; safe to rerun.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.requirements.sha
want=$(cat requirements*.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/pip install -q --upgrade pip
  # torch first and pinned: a bare `torch` requirement would pull a multi-GB CUDA build.
  .venv/bin/pip install -q torch==2.13.0
  .venv/bin/pip install -q -r requirements-dev.txt -r requirements-t5.txt
  .venv/bin/pip install -q --no-deps -r requirements-resources.txt
  echo "$want" > "$stamp"
fi

# The parser's rule modules compiled with mypyc (scripts/compile_parser.py: rebuilt only when their sources
# change; optional: without a C compiler or on any error it prints one warning and the rules run as Python).
.venv/bin/python scripts/compile_parser.py || true

# A random signing key for this checkout (settings refuse the public development key outside DEBUG).
if [ -z "${SECRET_KEY:-}" ] && [ ! -s var/secret_key ]; then
  mkdir -p var
  (umask 077 && .venv/bin/python -c "import secrets; print(secrets.token_urlsafe(50))" > var/secret_key)
fi

if [ -f frontend/package.json ]; then
  if command -v npm >/dev/null 2>&1; then
    (cd frontend && { [ -d node_modules ] && [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund; } && npm run build --silent)
  else
    echo "npm not found: the annotator element and dashboard are not built" >&2
  fi
fi
