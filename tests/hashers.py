"""A password hasher for the test run only: PBKDF2 with one iteration instead of Django's million.

Fixtures create several accounts per test; at the default cost each one took about a second of the suite's setup.
The algorithm name stays "pbkdf2_sha256" and the iteration count is stored in every hash, so processes that run
with the production settings (runserver, gunicorn and Celery subprocesses of the integration and topology tests)
still verify these passwords with Django's own PBKDF2PasswordHasher.
"""
from __future__ import annotations

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class OneIterationPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 1
