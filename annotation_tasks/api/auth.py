"""Authentication that can be attacked from outside: API tokens that expire, and rate-limited logins.

- ExpiringTokenAuthentication (api.authentication): DRF's token, refused API_TOKEN_MAX_AGE_HOURS after issue.
- ObtainExpiringToken (POST /api/auth/token/): issues a fresh token when the old one expired; throttled.
- LoginThrottle / ThrottledLoginView: the login page and the token endpoint allow LOGIN_RATE attempts per
  client address (DRF's SimpleRateThrottle over Django's cache: share it between processes with CACHE_URL);
  the address is annotation_tasks.client_address's: X-Forwarded-For only from TRUSTED_PROXIES / NUM_PROXIES.
"""
from __future__ import annotations

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle

from annotation_tasks.api.authentication import token_expired, token_max_age
from annotation_tasks.client_address import client_address


class LoginThrottle(SimpleRateThrottle):
    """LOGIN_RATE attempts per client address on the login page and the token endpoint."""

    scope = "login"

    def get_rate(self) -> str:
        return getattr(settings, "LOGIN_RATE", "10/min")

    def get_ident(self, request) -> str:
        return client_address(request)

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class TokenResultSerializer(serializers.Serializer):
    token = serializers.CharField()
    expires_at = serializers.DateTimeField()


class ObtainExpiringToken(ObtainAuthToken):
    """POST {username, password} → {token, expires_at}; an expired token is replaced by a new one."""

    throttle_classes = [LoginThrottle]

    @extend_schema(operation_id="auth_token", request=AuthTokenSerializer, responses={200: TokenResultSerializer})
    def post(self, request: Request, *args, **kwargs) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = serializer.validated_data["user"]
        token, _ = Token.objects.get_or_create(user=user)
        if token_expired(token):
            token.delete()
            token = Token.objects.create(user=user)
        return Response({"token": token.key, "expires_at": token.created + token_max_age()})


class ThrottledLoginView(auth_views.LoginView):
    """Django's login page; after LOGIN_RATE failed sign-ins from one address, POSTs answer 429 for the window."""

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        throttle = LoginThrottle()
        key = throttle.get_cache_key(request, None)
        now = throttle.timer()
        failures = [t for t in throttle.cache.get(key, []) if t > now - throttle.duration]
        if len(failures) >= throttle.num_requests:
            wait = max(1, int(throttle.duration - (now - failures[-1])))
            response = render(request, "annotation_tasks/message.html", {
                "title": "Too many attempts",
                "text": f"Too many failed sign-ins from your address. Try again in {wait} seconds.",
            }, status=429)
            response["Retry-After"] = str(wait)
            return response
        response = super().post(request, *args, **kwargs)
        if not request.user.is_authenticated:  # the form was refused: count the failure
            throttle.cache.set(key, [now, *failures], throttle.duration)
        return response
