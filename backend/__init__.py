"""The Django project: settings, URLs, the Celery app. No domain code lives here."""
from backend.celery_app import app as celery_app

__all__ = ("celery_app",)
