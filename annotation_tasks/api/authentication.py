"""API tokens that expire, and end when their user's password changes. No DRF views are imported here: DRF loads
this module from settings while its views module is still being imported."""
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


def end_tokens_on_password_change(sender, instance, update_fields=None, **kwargs) -> None:
    """pre_save of the user model: a new password deletes the user's API tokens, as it ends their sessions.

    A token is a password-equivalent: whoever changes a leaked password expects the leak closed. Saves that
    name their fields without the password (last_login on every sign-in) cost no query."""
    if instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return
    old = type(instance).objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    if old is not None and old != instance.password:
        Token.objects.filter(user_id=instance.pk).delete()
