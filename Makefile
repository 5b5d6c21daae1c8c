.PHONY: run test setup lint
run:      ## set up and run the app on embedded defaults (SQLite, filesystem broker, real Celery worker, demo project)
	bash scripts/run.sh
test:     ## run every test
	bash scripts/test.sh
setup:
	bash scripts/setup.sh
lint:
	.venv/bin/ruff check .
