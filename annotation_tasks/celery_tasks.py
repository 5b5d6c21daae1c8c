"""Celery jobs ("task" is our domain word, so the module is celery_tasks). Jobs only call services."""
