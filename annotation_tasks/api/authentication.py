"""API tokens that expire. No DRF views are imported here: DRF loads this module from settings while its views
module is still being imported."""
from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token


def token_max_age() -> timedelta:
    return timedelta(hours=float(getattr(settings, "API_TOKEN_MAX_AGE_HOURS", 24 * 7)))


def token_expired(token: Token) -> bool:
    return token.created < timezone.now() - token_max_age()


class ExpiringTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>`, valid for API_TOKEN_MAX_AGE_HOURS after it was issued."""

    def authenticate_credentials(self, key: str):
        user, token = super().authenticate_credentials(key)
        if token_expired(token):
            raise exceptions.AuthenticationFailed("Token expired: POST /api/auth/token/ for a new one.")
        return user, token
